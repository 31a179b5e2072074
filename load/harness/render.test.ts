/**
 * The load report's page, opened in a real headless Chromium (Debian's `chromium`): it renders,
 * with no network, and every plot has drawn data, measured by the browser's own layout (the
 * drawn lines' lengths and the bars' areas), not just found in the source. Skipped, by name and
 * with the reason, where no Chromium is installed.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileTimeout, scaledMs } from "../../fixtures/testing/index.ts";
import { report } from "../testing/sample-report.ts";
import { renderLoadHtml } from "./report.ts";

fileTimeout(120_000);

function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_BIN;
  const names = configured ? [configured] : ["chromium", "chromium-browser", "google-chrome"];
  for (const name of names) {
    const candidates = name.includes("/")
      ? [name]
      : (process.env.PATH ?? "").split(delimiter).map((d) => join(d, name));
    for (const candidate of candidates) {
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {}
    }
  }
  return undefined;
}

const chromium = findChromium();
const work = mkdtempSync(join(tmpdir(), "h2h-render-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runChromium(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      chromium as string,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
        `--user-data-dir=${mkdtempSync(join(work, "profile-"))}`,
        ...args,
      ],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), scaledMs(60_000));
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

/** Appended to a copy of the page only (the report itself has no script): what the browser laid out. */
const MEASURE = `<script>
document.body.dataset.layout = JSON.stringify([...document.querySelectorAll("svg.plot")].map((svg) => ({
  plot: svg.dataset.plot,
  width: svg.getBoundingClientRect().width,
  lineLength: [...svg.querySelectorAll("path.series")].reduce((sum, p) => sum + p.getTotalLength(), 0),
  dots: svg.querySelectorAll("circle").length,
  barArea: [...svg.querySelectorAll("rect.bar")].reduce((sum, r) => { const b = r.getBBox(); return sum + b.width * b.height; }, 0),
})));
</script>`;

describe("load report page in headless Chromium", () => {
  it("renders offline, and every plot has data drawn", async (ctx) => {
    if (!chromium)
      return ctx.skip(
        "no chromium, chromium-browser or google-chrome on PATH and CHROMIUM_BIN is not set: apt-get install chromium",
      );
    const html = renderLoadHtml(report("mixed-smoke-shares"));
    const page = join(work, "report.html");
    writeFileSync(page, html);
    const measured = join(work, "measured.html");
    writeFileSync(measured, html.replace("</body>", `${MEASURE}</body>`));

    const dom = await runChromium(["--dump-dom", `file://${measured}`]);
    expect(dom.code).toBe(0);
    const layout = JSON.parse(
      (/data-layout="([^"]*)"/.exec(dom.stdout)?.[1] ?? "[]").replace(/&quot;/g, '"'),
    ) as { plot: string; width: number; lineLength: number; dots: number; barArea: number }[];
    expect(layout.map((p) => p.plot)).toEqual(["p95", "throughput", "errors", "delivery", "latency"]);
    for (const plot of layout) {
      expect(plot.width, plot.plot).toBeGreaterThan(300);
      if (plot.plot === "latency") expect(plot.barArea, plot.plot).toBeGreaterThan(100);
      else expect(plot.lineLength + plot.dots * 10, plot.plot).toBeGreaterThan(100);
    }

    const png = join(work, "report.png");
    const shot = await runChromium(["--window-size=1100,3600", `--screenshot=${png}`, `file://${page}`]);
    expect(shot.code).toBe(0);
    expect(statSync(png).size).toBeGreaterThan(50_000);
  });
});
