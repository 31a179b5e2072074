/**
 * The suite checks itself: `certify` is run against the reference provider switched into each
 * fault of the catalogue (a mutant), and must fail at least the checks the fault names; against
 * the clean provider it must pass, run after run. Certifications run in child processes
 * (scripts/selftest/mutant-child.ts), one per core, each running one certification after another, with the
 * faulty provider beside it and one Vitest, whose worker thread it keeps for all its runs.
 *
 * Targeted (npm test): the clean runs go first, and the first one's records say which spec file
 * holds each check; each mutant then runs only the spec files holding the checks its fault
 * names. Untargeted (npm run mutants): every mutant runs every spec file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { REPORT_FILES, REPORT_KINDS, type ReportKind, type RunReport } from "../../certify/index.ts";
import { CHECK_REGISTRY } from "../../contract/index.ts";
import { FAULTS, type Fault } from "../../fixtures/providers/reference/index.ts";
import { PROJECT_ROOT } from "../../run-setup/index.ts";
import type { MutantJob, MutantReply } from "./mutant-child.ts";
import {
  estimatedCostMs,
  type MutantTarget,
  specFileDurations,
  specFilePaths,
  specFilesByCheck,
  targetOf,
} from "./mutation-targets.ts";

const SPEC_DIR = "certify/specs";

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
  /** Checks the fault names that the run did not run at all (a hole in check coverage). */
  notRunChecks: string[];
  /**
   * For a fault only one probe is to see (`Fault.probe`): the fault's checks that failed in another
   * spec file too, so that the suite without that probe would not have passed it.
   */
  caughtOutsideProbe: string[];
  /** The spec files this run ran (basenames), or every one and why. */
  target: MutantTarget;
  exitCode: number | null;
  durationMs: number;
  /** CPU time the certifying process spent on the run (ms; all its threads). */
  cpuMs?: number;
  /** Why the run could not be judged, when it could not. */
  error?: string;
  reportDir: string;
}

export interface MutationOptions {
  faults?: readonly string[];
  cleanRuns?: number;
  concurrency?: number;
  /**
   * Each mutant runs only the spec files that hold the checks its fault names, as the first clean
   * run's records show them (default: false, every spec file).
   */
  targeted?: boolean;
  /** Where each run's reports go (one folder per run). */
  reportDir: string;
  /**
   * Which reports each run writes besides the JSON the outcome is read from (default: all of
   * them, to look into a run; the self-test in npm test writes the JSON alone).
   */
  reports?: readonly ReportKind[];
  /** Called as each run ends; `done` of `total` runs have ended. */
  onResult?: (result: MutantResult, progress: { done: number; total: number }) => void;
}

/**
 * One child process (scripts/selftest/mutant-child.ts) that runs certifications one after another; it is
 * started on first use and again after it died, and ended by `close()`.
 */
class CertifyChild {
  private child: ChildProcess | undefined;
  private output = "";
  private pending: ((reply: MutantReply) => void) | undefined;

  private start(): ChildProcess {
    const child = spawn(
      process.execPath,
      [
        // Before tsx's hooks: the plain JavaScript packages, loaded without them (see the file).
        "--import",
        new URL("./mutant-preload.mjs", import.meta.url).href,
        "--import",
        new URL("../tsx.mjs", import.meta.url).href,
        join(PROJECT_ROOT, "scripts/selftest/mutant-child.ts"),
      ],
      {
        cwd: PROJECT_ROOT,
        env: process.env,
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      },
    );
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    child.on("message", (reply: MutantReply) => {
      const resolve = this.pending;
      this.pending = undefined;
      resolve?.(reply);
    });
    child.once("exit", (code, signal) => {
      if (this.child === child) this.child = undefined;
      const resolve = this.pending;
      this.pending = undefined;
      resolve?.({ error: `the certify process ended (${signal ?? `exit code ${code}`})`, cpuMs: 0 });
    });
    return child;
  }

