/**
 * The suite checks itself: `certify` is run against the reference provider switched into each
 * fault of the catalogue (a mutant), and must fail at least the checks the fault names; against
 * the clean provider it must pass, run after run. Each certification is a child process (each
 * needs a Vitest of its own); the providers run here, a few at a time, bounded by the cores.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { CHECK_REGISTRY } from "../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import { FAULTS, type Fault, startReferenceProvider } from "../fixtures/reference-provider/index.ts";
import { REPORT_FILES } from "./reports/index.ts";
import type { RunReport } from "./run-model.ts";
import { PROJECT_ROOT } from "./settings.ts";

/** Provider timings that keep a run short; the profile below declares the same retry policy. */
const FAST_RETRY_DELAYS_MS = [100, 200, 300, 400];
const FAST_PROCESSING_DELAY_MS = 50;

export interface MutantResult {
  /** The fault's name, or "(clean) #n" for a run against the clean provider. */
  subject: string;
  fault: Fault | undefined;
  /** Killed: every check the fault names failed. For a clean run: the verdict was conformant. */
  outcome: "killed" | "survived" | "clean-pass" | "false-positive" | "error";
  /** Required checks that failed (distinct names). */
  failedChecks: string[];
  /** Checks the fault names that did not fail. */
  missedChecks: string[];
  /**
   * For a fault only one probe is to see (`Fault.probe`): the fault's checks that failed in another
   * spec file too, so that the suite without that probe would not have passed it.
   */
  caughtOutsideProbe: string[];
  exitCode: number | null;
  durationMs: number;
  /** Why the run could not be judged, when it could not. */
  error?: string;
  reportDir: string;
}

export interface MutationOptions {
  faults?: readonly string[];
  cleanRuns?: number;
  concurrency?: number;
  /** Where each run's reports go (one folder per run). */
  reportDir: string;
  onResult?: (result: MutantResult) => void;
}

/** The reference profile with the fast retry policy the mutation providers use. */
async function writeMutationProfile(dir: string): Promise<string> {
  const profile = JSON.parse(await readFile(REFERENCE_PROFILE_PATH, "utf8")) as {
    callbacks: { retryPolicy: { attempts: number; delaysMs: number[]; toleranceMs: number } };
  };
  profile.callbacks.retryPolicy = {
    attempts: FAST_RETRY_DELAYS_MS.length + 1,
    delaysMs: FAST_RETRY_DELAYS_MS,
    toleranceMs: 250,
  };
  const path = join(dir, "mutation-profile.json");
  await writeFile(path, JSON.stringify(profile, null, 2));
  return path;
}

function runCertifyChild(env: Record<string, string>): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(PROJECT_ROOT, "scripts/certify.ts")], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (exitCode) => resolve({ exitCode, output }));
  });
}

