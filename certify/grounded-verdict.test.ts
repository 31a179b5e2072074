/**
 * A verdict rests only on what the API description states, what the profile declares, or what
 * follows from them: a certification (in this process, as `npm run certify` runs it) against the
 * reference provider switched into faults that only the suite's own limits catch, with profiles
 * that do not declare those limits or that waive the check. The run is conformant, and the
 * advisories and waived checks say what the target did.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { REPORT_FILES, type ReportKind } from "./reports/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";

fileTimeout(120_000);

const referenceJson = () =>
  JSON.parse(readFileSync(new URL("../fixtures/profiles/reference.json", import.meta.url), "utf8")) as Record<
    string,
    unknown
  >;

// One Vitest for the file's runs, their specs one after another: its start-up is most of a short run's CPU.
const specRunner = sharedSpecRunner();
afterAll(() => specRunner.close());

async function certifyFaulty(
  faults: string[],
  profile: Record<string, unknown>,
  only?: string[],
  reports?: readonly ReportKind[],
) {
  const dir = mkdtempSync(join(tmpdir(), "h2h-grounded-"));
  writeFileSync(join(dir, "profile.json"), JSON.stringify(profile));
  const provider = await startReferenceProvider({ port: 0, faults });
  try {
    return await certifyInProcess(
      {
        H2H_BASE_URL: provider.url,
        H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
        H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
        H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        H2H_PROFILE: join(dir, "profile.json"),
        H2H_SEED: "11",
      },
      { specRunner: specRunner.run, ...(only ? { only } : {}), ...(reports ? { reports } : {}) },
    );
  } finally {
    await provider.stop();
  }
}

// Side by side: each run against a provider of its own; their specs take turns on the one Vitest.
describe.concurrent("a verdict grounded in the API description and the profile", () => {
  it("a provider that takes text of any length is conformant under a profile that declares no length; the advisories say what it did", async () => {
    const { requestRules: _declared, ...profile } = referenceJson();
    const run = await certifyFaulty(["long-text-truncated"], profile, undefined, ["json", "html"]);
    expect(run.exitCode, run.output).toBe(0);
    const advisories = run.report.checks.filter(
      (c) => c.check === "behaviour.rejects-length-out-of-bounds" && c.status === "failed",
    );
    expect(advisories.length).toBeGreaterThan(2);
    for (const advisory of advisories) {
      expect(advisory.required).toBe(false);
      expect(advisory.reason).toMatch(/^advisory: /);
      expect(advisory.detail).toMatch(/^accepted: HTTP 200/);
    }
    expect(run.report.checks.filter((c) => c.required && c.status === "failed")).toEqual([]);
    // A conformant run reads conformant: advisories are counted apart, never marked or counted as failures.
    expect(run.output).not.toContain("✗");
    expect(run.output).not.toMatch(/failures by rule/);
    expect(run.output).not.toMatch(/\(advisory\) \(advisory\)/);
    expect(run.output).toMatch(
      new RegExp(
        `· behaviour\\.rejects-length-out-of-bounds \\(advisory\\): ${advisories.length} probe\\(s\\): accepted ×${advisories.length}`,
      ),
    );
    const { totals, summary } = run.report;
    expect(totals.failed).toBe(0);
    expect(totals.advisories).toBeGreaterThanOrEqual(advisories.length);
    for (const entry of summary) {
      expect(entry.failed, entry.endpoint).toBe(0);
      if (entry.score !== null) expect(entry.score, entry.endpoint).toBe(100);
    }
    const html = readFileSync(join(run.reportDir, REPORT_FILES.html), "utf8");
    expect(html).not.toContain("✗");
    expect(html).not.toMatch(/class="[^"]*\bfailed\b/);
    expect(html).not.toContain('id="failures-by-rule"');
    expect(html).toContain('id="advisories"');
    // A skipped case is named, so no check reads as both skipped and failed.
    for (const line of run.output.split("\n").filter((l) => l.startsWith("skipped: ")))
      expect(line).toMatch(/^skipped: \S+ › /);
  });

  it("a check the profile waives causes no required failure through its probes, envelope.failure-markers included", async () => {
    const profile = {
      ...referenceJson(),
      informationalChecks: {
        "behaviour.rejects-malformed-value": "this sandbox documents no card format check",
      },
    };
    const run = await certifyFaulty(["card-formats-unchecked"], profile);
    expect(run.exitCode, run.output).toBe(0);
    const waived = run.report.checks.filter(
      (c) => c.check === "behaviour.rejects-malformed-value" && c.status === "failed",
    );
    expect(waived.length).toBeGreaterThan(0);
    expect(waived.every((c) => !c.required)).toBe(true);
    const markers = run.report.checks.filter((c) => c.check === "envelope.failure-markers");
    expect(markers.filter((c) => c.required && c.status !== "passed")).toEqual([]);
    expect(run.report.checks.filter((c) => c.required && c.status === "failed")).toEqual([]);
  });

  it("a provider that confirms through the other kind's path is conformant where the profile does not say that path refuses, its callbacks included", async () => {
    const profile = referenceJson();
    const { otherKindConfirm: _undeclared, ...lifecycle } = profile.lifecycle as Record<string, unknown>;
    const run = await certifyFaulty(["other-kind-confirm-path-accepted"], { ...profile, lifecycle });
    expect(run.exitCode, run.output).toBe(0);
    const taken = run.report.checks.filter((c) => c.check === "behaviour.rejects-other-kind-confirm-path");
    expect(taken.some((c) => c.status === "failed" && !c.required)).toBe(true);
    expect(run.report.checks.filter((c) => c.required && c.status === "failed")).toEqual([]);
  });

  it("the same fault under the reference profile, which declares the card formats, is not conformant", async () => {
    // The fault's own check is enough: one required failure makes the run not conformant, --only or not.
    const run = await certifyFaulty(["card-formats-unchecked"], referenceJson(), [
      "behaviour.rejects-malformed-value",
    ]);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.report.verdict).toBe("not conformant");
    const failed = run.report.checks.filter((c) => c.required && c.status === "failed").map((c) => c.check);
    expect(failed).toContain("behaviour.rejects-malformed-value");
  });
});
