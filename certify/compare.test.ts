/**
 * Run-to-run comparison: the rules on small reports, then the real thing: a clean certification,
 * a certification of a provider with a fault against it as the baseline (H2H_BASELINE_REPORT:
 * console and HTML name the regressions), and `npm run compare` on the two reports as a user runs
 * it (names the regressed checks, exits 1). The certifications run in this process, one Vitest
 * for both, as the CLI runs them but without a child's start-up each.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout, runScript } from "../fixtures/testing/index.ts";
import { SettingsError } from "../run-setup/index.ts";
import {
  compareRuns,
  ReportReadError,
  type RunResults,
  readRunResults,
  resultsOf,
} from "./analysis/compare.ts";
import type { RunReport } from "./engine/run-model.ts";
import { REPORT_FILES } from "./reports/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";

fileTimeout(180_000);

type Check = {
  endpoint: string;
  check: string;
  case?: string;
  status: "passed" | "failed" | "skipped" | "not evaluated";
  required?: boolean;
};

function run(runId: string, startedAt: string, checks: Check[], verdict = "conformant"): RunResults {
  return resultsOf(
    {
      runId,
      startedAt,
      verdict,
      target: { baseUrl: "http://127.0.0.1:1" },
      checks: checks.map((c) => ({ required: true, detail: `${c.check} ${c.status}`, ...c })),
    },
    `${runId}.json`,
  );
}

const e = "createMobileCommerceOrder";

describe("compareRuns", () => {
  it("sorts each check into regression, fix, new, removed, other change or unchanged", () => {
    const previous = run("r1", "2026-01-01T00:00:00Z", [
      { endpoint: e, check: "a.stays", status: "passed" },
      { endpoint: e, check: "a.regresses", case: "x", status: "passed" },
      { endpoint: e, check: "a.fixed", status: "failed" },
      { endpoint: e, check: "a.gone", status: "passed" },
      { endpoint: e, check: "a.skipped-now", status: "passed" },
      { endpoint: e, check: "a.warns-now", status: "passed" },
    ]);
    const current = run("r2", "2026-01-02T00:00:00Z", [
      { endpoint: e, check: "a.stays", status: "passed" },
      { endpoint: e, check: "a.regresses", case: "x", status: "failed" },
      { endpoint: e, check: "a.fixed", status: "passed" },
      { endpoint: e, check: "a.new", status: "failed" },
      { endpoint: e, check: "a.skipped-now", status: "skipped" },
      { endpoint: e, check: "a.warns-now", status: "failed", required: false },
    ]);
    const comparison = compareRuns([previous, current]);
    const keys = (changes: { key: string }[]) => changes.map((c) => c.key);
    expect(keys(comparison.regressions)).toEqual([`${e} › a.regresses › x`]);
    expect(comparison.regressions[0]?.after?.detail).toBe("a.regresses failed");
    expect(keys(comparison.fixes)).toEqual([`${e} › a.fixed`]);
    expect(keys(comparison.added)).toEqual([`${e} › a.new`]);
    expect(keys(comparison.removed)).toEqual([`${e} › a.gone`]);
    expect(comparison.changed.map((c) => [c.key, c.before?.outcome, c.after?.outcome])).toEqual([
      [`${e} › a.skipped-now`, "passed", "skipped"],
      [`${e} › a.warns-now`, "passed", "warned"],
    ]);
    expect(comparison.unchangedCount).toBe(1);
    expect(comparison.previous.runId).toBe("r1");
    expect(comparison.current.runId).toBe("r2");
  });

  it("sees a generated probe's check as the same check whatever the run's seed; not evaluated is a change", () => {
    const label = (seed: number) => `method 101, 6 generated orders (seed ${seed})`;
    const previous = run("r1", "2026-01-01T00:00:00Z", [
      { endpoint: e, check: "a.generated", case: label(11), status: "passed" },
      { endpoint: e, check: "a.blocked", status: "passed" },
    ]);
    const current = run("r2", "2026-01-02T00:00:00Z", [
      { endpoint: e, check: "a.generated", case: label(12), status: "failed" },
      { endpoint: e, check: "a.blocked", status: "not evaluated" },
    ]);
    const comparison = compareRuns([previous, current]);
    expect(comparison.regressions.map((c) => c.key)).toEqual([
      `${e} › a.generated › method 101, 6 generated orders`,
    ]);
    expect(comparison.added).toEqual([]);
    expect(comparison.removed).toEqual([]);
    expect(comparison.changed.map((c) => [c.key, c.after?.outcome])).toEqual([
      [`${e} › a.blocked`, "not evaluated"],
    ]);
  });

  it("judges a check run on several occasions by its worst outcome", () => {
    const previous = run("r1", "2026-01-01T00:00:00Z", [{ endpoint: e, check: "a.b", status: "passed" }]);
    const current = run("r2", "2026-01-02T00:00:00Z", [
      { endpoint: e, check: "a.b", status: "passed" },
      { endpoint: e, check: "a.b", status: "failed" },
    ]);
    expect(compareRuns([previous, current]).regressions).toHaveLength(1);
  });

  it("calls flaky what goes back and forth across runs, not a single regression", () => {
    const outcomes: Record<string, Check["status"][]> = {
      "a.flaky": ["passed", "failed", "passed", "failed"],
      "a.regressed-once": ["passed", "passed", "passed", "failed"],
      "a.fixed-once": ["failed", "failed", "passed", "passed"],
      "a.flaky-with-a-skip": ["failed", "skipped", "passed", "failed"],
    };
    const runs = [0, 1, 2, 3].map((i) =>
      run(
        `r${i}`,
        `2026-01-0${i + 1}T00:00:00Z`,
        Object.entries(outcomes).map(([check, list]) => ({
          endpoint: e,
          check,
          status: list[i] as Check["status"],
        })),
      ),
    );
    const { flaky, regressions } = compareRuns(runs);
    expect(flaky.map((f) => [f.key, f.flips])).toEqual([
      [`${e} › a.flaky`, 3],
      [`${e} › a.flaky-with-a-skip`, 2],
    ]);
    expect(flaky[0]?.outcomes).toEqual(["passed", "failed", "passed", "failed"]);
    expect(regressions.map((r) => r.key)).toEqual([
      `${e} › a.flaky`,
      `${e} › a.regressed-once`,
      `${e} › a.flaky-with-a-skip`,
    ]);
  });
});

describe("readRunResults", () => {
  const dir = mkdtempSync(join(tmpdir(), "h2h-compare-read-"));

  it("names the file and what is wrong with it", async () => {
    await expect(readRunResults(join(dir, "absent.json"))).rejects.toThrow(
      /absent\.json: cannot be read \(ENOENT\)/,
    );
    writeFileSync(join(dir, "text.json"), "not json");
    await expect(readRunResults(join(dir, "text.json"))).rejects.toThrow(/text\.json: is not JSON/);
    writeFileSync(
      join(dir, "other.json"),
      JSON.stringify({
        runId: "x",
        startedAt: "y",
        verdict: "z",
        target: { baseUrl: "u" },
        checks: [{ endpoint: 1 }],
      }),
    );
    const failure = readRunResults(join(dir, "other.json"));
    await expect(failure).rejects.toThrow(ReportReadError);
    await expect(readRunResults(join(dir, "other.json"))).rejects.toThrow(
      /other\.json: is not an h2h-certify JSON report \(h2h-certify\.json\): checks\.0\.endpoint: .*string/,
    );
  });
});

function child(command: string, args: string[], env: Record<string, string>) {
  return runScript(command, args, {
    H2H_BASE_URL: "",
    H2H_API_KEY: "",
    H2H_API_KEY_2: "",
    H2H_PROFILE: "",
    H2H_TARGET_IMAGE: "",
    H2H_BASELINE_REPORT: "",
    ...env,
  });
}

/**
 * The checks a provider that signs its callbacks wrongly fails: every signature, both kinds, all
 * four statuses, every delivery of a retried one, and the generated orders of every method (their case names the random seed,
 * which a comparison leaves out).
 */
