/**
 * Test helper: a certification run in the test's own process, as the mutation self-test runs
 * them, limited to some spec files. A test about what one spec file judges then pays for neither a
 * child's start-up nor the other files' probes (a whole quick run is most of a minute of CPU).
 * The target is one the test started in this process (its sink's stall allowance counts so),
 * unless the test says it runs elsewhere (targetInThisProcess false: a container).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ParseSettingsOptions, parseSettings } from "../../run-setup/index.ts";
import { EXIT_OF_VERDICT, type RunReport } from "../engine/run-model.ts";
import { runCertification } from "../engine/runner.ts";
import { runSpecsOnce, type SpecRunner } from "../engine/spec-runner.ts";
import { REPORT_FILES, type ReportKind } from "../reports/index.ts";

export interface InProcessRun {
  exitCode: number;
  /** What the run printed, one line after another. */
  output: string;
  report: RunReport;
  /** Where the run wrote its reports. */
  reportDir: string;
}

export interface InProcessOptions {
  /** Spec files by name (e.g. "lifecycle.spec.ts"); none: every spec file. */
  specFiles?: readonly string[];
  /** `--only`: the checks the run is limited to. */
  only?: readonly string[];
  /** `--deadline`, in seconds. */
  deadlineSeconds?: number;
  /** How the specs run (e.g. sharedSpecRunner's, for runs one after another); default: runSpecsOnce. */
  specRunner?: SpecRunner;
  /** Settings given as the CLI's flags (e.g. `{ seed: 11 }`: `--seed 11`, "from --seed"). */
  flags?: ParseSettingsOptions["flags"];
  /** Which reports the run writes (default: the JSON alone; the JSON always is). */
  reports?: readonly ReportKind[];
  /**
   * The target serves from this process, beside the run's webhook sink (default). False for one
   * in another process (a container of H2H_TARGET_IMAGE): judged as the CLI judges it, its
   * lateness allowed the sink's longest stall, not every hold of this process's event loop.
   */
  targetInThisProcess?: boolean;
}

/**
 * Certifies the target the H2H_* variables of `env` name, at quick depth unless it sets
 * H2H_DEPTH, the outer H2H_* variables dropped (as spawnCertify does), its reports in a directory
 * of its own.
 */
export async function certifyInProcess(
  env: Record<string, string>,
  options: InProcessOptions = {},
): Promise<InProcessRun> {
  const reportDir = mkdtempSync(join(tmpdir(), "h2h-in-process-"));
  const outer = Object.entries(process.env).filter(
    ([name]) => !name.startsWith("H2H_") || name === "H2H_WORKERS",
  );
  const settings = parseSettings(
    { ...Object.fromEntries(outer), H2H_DEPTH: "quick", ...env, H2H_REPORT_DIR: reportDir },
    { command: "certify", ...(options.flags ? { flags: options.flags } : {}) },
  );
  const lines: string[] = [];
  await runCertification({
    settings,
    print: (line) => lines.push(line),
    reports: options.reports ?? ["json"],
    // Unless the test says otherwise, its target serves from this process, beside the run's sink.
    targetInThisProcess: options.targetInThisProcess ?? true,
    ...(options.specFiles ? { specFiles: options.specFiles.map((f) => join("certify/specs", f)) } : {}),
    ...(options.only ? { probes: { only: [...options.only] } } : {}),
    ...(options.specRunner ? { specRunner: options.specRunner } : {}),
    ...(options.deadlineSeconds === undefined ? {} : { deadlineMs: options.deadlineSeconds * 1000 }),
  });
  // The JSON as written, not the object in memory: what a user of the reports reads.
  const report = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
  return { exitCode: EXIT_OF_VERDICT[report.verdict], output: lines.join("\n"), report, reportDir };
}

/**
 * A test file's runs, their specs run one after another (what else they do, side by side), so
 * that one run's load never delays another's timing checks. `close` waits for the last one.
 */
export function sharedSpecRunner(): { run: SpecRunner; close(): Promise<void> } {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    run: (run) => {
      const next = queue.then(() => runSpecsOnce(run));
      queue = next.catch(() => undefined);
      return next;
    },
    close: () => queue.then(() => undefined),
  };
}