  /** Runs one certification; what the process printed meanwhile comes with the reply. */
  run(job: MutantJob): Promise<{ reply: MutantReply; output: string }> {
    this.child ??= this.start();
    const child = this.child;
    this.output = "";
    return new Promise((resolve) => {
      this.pending = (reply) => resolve({ reply, output: this.output });
      child.send(job);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.disconnect();
    await exited;
  }
}

interface Job {
  subject: string;
  fault: Fault | undefined;
  target: MutantTarget;
}

const EVERY_FILE: MutantTarget = { kind: "all", reason: "untargeted" };

async function runOne(
  child: CertifyChild,
  job: Job,
  reportDir: string,
  specPaths: ReadonlyMap<string, string>,
  reports: readonly ReportKind[],
): Promise<{
  result: MutantResult;
  report: RunReport | undefined;
}> {
  const { subject, fault, target } = job;
  const started = Date.now();
  const base = {
    subject,
    fault,
    target,
    reportDir,
    failedChecks: [] as string[],
    missedChecks: [] as string[],
    notRunChecks: [] as string[],
    caughtOutsideProbe: [] as string[],
    cpuMs: undefined as number | undefined,
  };
  const specFiles =
    target.kind === "files" ? target.files.map((file) => specPaths.get(file) ?? join(SPEC_DIR, file)) : [];
  // Targeted, a fault runs only the tests of the checks it names (`--only`): in those files, the
  // rest cannot fail them. Not a fault one probe alone must kill: whether another file's tests fail
  // its checks too is what that fault's run has to show.
  // A fault shown in given files runs all their tests: they make the requests its run-wide checks judge.
  const only =
    target.kind === "files" && fault && !fault.probe && !fault.shownIn ? [...fault.detectedBy] : [];
  await mkdir(reportDir, { recursive: true });
  // The provider's own timings are the reference profile's: the run judges it by that profile.
  const { reply, output } = await child.run({
    faults: fault ? [fault.name] : [],
    reportDir,
    specFiles,
    reports,
    only,
  });
  const exitCode = "exitCode" in reply ? reply.exitCode : null;
  base.cpuMs = reply.cpuMs;
  let report: RunReport;
  try {
    report = JSON.parse(await readFile(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
  } catch {
    return {
      report: undefined,
      result: {
        ...base,
        outcome: "error",
        exitCode,
        durationMs: Date.now() - started,
        error: `no JSON report; ${"error" in reply ? reply.error.slice(0, 500) : `output: ${output.slice(-500)}`}`,
      },
    };
  }
  const failedChecks = [
    ...new Set(report.checks.filter((c) => c.status === "failed" && c.required).map((c) => c.check)),
  ].sort();
  const ran = new Set(report.checks.map((c) => c.check));
  const durationMs = Date.now() - started;
  if (report.errors.length > 0) {
    return {
      report,
      result: {
        ...base,
        failedChecks,
        outcome: "error",
        exitCode,
        durationMs,
        error: report.errors.join("; "),
      },
    };
  }
  if (!fault) {
    const clean = exitCode === 0 && report.verdict === "conformant";
    return {
      report,
      result: {
        ...base,
        failedChecks,
        outcome: clean ? "clean-pass" : "false-positive",
        exitCode,
        durationMs,
      },
    };
  }
  // A warning never fails a verdict, but it catches a fault when it fails (callbacks.exactly-once).
  const failedWarnings = report.checks
    .filter((c) => c.status === "failed" && !c.required && CHECK_REGISTRY.get(c.check)?.warning === true)
    .map((c) => c.check);
  const caught = new Set([...failedChecks, ...failedWarnings]);
  const missedChecks = fault.detectedBy.filter((name) => !caught.has(name));
  const notRunChecks = fault.detectedBy.filter((name) => !ran.has(name));
  const caughtOutsideProbe = fault.probe
    ? [
        ...new Set(
          report.checks
            .filter(
              (c) => c.status === "failed" && fault.detectedBy.includes(c.check) && c.source !== fault.probe,
            )
            .map((c) => `${c.check} (${c.source})`),
        ),
      ].sort()
    : [];
  const killed = missedChecks.length === 0 && caughtOutsideProbe.length === 0 && exitCode === 1;
  return {
    report,
    result: {
      ...base,
      failedChecks,
      missedChecks,
      notRunChecks,
      caughtOutsideProbe,
      outcome: killed ? "killed" : "survived",
      exitCode,
      durationMs,
    },
  };
}

/**
 * Runs the clean provider `cleanRuns` times and every fault once, `concurrency` at a time. The
 * clean runs start first; targeted mutants wait for the first clean run's records (the longest
 * mutants, by the spec files they run, go first, so the last ones to end are short).
 */
export async function runMutationSuite(options: MutationOptions): Promise<MutantResult[]> {
  const names = options.faults ?? [...FAULTS.keys()];
  const unknown = names.filter((name) => !FAULTS.has(name));
  if (unknown.length > 0) throw new Error(`unknown fault(s): ${unknown.join(", ")}`);
  const targeted = options.targeted ?? false;
  const specPaths = specFilePaths(PROJECT_ROOT, SPEC_DIR);
  const cleanRuns = options.cleanRuns ?? 3;
  if (targeted && cleanRuns < 1)
    throw new Error("a targeted run needs a clean run to learn the spec files from");
  const clean: Job[] = Array.from({ length: cleanRuns }, (_, i) => ({
    subject: `(clean) #${i + 1}`,
    fault: undefined,
    target: EVERY_FILE,
  }));
  const faults = names.map((name) => FAULTS.get(name) as Fault);
  const total = clean.length + faults.length;

  // Targeted mutants need the map the first clean run gives; until then they wait for it.
  let learnt: (report: RunReport | undefined) => void = () => {};
  const firstCleanReport = new Promise<RunReport | undefined>((resolve) => {
    learnt = resolve;
  });
  let mutantJobs: Promise<Job[]> = Promise.resolve(
    faults.map((fault) => ({ subject: fault.name, fault, target: EVERY_FILE })),
  );
  if (targeted) {
    mutantJobs = firstCleanReport.then((report) => {
      const byCheck = report ? specFilesByCheck(report.checks) : undefined;
      const durations = specFileDurations(report?.timings);
      return faults
        .map((fault) => ({
          subject: fault.name,
          fault,
          target: byCheck
            ? targetOf(fault.detectedBy, byCheck, fault.shownIn)
            : ({ kind: "all", reason: "the first clean run left no records" } as MutantTarget),
        }))
        .sort((a, b) => estimatedCostMs(b.target, durations) - estimatedCostMs(a.target, durations));
    });
  } else learnt(undefined);

  const concurrency = Math.max(1, options.concurrency ?? availableParallelism());
  const results: MutantResult[] = [];
  let nextClean = 0;
  let nextMutant = 0;
  const takeJob = async (): Promise<Job | undefined> => {
    if (nextClean < clean.length) return clean[nextClean++];
    const jobs = await mutantJobs;
    return jobs[nextMutant++];
  };
  const worker = async () => {
    const child = new CertifyChild();
    try {
      await runJobs(child);
    } finally {
      await child.close();
    }
  };
  const runJobs = async (child: CertifyChild) => {
    for (let job = await takeJob(); job !== undefined; job = await takeJob()) {
      const folder = job.subject.replace(/[^a-z0-9-]+/gi, "-").replace(/^-|-$/g, "");
      let ran: Awaited<ReturnType<typeof runOne>>;
      try {
        ran = await runOne(
          child,
          job,
          join(options.reportDir, folder),
          specPaths,
          options.reports ?? REPORT_KINDS,
        );
      } catch (error) {
        if (job === clean[0]) learnt(undefined);
        throw error;
      }
      if (job === clean[0]) learnt(ran.report);
      results.push(ran.result);
      options.onResult?.(ran.result, { done: results.length, total });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  // In the order the runs were planned: clean runs, then the faults as the catalogue lists them.
  const order = new Map([...clean.map((j) => j.subject), ...names].map((subject, i) => [subject, i]));
  return results.sort((a, b) => (order.get(a.subject) ?? 0) - (order.get(b.subject) ?? 0));
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

/** The spec files a run ran, short: "callbacks" or "every file". */
export function describeTarget(target: MutantTarget): string {
  return target.kind === "all"
    ? "every file"
    : target.files.map((f) => f.replace(/\.spec\.ts$/, "")).join(", ");
}

/** One progress line: `fault 12/44 no-expired-callback: killed (6.1 s, CPU 0.9 s, callbacks)`. */
export function progressLine(result: MutantResult, progress: { done: number; total: number }): string {
  const cpu = result.cpuMs === undefined ? "" : `, CPU ${(result.cpuMs / 1000).toFixed(1)} s`;
  return `fault ${progress.done}/${progress.total} ${result.subject}: ${result.outcome} (${(result.durationMs / 1000).toFixed(1)} s${cpu}, ${describeTarget(result.target)})`;
}

/** The table `npm run mutants` prints and writes: fault, outcome, the checks that failed. */
export function renderMutationTable(results: readonly MutantResult[]): string {
  const width = Math.max(12, ...results.map((r) => r.subject.length));
  const filesWidth = Math.max(10, ...results.map((r) => describeTarget(r.target).length));
  const lines = [
    `${"fault".padEnd(width)}  ${"category".padEnd(10)}  ${"outcome".padEnd(14)}  ${"spec files".padEnd(filesWidth)}  failed checks`,
  ];
  for (const r of results) {
    const detail =
      r.outcome === "error"
        ? `ERROR: ${r.error ?? ""}`
        : r.outcome === "survived"
          ? `missed: ${r.missedChecks.join(", ") || "none"}${r.notRunChecks.length > 0 ? ` (not run: ${r.notRunChecks.join(", ")})` : ""}${r.caughtOutsideProbe.length > 0 ? `; caught outside its probe ${r.fault?.probe}: ${r.caughtOutsideProbe.join(", ")}` : ""}; failed: ${r.failedChecks.join(", ") || "none"}`
          : r.failedChecks.join(", ") || "-";
    lines.push(
      `${r.subject.padEnd(width)}  ${(r.fault?.category ?? "-").padEnd(10)}  ${r.outcome.padEnd(14)}  ${describeTarget(r.target).padEnd(filesWidth)}  ${detail}`,
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