const SIGNATURE_CASES = [
  ...["mobile commerce", "quasi-ecom"].flatMap((kind) =>
    ["succeeded", "expired", "failed_by_terminal", "succeeded_by_appeal"].map(
      (status) => `callbacks (${kind}) › callbacks.signature-valid › ${status}`,
    ),
  ),
  ...[101, 102, 201, 202].map(
    (method) =>
      `callbacks (generated orders) › callbacks.signature-valid › method ${method}, 6 generated orders`,
  ),
  // Every delivery of the retried callback is judged too, retries included.
  "callbacks (retries) › callbacks.signature-valid › every delivery, retries included",
];

describe("comparing two real certification runs", () => {
  const dir = mkdtempSync(join(tmpdir(), "h2h-compare-e2e-"));
  /** The two runs' report directories. */
  let clean: string;
  let faulty: string;
  let provider: RunningReferenceProvider;
  let faultyRun: { exitCode: number | null; output: string };
  const specRunner = sharedSpecRunner();

  beforeAll(async () => {
    // The checks a wrong signature fails, and the arrival of the same callbacks (unchanged): the
    // comparison is what is under test here, so the rest of a certification is left out.
    const only = ["callbacks.signature-valid", "callbacks.arrives"];
    // The bundled reference provider (no H2H_BASE_URL).
    const cleanRun = await certifyInProcess({}, { only, specRunner: specRunner.run });
    // --only: a partial run (exit 4), a baseline all the same.
    expect(cleanRun.exitCode, cleanRun.output).toBe(4);
    clean = cleanRun.reportDir;
    provider = await startReferenceProvider({ port: 0, faults: ["bad-callback-signature"] });
    const run = await certifyInProcess(
      {
        H2H_BASE_URL: provider.url,
        H2H_PROFILE: fileURLToPath(new URL("../fixtures/profiles/reference.json", import.meta.url)),
        H2H_BASELINE_REPORT: join(clean, REPORT_FILES.json),
      },
      { only, specRunner: specRunner.run, reports: ["json", "html"] },
    );
    faultyRun = run;
    faulty = run.reportDir;
  });
  afterAll(async () => {
    await specRunner.close();
    await provider?.stop();
  });

  it("certify with H2H_BASELINE_REPORT names the regressions since that run on the console and in the HTML", () => {
    const { exitCode, output } = faultyRun;
    expect(exitCode, output).toBe(1);
    expect(output).toMatch(
      /since baseline run-\S+ \(.*, partial\): 13 regression\(s\), 0 fix\(es\), 0 new, 0 removed/,
    );
    // Each a whole line of the console (which ends every line, the last one too).
    for (const key of SIGNATURE_CASES) expect(`${output}\n`).toContain(`  regressed: ${key}\n`);
    const html = readFileSync(join(faulty, REPORT_FILES.html), "utf8");
    expect(html).toContain('<h2 id="since-baseline">Changes since the baseline run</h2>');
    expect(html).toContain("Regressions: passed then, failed now (13)");
    const report = JSON.parse(readFileSync(join(faulty, REPORT_FILES.json), "utf8")) as RunReport;
    expect(report.baseline?.regressions.map((r) => r.key).sort()).toEqual([...SIGNATURE_CASES].sort());
  });

  it("npm run compare names the regressed checks and exits 1; the other way round they are fixes, exit 0", async () => {
    const forward = await child(
      "compare",
      [join(clean, REPORT_FILES.json), join(faulty, REPORT_FILES.json)],
      {},
    );
    expect(forward.exitCode, forward.output).toBe(1);
    expect(forward.output).toContain("regressions (passed → failed): 13");
    for (const key of SIGNATURE_CASES) expect(forward.output).toContain(`  ✗ ${key}: `);
    expect(forward.output).toMatch(
      /13 regression\(s\), 0 fix\(es\), 0 new, 0 removed, 0 other change\(s\), 0 flaky, [1-9]\d* unchanged/,
    );

    // Any order on the command line: the reports' start times say which run came first.
    const markdown = await child(
      "compare",
      ["--format", "markdown", join(faulty, REPORT_FILES.json), join(clean, REPORT_FILES.json)],
      {},
    );
    expect(markdown.exitCode).toBe(1);
    expect(markdown.output).toContain("### Regressions");
    expect(markdown.output).toContain(`| ${SIGNATURE_CASES[0]} | passed | failed |`);

    // A copy of the clean report as a run after both, with `changes`, compared with `previous`.
    const compareWithLaterCopy = (previous: string, name: string, changes: Partial<RunReport> = {}) => {
      const later = JSON.parse(readFileSync(join(clean, REPORT_FILES.json), "utf8")) as RunReport;
      writeFileSync(
        join(dir, name),
        JSON.stringify({ ...later, startedAt: new Date(Date.now() + 60_000).toISOString(), ...changes }),
      );
      return child("compare", [previous, join(dir, name)], {});
    };
    // Fixed: the clean run again, after the faulty one, as a whole run.
    const back = await compareWithLaterCopy(join(faulty, REPORT_FILES.json), "later.json", {
      verdict: "conformant",
    });
    expect(back.exitCode, back.output).toBe(0);
    expect(back.output).toContain("fixes (failed → passed): 13");

    // The same, as the partial run it was (--only): no comparison passes it, even with fixes only.
    const onlyPart = await compareWithLaterCopy(join(faulty, REPORT_FILES.json), "partial.json");
    expect(onlyPart.exitCode, onlyPart.output).toBe(4);
    expect(onlyPart.output).toContain('judged only part of the contract (verdict "partial")');

    // A later run stopped before its end passes no comparison, even with no regression.
    const partial = await compareWithLaterCopy(join(clean, REPORT_FILES.json), "stopped.json", {
      verdict: "incomplete",
    });
    expect(partial.exitCode, partial.output).toBe(2);
    expect(partial.output).toContain('did not finish (verdict "incomplete")');
  });

  it("npm run compare reads relative paths from the user's directory, as H2H_PROFILE is read", async () => {
    // npm run changes into the package root and says where the user was in INIT_CWD.
    const userDir = mkdtempSync(join(tmpdir(), "h2h-user-"));
    const report = JSON.parse(readFileSync(join(clean, REPORT_FILES.json), "utf8")) as RunReport;
    writeFileSync(join(userDir, "monday.json"), JSON.stringify(report));
    const tuesday = {
      ...report,
      verdict: "conformant",
      startedAt: new Date(Date.now() + 60_000).toISOString(),
    };
    writeFileSync(join(userDir, "tuesday.json"), JSON.stringify(tuesday));
    const run = await child("compare", ["monday.json", "tuesday.json"], { INIT_CWD: userDir });
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toMatch(/0 regression\(s\), 0 fix\(es\), 0 new, 0 removed/);
  });

  it("refuses what is not a report, naming the file, with exit 64", async () => {
    writeFileSync(join(dir, "har.json"), JSON.stringify({ log: { entries: [] } }));
    const bad = await child("compare", [join(clean, REPORT_FILES.json), join(dir, "har.json")], {});
    expect(bad.exitCode).toBe(64);
    expect(bad.output).toMatch(/^error: .*har\.json: is not an h2h-certify JSON report/m);
    const one = await child("compare", [join(clean, REPORT_FILES.json)], {});
    expect(one.exitCode).toBe(64);
    expect(one.output).toContain(
      "give at least 2 REPORT.json… (two or more reports: previous and current); got 1",
    );
    const baseline: unknown = await certifyInProcess(
      { H2H_BASELINE_REPORT: join(dir, "nowhere.json") },
      { specRunner: specRunner.run },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    // A bad setting: certify prints `error: <message>` and exits 64 (bad usage).
    expect(baseline).toBeInstanceOf(SettingsError);
    expect((baseline as SettingsError).message).toMatch(
      /^H2H_BASELINE_REPORT: .*nowhere\.json: cannot be read \(ENOENT\)/,
    );
  });
});
