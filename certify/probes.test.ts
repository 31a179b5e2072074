/**
 * The generated and stateful probes as a user meets them in `npm run certify`'s console and
 * reports (certifications in this process, as the CLI runs them, `--seed` given as its flag): a
 * failing generated order is reported with its seed, the command that re-runs just that check, the
 * minimal request and a curl; `--only` runs just that check; the same seed sends the same
 * requests; no test card is left whole in any report.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CARD_NUMBERS } from "../contract/index.ts";
import {
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { PROJECT_ROOT } from "../run-setup/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { REPORT_FILES, REPORT_KINDS, type ReportKind } from "./reports/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";

fileTimeout(180_000);

const CHECK = "semantics.method-echoed";

// One Vitest for the file's runs, their specs one after another: its start-up is most of a short run's CPU.
const specRunner = sharedSpecRunner();
afterAll(() => specRunner.close());

/** `npm run certify -- [--seed <seed>] --only <check>…` against `baseUrl`, no API key or profile set. */
function certify(baseUrl: string, only: string[], seed?: number, reports: readonly ReportKind[] = ["json"]) {
  return certifyInProcess(
    { H2H_BASE_URL: baseUrl },
    {
      only,
      reports,
      specRunner: specRunner.run,
      ...(seed === undefined ? {} : { flags: { seed } }),
    },
  );
}

/** The generated orders' create requests of a run, with what differs from run to run made neutral (the prefix, the sink's callback URL). */
function generatedCreations(report: RunReport): string[] {
  const prefix = report.probes?.merchantOrderIdPrefix as string;
  return report.exchanges
    .filter((e) => e.source === "generated-orders" && e.operation?.startsWith("create"))
    .map((e) =>
      e.request.body
        .replaceAll(prefix, "<prefix>")
        .replace(/127\.0\.0\.1(?::|%3A)\d+/g, "<sink>")
        .replace(/run-\d{8}T\d{6}-[0-9a-f]{6}/g, "<run>"),
    )
    .sort();
}

let clean: RunningReferenceProvider;
let faulty: RunningReferenceProvider;
beforeAll(async () => {
  [clean, faulty] = await Promise.all([
    startReferenceProvider({ port: 0 }),
    startReferenceProvider({ port: 0, faults: ["method-echo-default"] }),
  ]);
});
afterAll(async () => {
  await Promise.all([clean?.stop(), faulty?.stop()]);
});

