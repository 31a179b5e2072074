/**
 * How the contract specs of one certification run under Vitest. `npm run certify` starts one
 * Vitest for its run; the mutation self-test, which certifies dozens of times in a row, keeps one
 * Vitest per process for all its runs (`ReusedSpecRunner`), so that the specs' transforms, worker
 * threads and imported modules are paid for once, not per run.
 */

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, Worker } from "node:worker_threads";
import type { Reporter, Vitest } from "vitest/node";
import type { RequirementContext } from "../../contract/index.ts";
import { moduleBeside } from "../../contract/kit/index.ts";
import { CODE_ROOT, PROJECT_ROOT, type RunSecrets, runMasker } from "../../run-setup/index.ts";
import { CheckCollector } from "./check-collector.ts";
import { CLOSE_GRACE_MS, type RunStop } from "./deadline.ts";
import { type KeptThreadPool, keptThreadPool } from "./kept-thread-pool.ts";
import { RECEIVER_CONTEXT_KEY, type ReceiverRunContext } from "./receiver-context.ts";
import { RUN_CONTEXT_KEY, type RunContext } from "./run-context.ts";
import { SpecFileClock } from "./run-timings.ts";
import { RUN_WORKERS, SPEC_GLOB, SPEC_POOL } from "./spec-pool.ts";
import type { SpecRunResult, SpecThreadMessage } from "./spec-thread-reporter.ts";

export { SPEC_GLOB } from "./spec-pool.ts";
export type { SpecRunResult } from "./spec-thread-reporter.ts";

export interface SpecRun {
  /** The contract specs' run context; a receiver battery's run gives `receiverContext` instead. */
  runContext?: RunContext | undefined;
  receiverContext?: ReceiverRunContext | undefined;
  /** Spec files (paths from the project root), or none: every contract spec. */
  specFiles?: readonly string[] | undefined;
  /** How the checks are recorded: the secrets masked, the profile's informational checks. */
  reporting: { secrets: RunSecrets; requirements: RequirementContext };
  /** Where progress lines go: a failed check as it fails, a spec file as it ends. */
  print: (line: string) => void;
  /** Only the tests whose title matches (`--only`). */
  testNamePattern?: RegExp | undefined;
  /** Worker threads the spec files run in (H2H_WORKERS); default: the machine's cores, at least 2. */
  workers?: number | undefined;
  testTimeout: number;
  hookTimeout: number;
  /**
   * What ends the run early (the deadline, SIGINT, SIGTERM): Vitest cancels the run, the specs'
   * requests end, and the run writes the reports of what ran.
   */
  runStop?: RunStop | undefined;
}

/** Why a run was cancelled: Vitest takes any text besides its own two reasons. */
type CancelReason = Parameters<Vitest["cancelCurrentRun"]>[0];

/** Runs the contract specs of one certification, and gives back their records. */
export type SpecRunner = (run: SpecRun) => Promise<SpecRunResult>;

/**
 * The worker threads of one run: `--only` runs a few tests, whose files load in one worker for
 * less than a second one's start-up (it imports the contract anew) costs; a whole run keeps its
 * files side by side, in H2H_WORKERS threads or one per core.
 */
export function workersOf(run: Pick<SpecRun, "testNamePattern" | "workers">): number {
  return run.testNamePattern ? 1 : (run.workers ?? RUN_WORKERS);
}

export { MAX_WORKERS } from "../../run-setup/index.ts";

/**
 * Where Vitest keeps the transformed spec modules: one folder per lock file. Vitest empties its
 * folder when the lock file changes, and a run's threads emptying and filling one folder at once
 * failed every spec of the first run after an install; a new lock file gets a new folder instead.
 * An installed package has no lock file: its package.json (its version) keys the folder, which is
 * in the node_modules it is installed in, not one of its own.
 */
const NODE_MODULES =
  basename(dirname(PROJECT_ROOT)) === "node_modules"
    ? dirname(PROJECT_ROOT)
    : join(PROJECT_ROOT, "node_modules");
const MODULE_CACHE_PARENT = join(NODE_MODULES, ".cache", "h2h-certify", "vitest");
const MODULE_CACHE = (() => {
  let lock = "";
  for (const file of ["package-lock.json", "package.json"]) {
    try {
      lock = readFileSync(join(PROJECT_ROOT, file), "utf8");
      break;
    } catch {
      // Not there: the next one.
    }
  }
  const folder = `lock-${createHash("sha256").update(lock).digest("hex").slice(0, 12)}`;
  // The folders of earlier lock files are never read again; the main thread removes them.
  if (isMainThread) {
    try {
      for (const old of readdirSync(MODULE_CACHE_PARENT))
        if (old !== folder) rmSync(join(MODULE_CACHE_PARENT, old), { recursive: true, force: true });
    } catch {
      // Not made yet.
    }
  }
  return join(MODULE_CACHE_PARENT, folder);
})();