async function runOne(
  subject: string,
  fault: Fault | undefined,
  profilePath: string,
  reportDir: string,
): Promise<MutantResult> {
  const started = Date.now();
  const provider = await startReferenceProvider({
    port: 0,
    faults: fault ? [fault.name] : [],
    processingDelayMs: FAST_PROCESSING_DELAY_MS,
    callbackRetryDelaysMs: FAST_RETRY_DELAYS_MS,
  });
  const base = {
    subject,
    fault,
    reportDir,
    failedChecks: [] as string[],
    missedChecks: [] as string[],
    caughtOutsideProbe: [] as string[],
  };
  try {
    await mkdir(reportDir, { recursive: true });
    const { exitCode, output } = await runCertifyChild({
      H2H_BASE_URL: provider.url,
      H2H_PROFILE: profilePath,
      H2H_REPORT_DIR: reportDir,
    });
    let report: RunReport;
    try {
      report = JSON.parse(await readFile(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
    } catch {
      return {
        ...base,
        outcome: "error",
        exitCode,
        durationMs: Date.now() - started,
        error: `no JSON report; output: ${output.slice(-500)}`,
      };
    }
    const failedChecks = [
      ...new Set(report.checks.filter((c) => c.status === "failed" && c.required).map((c) => c.check)),
    ].sort();
    if (report.errors.length > 0) {
      return {
        ...base,
        failedChecks,
        outcome: "error",
        exitCode,
        durationMs: Date.now() - started,
        error: report.errors.join("; "),
      };
    }
    if (!fault) {
      const clean = exitCode === 0 && report.verdict === "conformant";
      return {
        ...base,
        failedChecks,
        outcome: clean ? "clean-pass" : "false-positive",
        exitCode,
        durationMs: Date.now() - started,
      };
    }
    // A warning never fails a verdict, but it catches a fault when it fails (callbacks.exactly-once).
    const failedWarnings = report.checks
      .filter((c) => c.status === "failed" && !c.required && CHECK_REGISTRY.get(c.check)?.warning === true)
      .map((c) => c.check);
    const caught = new Set([...failedChecks, ...failedWarnings]);
    const missedChecks = fault.detectedBy.filter((name) => !caught.has(name));
    const caughtOutsideProbe = fault.probe
      ? [
          ...new Set(
            report.checks
              .filter(
                (c) =>
                  c.status === "failed" && fault.detectedBy.includes(c.check) && c.source !== fault.probe,
              )
              .map((c) => `${c.check} (${c.source})`),
          ),
        ].sort()
      : [];
    const killed = missedChecks.length === 0 && caughtOutsideProbe.length === 0 && exitCode === 1;
    return {
      ...base,
      failedChecks,
      missedChecks,
      caughtOutsideProbe,
      outcome: killed ? "killed" : "survived",
      exitCode,
      durationMs: Date.now() - started,
    };
  } finally {
    await provider.stop();
  }
}

/** Runs the clean provider `cleanRuns` times and every fault once, `concurrency` at a time. */
export async function runMutationSuite(options: MutationOptions): Promise<MutantResult[]> {
  const names = options.faults ?? [...FAULTS.keys()];
  const unknown = names.filter((name) => !FAULTS.has(name));
  if (unknown.length > 0) throw new Error(`unknown fault(s): ${unknown.join(", ")}`);
  const workDir = await mkdtemp(join(tmpdir(), "h2h-mutation-"));
  const profilePath = await writeMutationProfile(workDir);
  const jobs: { subject: string; fault: Fault | undefined }[] = [
    ...Array.from({ length: options.cleanRuns ?? 3 }, (_, i) => ({
      subject: `(clean) #${i + 1}`,
      fault: undefined,
    })),
    ...names.map((name) => ({ subject: name, fault: FAULTS.get(name) })),
  ];
  const concurrency = Math.max(1, options.concurrency ?? availableParallelism());
  const results: MutantResult[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      const job = jobs[index] as (typeof jobs)[number];
      const folder = job.subject.replace(/[^a-z0-9-]+/gi, "-").replace(/^-|-$/g, "");
      const result = await runOne(job.subject, job.fault, profilePath, join(options.reportDir, folder));
      results[index] = result;
      options.onResult?.(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return results;
}

export function killRate(results: readonly MutantResult[]): {
  killed: number;
  total: number;
  percent: number;
} {
  const mutants = results.filter((r) => r.fault !== undefined);
  const killed = mutants.filter((r) => r.outcome === "killed").length;
  return {
    killed,
    total: mutants.length,
    percent: mutants.length === 0 ? 0 : Math.round((killed / mutants.length) * 1000) / 10,
  };
}

/** The table `npm run mutants` prints and writes: fault, outcome, the checks that failed. */
export function renderMutationTable(results: readonly MutantResult[]): string {
  const width = Math.max(12, ...results.map((r) => r.subject.length));
  const lines = [
    `${"fault".padEnd(width)}  ${"category".padEnd(10)}  ${"outcome".padEnd(14)}  failed checks`,
  ];
  for (const r of results) {
    const detail =
      r.outcome === "error"
        ? `ERROR: ${r.error ?? ""}`
        : r.outcome === "survived"
          ? `missed: ${r.missedChecks.join(", ") || "none"}${r.caughtOutsideProbe.length > 0 ? `; caught outside its probe ${r.fault?.probe}: ${r.caughtOutsideProbe.join(", ")}` : ""}; failed: ${r.failedChecks.join(", ") || "none"}`
          : r.failedChecks.join(", ") || "-";
    lines.push(
      `${r.subject.padEnd(width)}  ${(r.fault?.category ?? "-").padEnd(10)}  ${r.outcome.padEnd(14)}  ${detail}`,
    );
  }
  const rate = killRate(results);
  const falsePositives = results.filter((r) => r.fault === undefined && r.outcome !== "clean-pass").length;
  lines.push("");
  lines.push(`kill rate: ${rate.killed}/${rate.total} = ${rate.percent}%`);
  lines.push(
    `clean runs: ${results.filter((r) => r.fault === undefined).length}, false positives: ${falsePositives}`,
  );
  return lines.join("\n");
}
