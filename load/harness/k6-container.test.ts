/**
 * k6 in a container when no k6 is installed, with a real Docker engine and no registry: an image
 * the engine lacks (or a Ryuk reaper it cannot pull) is one line naming the fix, exit 3, nothing
 * written; a k6 image the engine has is run as it is, never pulled. Without an engine, or
 * without a k6 image in it for the run test, the tests are skipped by name with the reason.
 */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fileTimeout, runScript } from "../../fixtures/testing/index.ts";
import { engineClient, parseSetting } from "../../run-setup/index.ts";
import { DEFAULT_K6_IMAGE } from "./k6-container.ts";
import { LOAD_FILES } from "./run.ts";

fileTimeout(180_000);

function load(args: string[], env: Record<string, string>) {
  return runScript("load", args, {
    TESTCONTAINERS_RYUK_DISABLED: process.env.TESTCONTAINERS_RYUK_DISABLED ?? "true",
    H2H_BASE_URL: "",
    H2H_TARGET_IMAGE: "",
    // No k6 installed, as far as the run can see.
    PATH: "/nonexistent",
    K6_BIN: "",
    ...env,
  });
}

/** An image no engine has and no registry serves. */
const ABSENT_IMAGE = "localhost/h2h-certify/k6-that-is-not-there:0.0.0";

let noEngine: string | undefined;
/** A k6 image the engine has (H2H_K6_IMAGE, else the default), or why there is none. */
let k6Image: { image: string } | { missing: string };

beforeAll(async () => {
  try {
    const client = await engineClient("the k6 container tests");
    const { ImageName } = await import("testcontainers");
    const image = parseSetting("k6Image", process.env);
    k6Image = (await client.image.exists(ImageName.fromString(image)))
      ? { image }
      : {
          missing: `the Docker engine has no k6 image ${image} (H2H_K6_IMAGE, default ${DEFAULT_K6_IMAGE}) and no registry is assumed: docker load one to run this test`,
        };
  } catch (error) {
    noEngine = (error as Error).message;
  }
});

describe("npm run load with k6 in a container", () => {
  it("with no k6 and an engine that lacks H2H_K6_IMAGE: one line naming it, exit 3, nothing written", async (ctx) => {
    if (noEngine) return ctx.skip(noEngine);
    const reportDir = join(mkdtempSync(join(tmpdir(), "h2h-k6-absent-")), "reports");
    const { exitCode, output } = await load(["--scenario", "smoke"], {
      H2H_K6_IMAGE: ABSENT_IMAGE,
      H2H_REPORT_DIR: reportDir,
    });
    expect(exitCode, output).toBe(3);
    const lines = output.trim().split("\n");
    expect(lines, output).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error: k6 is not installed and cannot run in Docker: the Docker engine has no image localhost\/h2h-certify\/k6-that-is-not-there:0\.0\.0 \(H2H_K6_IMAGE\) and could not pull it \(.+\)\. Fix: install k6 .* or set H2H_K6_IMAGE to a k6 image the Docker engine has/,
    );
    expect(existsSync(reportDir)).toBe(false);
  });

  it("with Ryuk enabled and its image out of reach: one line saying TESTCONTAINERS_RYUK_DISABLED=true", async (ctx) => {
    if (noEngine) return ctx.skip(noEngine);
    const { exitCode, output } = await load(["--scenario", "smoke"], {
      TESTCONTAINERS_RYUK_DISABLED: "false",
      RYUK_CONTAINER_IMAGE: "localhost/h2h-certify/ryuk-that-is-not-there:0.0.0",
      H2H_K6_IMAGE: ABSENT_IMAGE,
    });
    expect(exitCode, output).toBe(3);
    expect(output.trim().split("\n"), output).toHaveLength(1);
    expect(output).toMatch(
      /^error: k6 is not installed and cannot run in Docker: testcontainers could not start its Ryuk reaper .*set TESTCONTAINERS_RYUK_DISABLED=true/,
    );
  });

  it("with a k6 image the engine has under H2H_K6_IMAGE: runs it, never pulled, 100 % callbacks, no container left", async (ctx) => {
    if (noEngine) return ctx.skip(noEngine);
    if ("missing" in k6Image) return ctx.skip(k6Image.missing);
    const reportDir = mkdtempSync(join(tmpdir(), "h2h-k6-container-"));
    const { exitCode, output } = await load(["--scenario", "smoke", "--duration", "3s"], {
      H2H_K6_IMAGE: k6Image.image,
      H2H_REPORT_DIR: reportDir,
    });
    expect(exitCode, output).toBe(0);
    expect(output).toContain(`k6 image ${k6Image.image}`);
    expect(output).toMatch(/got their final callback within \S+ of its trigger \(100\.00 %/);
    expect(readdirSync(join(reportDir, "load"))).toEqual(
      expect.arrayContaining([
        LOAD_FILES.summary,
        LOAD_FILES.junit,
        LOAD_FILES.reportJson,
        LOAD_FILES.reportHtml,
      ]),
    );
    const client = await engineClient("the k6 container tests");
    const left = (await client.container.list()).filter((c) => c.Labels["h2h-certify.role"] === "k6");
    expect(left).toEqual([]);
  });
});