function baseOptions(run: Pick<SpecRun, "testTimeout" | "hookTimeout">, maxWorkers: number) {
  return {
    config: false as const,
    // The spec globs are read from the code's root: the checkout, or the package's dist/.
    root: CODE_ROOT,
    watch: false,
    ...SPEC_POOL,
    maxWorkers,
    testTimeout: run.testTimeout,
    hookTimeout: run.hookTimeout,
    // Transformed spec modules are kept on disk between runs, keyed by their content: a run
    // transforms only what changed since the last one (most of a run's start-up otherwise).
    experimental: { fsModuleCache: true, fsModuleCachePath: MODULE_CACHE },
  };
}

/** What the specs of a run inject: the contract specs' run context, or the receiver battery's. */
function providedOf(run: SpecRun): Record<string, unknown> {
  return {
    ...(run.runContext ? { [RUN_CONTEXT_KEY]: run.runContext } : {}),
    ...(run.receiverContext ? { [RECEIVER_CONTEXT_KEY]: run.receiverContext } : {}),
  };
}

/**
 * Vitest's node API, imported when specs are to run in this process (the reused runner): it is
 * most of a run's start-up, and a run refused for its settings never needs it.
 */
const loadVitest = () => import("vitest/node");

const SPEC_THREAD = fileURLToPath(new URL("./spec-thread.mjs", import.meta.url));
const SPEC_THREAD_REPORTER = moduleBeside("./spec-thread-reporter.ts", import.meta.url);

/**
 * One Vitest for one run, in a thread of its own (spec-thread.mjs): there Vitest's handlers of
 * SIGINT and SIGTERM, which exit, never fire, and this process's stop ends the run through
 * Vitest's cancelCurrentRun, with the records of what ran. Once stopped, the thread has
 * CLOSE_GRACE_MS to wind down; then it is ended, and what it sent is kept.
 */
export const runSpecsOnce: SpecRunner = async (run) => {
  const thread = new Worker(SPEC_THREAD, {
    // Vitest loads the TypeScript it needs itself: no loader of this process's in that thread.
    execArgv: [],
    workerData: {
      options: {
        ...baseOptions(run, workersOf(run)),
        include: run.specFiles ? [...run.specFiles] : [SPEC_GLOB],
        provide: providedOf(run),
        ...(run.testNamePattern ? { testNamePattern: run.testNamePattern } : {}),
        teardownTimeout: CLOSE_GRACE_MS,
      },
      reporterPath: SPEC_THREAD_REPORTER,
      reporting: run.reporting,
    },
  });
  let result: SpecRunResult = { records: [], runErrors: [], specFiles: [] };
  let failure: string | undefined;
  let over = false;
  thread.on("message", (message: SpecThreadMessage | { type: "finished" }) => {
    // Nothing of the thread reaches the run once it has its results back (its reports follow).
    if (over) return;
    if (message.type === "print") run.print(message.line);
    else if (message.type === "snapshot") result = message.result;
    else if (message.type === "error") failure = message.message;
  });
  thread.on("error", (error) => {
    failure ??= String(error.stack ?? error);
  });
  const exited = new Promise<void>((resolve) => thread.once("exit", () => resolve()));
  const stop = () => {
    thread.postMessage({ type: "stop", reason: String(run.runStop?.signal.reason), at: Date.now() });
  };
  const signal = run.runStop?.signal;
  if (signal?.aborted) stop();
  else signal?.addEventListener("abort", stop, { once: true });
  try {
    const graceOver = run.runStop?.stopped.then(
      () => new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref()),
    );
    await Promise.race([exited, ...(graceOver ? [graceOver] : [])]);
  } finally {
    over = true;
    signal?.removeEventListener("abort", stop);
    await thread.terminate();
  }
  // A stopped run's own winding down is no failure of the specs.
  if (failure !== undefined && run.runStop?.reason === undefined)
    throw new Error(`the contract specs could not run: ${failure}`);
  return result;
};

/**
 * A reporter that hands every event (every `on…` hook, whatever Vitest adds) to the reporters of
 * the run under way: Vitest takes its reporters once, when it is created.
 */