describe("a failing generated probe", () => {
  it("is reported with its seed, the --only command, the shrunk request and a curl, and --only runs just that check", async () => {
    // Every report: none may hold a whole card.
    const run = await certify(faulty.url, [CHECK], 11, REPORT_KINDS);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toContain("seed 11 (from --seed)");
    const command = `H2H_BASE_URL=${faulty.url} H2H_DEPTH=quick H2H_REPORT_DIR=${join(run.reportDir, `rerun-${CHECK}-seed11`)} npm run certify -- --seed 11 --only ${CHECK}`;
    expect(run.output).toContain(`reproduce: ${command}`);
    expect(new Set(run.report.checks.map((c) => c.check))).toEqual(new Set([CHECK]));
    expect(run.report.probes).toMatchObject({ seed: 11, depth: "quick", only: [CHECK] });

    const failed = run.report.checks.find((c) => c.status === "failed" && c.case?.startsWith("method 102"));
    expect(failed?.detail).toMatch(/paymentDetailsData\.methodID is 101, expected 102/);
    const reproduction = failed?.reproduction;
    expect(reproduction).toMatchObject({ seed: 11, command });
    // Shrunk: what the failure does not need is gone, the method's required phone stays.
    const minimal = JSON.parse(reproduction?.request ?? "{}") as Record<string, unknown>;
    expect(minimal).toMatchObject({ methodID: 102, clientMetadata: { phone: expect.any(String) } });
    expect(Object.keys(minimal).length).toBeLessThan(5);
    expect(reproduction?.shrunk?.some((step) => step.startsWith("removed "))).toBe(true);
    expect(reproduction?.curl).toContain('--oauth2-bearer "$H2H_API_KEY"');
    expect(reproduction?.curl).toContain("/api/v1/payin/mobile-commerce/h2h");

    const html = readFileSync(join(run.reportDir, REPORT_FILES.html), "utf8");
    expect(html).toContain("seed 11");
    expect(html).toContain(`--only ${CHECK}`);
    expect(html).toContain(`H2H_BASE_URL=${faulty.url}`);
    expect(readFileSync(join(run.reportDir, REPORT_FILES.junit), "utf8")).toContain(
      '<property name="h2h.seed" value="11"/>',
    );
    for (const file of readdirSync(run.reportDir)) {
      const text = readFileSync(join(run.reportDir, file), "utf8");
      for (const card of TEST_CARD_NUMBERS)
        expect(text.includes(card), `${file} holds a card number`).toBe(false);
    }
  });

  it("prints a reproduce line that, pasted in a shell, fails the same way against the same target, its reports apart", async () => {
    const run = await certify(faulty.url, [CHECK], 12);
    const failed = run.report.checks.filter((c) => c.status === "failed" && c.required);
    const command = failed[0]?.reproduction?.command as string;
    expect(command, run.output).toMatch(
      /^H2H_BASE_URL=\S+ H2H_DEPTH=quick H2H_REPORT_DIR=\S+ npm run certify -- --seed 12 --only /,
    );
    const firstReport = readFileSync(join(run.reportDir, REPORT_FILES.json), "utf8");
    // As a user pastes it: a shell, the project's folder, no H2H_* variable of this test's process.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("H2H_")));
    // Asynchronously: the target answers from this process.
    const child = spawn("sh", ["-c", command], { cwd: PROJECT_ROOT, env: { ...env, H2H_WORKERS: "1" } });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(status, output).toBe(1);
    const rerunDir = join(run.reportDir, `rerun-${CHECK}-seed12`);
    const again = JSON.parse(readFileSync(join(rerunDir, REPORT_FILES.json), "utf8")) as RunReport;
    expect(again.target.baseUrl).toBe(faulty.url);
    expect(again.verdict).toBe("not conformant");
    const failedAgain = again.checks.filter((c) => c.status === "failed" && c.required);
    expect(failedAgain.map((c) => `${c.check} › ${c.case}`)).toEqual(
      failed.map((c) => `${c.check} › ${c.case}`),
    );
    // The failing run's reports stay as they were.
    expect(readFileSync(join(run.reportDir, REPORT_FILES.json), "utf8")).toBe(firstReport);
  });

  it("passes on the clean provider, and the same seed sends the same requests (but for the run's prefix)", async () => {
    const [first, second] = await Promise.all([
      certify(clean.url, [CHECK], 11),
      certify(clean.url, [CHECK], 11),
    ]);
    // --only judges part of the contract: partial (exit 4), never a pass, and no failure.
    expect(first.exitCode, first.output).toBe(4);
    expect(second.exitCode, second.output).toBe(4);
    expect(first.report.verdict).toBe("partial");
    expect(first.report.probes?.merchantOrderIdPrefix).not.toBe(second.report.probes?.merchantOrderIdPrefix);
    const requests = generatedCreations(first.report);
    // Six orders per method at the quick depth, four methods.
    expect(requests.length).toBe(24);
    expect(generatedCreations(second.report)).toEqual(requests);
    const other = await certify(clean.url, [CHECK], 12);
    expect(generatedCreations(other.report)).not.toEqual(requests);
  });
});

describe("--only", () => {
  it("runs a check without the tests around it: the envelope checks of refusals alone pass on the clean provider", async () => {
    // The targeted mutation self-test runs faults this way: a check that needs another test's
    // answer would fail on its own, and kill any fault.
    const envelope = ["envelope.failure-markers", "envelope.shape", "envelope.json-content-type"];
    const run = await certify(clean.url, envelope);
    expect(run.exitCode, run.output).toBe(4);
    expect(run.report.totals.failedRequired).toBe(0);
    const refusals = run.report.checks.filter((c) => c.source === "auth-and-validation.spec.ts");
    expect(refusals.length).toBeGreaterThanOrEqual(24);
    expect(refusals.filter((c) => c.status !== "passed").map((c) => `${c.check}: ${c.detail}`)).toEqual([]);
    expect(new Set(run.report.checks.map((c) => c.check))).toEqual(new Set(envelope));
  });
});
