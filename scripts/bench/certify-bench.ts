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

/** The checkout's entry: npm, then the TypeScript through tsx. */
export const CHECKOUT_COMMAND = ["npm", "run", "--silent", "certify"] as const;
/**
 * The installed package's code: the JavaScript `npm run build` compiles into dist/, run as the
 * package's bin runs it (no npm, no tsx).
 */
export const COMPILED_COMMAND = ["node", "dist/scripts/h2h-certify.js", "certify"] as const;

export interface CertifyRunTiming {
  exitCode: number | null;
  verdict: string;
  wallMs: number;
  /** CPU time (user + system) of the command and every process it waited for. */
  cpuMs: number;
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

/**
 * Runs the command under bash, whose `times` then prints the CPU its children used (Node.js has no
 * getrusage of children): its second line, "user sys", as `0m1.234s 0m0.567s`.
 */
function run(
  command: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const wrapper = '"$@" >/dev/null; code=$?; times; exit $code';
    const child = spawn("bash", ["-c", wrapper, "bash", ...command], {
      cwd: PROJECT_ROOT,
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, cpuMs: childrenCpuMs(out) }));
  });
}

/** The children's user + system time from bash's `times` (its second line). */
export function childrenCpuMs(times: string): number {
  const line = times.trim().split("\n")[1] ?? "";
  const spans = [...line.matchAll(/(\d+)m([\d.]+)s/g)];
  if (spans.length !== 2)
    throw new Error(`bash's times printed no children's line: ${JSON.stringify(times)}`);
  return Math.round(spans.reduce((sum, [, min, sec]) => sum + (Number(min) * 60 + Number(sec)) * 1000, 0));
}

async function timeOneRun(command: readonly string[]): Promise<CertifyRunTiming> {
  const reportDir = await mkdtemp(join(tmpdir(), "h2h-bench-certify-"));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, H2H_REPORT_DIR: reportDir };
    for (const name of ["H2H_BASE_URL", "H2H_PROFILE", "H2H_API_KEY", "H2H_API_KEY_2", "H2H_WORKERS"])
      delete env[name];
    const launchedAtMs = Date.now();
    const { code: exitCode, cpuMs } = await run(command, env);
    const exitedAtMs = Date.now();
    const report = JSON.parse(await readFile(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
    if (!report.timings) throw new Error("the run's JSON report has no timings");
    const phases = phasesOf(report.timings, exitedAtMs, launchedAtMs);
    const { processStartedAtMs, runStartedAtMs, specsStartedAtMs } = report.timings;
    return {
      exitCode,
      verdict: report.verdict,
      wallMs: phases.wallMs,
      cpuMs,
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

/** The medians of runs. */
function mediansOf(runs: readonly CertifyRunTiming[]): CertifyBenchResult["median"] {
  const of = (key: keyof CertifyBenchResult["median"]) => Math.round(median(runs.map((r) => r[key])));
  return {
    wallMs: of("wallMs"),
    cpuMs: of("cpuMs"),
    launchMs: of("launchMs"),
    importMs: of("importMs"),
    setupMs: of("setupMs"),
    startupMs: of("startupMs"),
    specsMs: of("specsMs"),
    callbacksMs: of("callbacksMs"),
    reportsMs: of("reportsMs"),
  };
}

/** Runs the default certification `runs` times, one after another. */
export async function runCertifyBench(
  options: CertifyBenchOptions,
  onRun?: (timing: CertifyRunTiming, index: number) => void,
): Promise<CertifyBenchResult> {
  const [result] = await compareCertifyEntries(
    { runs: options.runs, entries: [options.command ?? CHECKOUT_COMMAND] },
    (timing, index) => onRun?.(timing, index),
  );
  return result as CertifyBenchResult;
}

/**
 * Times several entries of the same certification (the checkout's and the compiled one) in turns,
 * run 1 of each, then run 2 of each…, so that a change of the machine's load falls on all alike.
 */
export async function compareCertifyEntries(
  options: { runs: number; entries: readonly (readonly string[])[] },
  onRun?: (timing: CertifyRunTiming, index: number, entry: number) => void,
): Promise<CertifyBenchResult[]> {
  const runs: CertifyRunTiming[][] = options.entries.map(() => []);
  for (let i = 0; i < options.runs; i++) {
    for (const [entry, command] of options.entries.entries()) {
      const timing = await timeOneRun(command);
      runs[entry]?.push(timing);
      onRun?.(timing, i, entry);
    }
  }
  return runs.map((of) => ({ runs: of, median: mediansOf(of) }));
}