function forwardingReporter(current: () => readonly Reporter[]): Reporter {
  return new Proxy({} as Reporter, {
    get(_target, property) {
      if (typeof property !== "string" || !/^on[A-Z]/.test(property)) return undefined;
      return (...args: unknown[]) =>
        Promise.all(
          current().map((target) =>
            (target[property as keyof Reporter] as ((...a: unknown[]) => unknown) | undefined)?.apply(
              target,
              args,
            ),
          ),
        );
    },
  });
}

/**
 * One Vitest kept for many runs, one at a time, each with its own run context, reporters and
 * test name pattern (`--only`). Runs that need other timeouts, or spec files outside its globs
 * (the contract specs by default; the receiver battery's with `[RECEIVER_SPEC_GLOB]`), get a
 * Vitest of their own.
 */
export class ReusedSpecRunner {
  /** The spec files its Vitest finds: the contract specs, or the receiver battery's. */
  private readonly include: readonly string[];
  private vitest: Promise<Vitest> | undefined;
  private pool: KeptThreadPool | undefined;
  private timeouts: { testTimeout: number; hookTimeout: number } | undefined;
  private reporters: readonly Reporter[] = [];

  constructor(include: readonly string[] = [SPEC_GLOB]) {
    this.include = include;
  }

  readonly run: SpecRunner = async (run) => {
    const sameTimeouts =
      this.timeouts === undefined ||
      (this.timeouts.testTimeout === run.testTimeout && this.timeouts.hookTimeout === run.hookTimeout);
    // A glob its Vitest was not made with finds nothing there: such a run gets a Vitest of its own.
    const otherGlob = (run.specFiles ?? []).some(
      (file) => /[*?{[]/.test(file) && !this.include.includes(file),
    );
    if (!sameTimeouts || otherGlob) return runSpecsOnce(run);
    this.timeouts = { testTimeout: run.testTimeout, hookTimeout: run.hookTimeout };
    this.vitest ??= this.create(run);
    const vitest = await this.vitest;
    if (run.runContext) vitest.provide(RUN_CONTEXT_KEY, run.runContext);
    if (run.receiverContext) vitest.provide(RECEIVER_CONTEXT_KEY, run.receiverContext);
    // `--only`: this run's tests alone; the next run sets its own, or none.
    if (run.testNamePattern) vitest.setGlobalTestNamePattern(run.testNamePattern);
    else vitest.resetGlobalTestNamePattern();
    const collector = new CheckCollector(
      runMasker(run.reporting.secrets),
      run.print,
      run.reporting.requirements,
    );
    const clock = new SpecFileClock();
    this.reporters = [collector, clock];
    try {
      // Its own globs: every file they find (the files passed are filters of those).
      const files = (run.specFiles ?? [])
        .filter((file) => !this.include.includes(file))
        .map((file) => (isAbsolute(file) ? file : resolve(CODE_ROOT, file)));
      const running =
        files.length > 0
          ? vitest.runTestFiles(files)
          : vitest.globTestSpecifications().then((specs) => vitest.runTestSpecifications(specs));
      // A stopped run cancels the files under way and keeps what ran.
      const stopped = run.runStop?.stopped.then(() => "stopped" as const);
      if ((await Promise.race([running, ...(stopped ? [stopped] : [])])) === "stopped") {
        running.catch(() => undefined);
        await vitest.cancelCurrentRun((run.runStop?.reason ?? "stopped") as CancelReason);
        await running.catch(() => undefined);
      }
    } finally {
      this.reporters = [];
    }
    return { records: collector.records, runErrors: collector.runErrors, specFiles: clock.files };
  };

  private async create(run: SpecRun): Promise<Vitest> {
    const { createVitest } = await loadVitest();
    this.pool = keptThreadPool();
    const vitest = await createVitest("test", {
      // One worker, which takes all of a run's files: where runs go on one after another on every
      // core (the mutation self-test), a second worker per run costs more CPU than its overlap
      // saves. Its thread is kept from run to run, with the contract loaded (kept-thread-pool.ts).
      ...baseOptions(run, 1),
      pool: this.pool,
      include: [...this.include],
      reporters: [forwardingReporter(() => this.reporters)],
    });
    await vitest.standalone();
    return vitest;
  }

  async close(): Promise<void> {
    const vitest = await this.vitest;
    this.vitest = undefined;
    await vitest?.close();
    await this.pool?.close();
    this.pool = undefined;
  }
}
