/**
 * The default certification as a newcomer runs it (`npm run certify`, the bundled reference
 * provider), timed from the launch of the command to its exit, run after run. Each run's JSON
 * report says when its process started and when its spec files ran (`timings`), which splits
 * the wall time into phases: start-up, specs, callbacks (the callback spec, beside the others)
 * and reports (from the specs' end to the exit). The figures are medians over the runs.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { phasesOf, REPORT_FILES, type RunReport } from "../../certify/index.ts";
import { PROJECT_ROOT } from "../../run-setup/index.ts";
import { median } from "./measure.ts";

export interface CertifyBenchOptions {
  runs: number;
  /** The command and its arguments (default: `npm run certify`). */
  command?: readonly string[];
}

export interface CertifyRunTiming {
  exitCode: number | null;
  verdict: string;
  wallMs: number;
  /** Launch to the certify process's own start (npm, the TypeScript loader's launcher). */
  launchMs: number;
  /** The certify process's start to the run's start (loading modules). */
  importMs: number;
  /** The run's start to the first spec file (settings, provider, sink, Vitest). */
  setupMs: number;
  startupMs: number;
  specsMs: number;
  callbacksMs: number;
  reportsMs: number;
}

export interface CertifyBenchResult {
  runs: CertifyRunTiming[];
  median: Omit<CertifyRunTiming, "exitCode" | "verdict">;
}

const DEFAULT_COMMAND = ["npm", "run", "--silent", "certify"] as const;

function run(command: readonly string[], env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = command as [string, ...string[]];
    const child = spawn(file, args, { cwd: PROJECT_ROOT, env, stdio: ["ignore", "ignore", "inherit"] });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code));
  });
}

async function timeOneRun(command: readonly string[]): Promise<CertifyRunTiming> {
  const reportDir = await mkdtemp(join(tmpdir(), "h2h-bench-certify-"));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, H2H_REPORT_DIR: reportDir };
    for (const name of ["H2H_BASE_URL", "H2H_PROFILE", "H2H_API_KEY", "H2H_API_KEY_2", "H2H_WORKERS"])
      delete env[name];
    const launchedAtMs = Date.now();
    const exitCode = await run(command, env);
    const exitedAtMs = Date.now();
    const report = JSON.parse(await readFile(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
    if (!report.timings) throw new Error("the run's JSON report has no timings");
    const phases = phasesOf(report.timings, exitedAtMs, launchedAtMs);
    const { processStartedAtMs, runStartedAtMs, specsStartedAtMs } = report.timings;
    return {
      exitCode,
      verdict: report.verdict,
      wallMs: phases.wallMs,
      launchMs: processStartedAtMs - launchedAtMs,
      importMs: runStartedAtMs - processStartedAtMs,
      setupMs: (specsStartedAtMs ?? runStartedAtMs) - runStartedAtMs,
      startupMs: phases.startupMs,
      specsMs: phases.specsMs,
      callbacksMs: phases.callbacksMs,
      reportsMs: phases.reportsMs,
    };
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
}

/** Runs the default certification `runs` times, one after another. */
export async function runCertifyBench(
  options: CertifyBenchOptions,
  onRun?: (timing: CertifyRunTiming, index: number) => void,
): Promise<CertifyBenchResult> {
  const command = options.command ?? DEFAULT_COMMAND;
  const runs: CertifyRunTiming[] = [];
  for (let i = 0; i < options.runs; i++) {
    const timing = await timeOneRun(command);
    runs.push(timing);
    onRun?.(timing, i);
  }
  const of = (key: keyof CertifyBenchResult["median"]) => Math.round(median(runs.map((r) => r[key])));
  return {
    runs,
    median: {
      wallMs: of("wallMs"),
      launchMs: of("launchMs"),
      importMs: of("importMs"),
      setupMs: of("setupMs"),
      startupMs: of("startupMs"),
      specsMs: of("specsMs"),
      callbacksMs: of("callbacksMs"),
      reportsMs: of("reportsMs"),
    },
  };
}
