/**
 * Partial runs say so. `--only envelope.shape` against a provider whose other checks fail used to
 * print CONFORMANT and exit 0: it judged one check, not the contract. It is PARTIAL (exit 4) on
 * the console, in the JSON, JUnit and HTML; a required check that fails within the --only set is
 * still NOT CONFORMANT (exit 1).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { REPORT_FILES } from "./reports/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";

fileTimeout(120_000);

const RACE = "behaviour.concurrent-creations-one-accepted";

describe("certify --only against a provider with a failing check", () => {
  let provider: RunningReferenceProvider;
  // In this process, one Vitest for both runs: the verdict, not the process, is what is tested.
  const specRunner = sharedSpecRunner();
  beforeAll(async () => {
    provider = await startReferenceProvider({ port: 0, faults: ["racy-merchant-order-id"] });
  });
  afterAll(async () => {
    await specRunner.close();
    await provider.stop();
  });

  const certify = (only: string) =>
    certifyInProcess(
      {
        H2H_BASE_URL: provider.url,
        H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
        H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
        H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
      },
      { only: [only], reports: ["junit", "html"], specRunner: specRunner.run },
    );

  it("--only envelope.shape is PARTIAL (exit 4) everywhere, never CONFORMANT", async () => {
    const { exitCode, output, report, reportDir } = await certify("envelope.shape");
    expect(exitCode, output).toBe(4);
    expect(output).not.toContain("verdict: CONFORMANT");
    expect(output).toMatch(
      /verdict: PARTIAL — .*, \d+ check\(s\) run, \d+ not run \(--only envelope\.shape\): not a certification/,
    );
    expect(report.verdict).toBe("partial");
    expect(report.totals.failedRequired).toBe(0);
    expect(report.partial?.checksRun).toBeGreaterThan(0);
    expect(report.partial?.checksNotRun).toBeGreaterThan(0);
    expect(report.partial?.only).toEqual(["envelope.shape"]);
    const html = readFileSync(join(reportDir, REPORT_FILES.html), "utf8");
    expect(html).toContain('<span class="verdict partial">PARTIAL</span>');
    expect(html).not.toContain(">CONFORMANT<");
    expect(readFileSync(join(reportDir, REPORT_FILES.junit), "utf8")).toContain(
      '<property name="h2h.partial"',
    );
  });

  it("--only the failing check is NOT CONFORMANT (exit 1)", async () => {
    const { exitCode, output, report } = await certify(RACE);
    expect(exitCode, output).toBe(1);
    expect(output).toContain("verdict: NOT CONFORMANT");
    expect(report.verdict).toBe("not conformant");
    expect(report.checks.some((c) => c.check === RACE && c.status === "failed" && c.required)).toBe(true);
  });
});
