/**
 * How the contract specs of one certification run under Vitest. `npm run certify` starts one
 * Vitest for its run; the mutation self-test, which certifies dozens of times in a row, keeps one
 * Vitest per process for all its runs (`ReusedSpecRunner`), so that the specs' transforms, worker
 * threads and imported modules are paid for once, not per run.
 */

import { availableParallelism } from "node:os";
import { isAbsolute, resolve } from "node:path";
import type { Reporter, Vitest } from "vitest/node";
import { PROJECT_ROOT } from "../target/index.ts";
import { type RunStop, stoppableVitestRun } from "./deadline.ts";
import { type KeptThreadPool, keptThreadPool } from "./kept-thread-pool.ts";
import { RUN_CONTEXT_KEY, type RunContext } from "./run-context.ts";

export const SPEC_GLOB = "certify/specs/**/*.spec.ts";

export interface SpecRun {
  runContext: RunContext;
  /** Spec files (paths from the project root), or none: every contract spec. */
  specFiles?: readonly string[] | undefined;
  reporters: Reporter[];
  /** Only the tests whose title matches (`--only`). */
  testNamePattern?: RegExp | undefined;
  /** Worker threads the spec files run in (H2H_WORKERS); default: the machine's cores, at least 2. */
  workers?: number | undefined;
  testTimeout: number;
  hookTimeout: number;
  /**
   * issue 12: what ends the run early (the deadline, SIGINT, SIGTERM): the specs stop, Vitest's
   * workers close, and the run writes the reports of what ran.
   */
  runStop?: RunStop | undefined;
}

/** Runs the contract specs of one certification, reporting to `run.reporters`. */
export type SpecRunner = (run: SpecRun) => Promise<void>;

/**
 * The spec files run side by side (they mostly wait on the target and the sink), in worker
 * threads that each import the contract once for all the files they run. No isolation: a spec
 * file keeps its state in what `loadSpecTarget` builds for it, not in shared modules.
 */
const POOL = { pool: "threads", isolate: false, fileParallelism: true } as const;
/** Workers of one run: two at least, so that one file's waiting overlaps another's work. */
const RUN_WORKERS = Math.max(2, availableParallelism());

/**
 * The worker threads of one run: `--only` runs a few tests, whose files load in one worker for
 * less than a second one's start-up (it imports the contract anew) costs; a whole run keeps its
 * files side by side, in H2H_WORKERS threads or one per core.
 */
export function workersOf(run: Pick<SpecRun, "testNamePattern" | "workers">): number {
  return run.testNamePattern ? 1 : (run.workers ?? RUN_WORKERS);
}

export { MAX_WORKERS } from "../target/index.ts";

function baseOptions(run: Pick<SpecRun, "testTimeout" | "hookTimeout">, maxWorkers: number) {
  return {
    config: false as const,
    root: PROJECT_ROOT,
    watch: false,
    ...POOL,
    maxWorkers,
    testTimeout: run.testTimeout,
    hookTimeout: run.hookTimeout,
    // Transformed spec modules are kept on disk between runs, keyed by their content: a run
    // transforms only what changed since the last one (most of a run's start-up otherwise).
    experimental: { fsModuleCache: true, fsModuleCachePath: "node_modules/.cache/h2h-certify/vitest" },
  };
}

/**
 * Vitest's node API, imported when specs are to run: it is most of certify's start-up, and a run
 * refused for its settings, or a target that cannot be reached, never needs it.
 */
const loadVitest = () => import("vitest/node");

/** One Vitest for one run. */
export const runSpecsOnce: SpecRunner = async (run) => {
  const { createVitest, startVitest } = await loadVitest();
  const options = {
    ...baseOptions(run, workersOf(run)),
    include: run.specFiles ? [...run.specFiles] : [SPEC_GLOB],
    reporters: run.reporters,
    provide: { [RUN_CONTEXT_KEY]: run.runContext },
    ...(run.testNamePattern ? { testNamePattern: run.testNamePattern } : {}),
  };
  const vitest = run.runStop
    ? await stoppableVitestRun(run.runStop, createVitest, options)
    : await startVitest("test", [], options);
  await vitest?.close();
};

const REPORTER_HOOKS = [
  "onInit",
  "onTestRemoved",
  "onUserConsoleLog",
  "onProcessTimeout",
  "onTestRunStart",
  "onTestRunEnd",
  "onTestModuleQueued",
  "onTestModuleCollected",
  "onTestModuleStart",
  "onTestModuleEnd",
  "onTestCaseReady",
  "onTestCaseResult",
  "onTestCaseAnnotate",
  "onTestCaseArtifactRecord",
  "onTestSuiteReady",
  "onTestSuiteResult",
  "onHookStart",
  "onHookEnd",
] as const satisfies readonly (keyof Reporter)[];

/** A reporter that hands every event to the reporters of the run under way. */
function forwardingReporter(current: () => readonly Reporter[]): Reporter {
  const reporter: Record<string, (...args: unknown[]) => unknown> = {};
  for (const hook of REPORTER_HOOKS) {
    reporter[hook] = (...args: unknown[]) =>
      Promise.all(
        current().map((target) =>
          (target[hook] as ((...a: unknown[]) => unknown) | undefined)?.apply(target, args),
        ),
      );
  }
  return reporter as Reporter;
}

/**
 * One Vitest kept for many runs, one at a time, each with its own run context, reporters and
 * test name pattern (`--only`). Runs that need other timeouts get a Vitest of their own.
 */
export class ReusedSpecRunner {
  private vitest: Promise<Vitest> | undefined;
  private pool: KeptThreadPool | undefined;
  private timeouts: { testTimeout: number; hookTimeout: number } | undefined;
  private reporters: readonly Reporter[] = [];
  private initialised = new WeakSet<Reporter>();

  readonly run: SpecRunner = async (run) => {
    const sameTimeouts =
      this.timeouts === undefined ||
      (this.timeouts.testTimeout === run.testTimeout && this.timeouts.hookTimeout === run.hookTimeout);
    if (!sameTimeouts) return runSpecsOnce(run);
    this.timeouts = { testTimeout: run.testTimeout, hookTimeout: run.hookTimeout };
    this.vitest ??= this.create(run);
    const vitest = await this.vitest;
    vitest.provide(RUN_CONTEXT_KEY, run.runContext);
    // `--only`: this run's tests alone; the next run sets its own, or none.
    if (run.testNamePattern) vitest.setGlobalTestNamePattern(run.testNamePattern);
    else vitest.resetGlobalTestNamePattern();
    this.reporters = run.reporters;
    for (const reporter of run.reporters) {
      if (this.initialised.has(reporter)) continue;
      this.initialised.add(reporter);
      await reporter.onInit?.(vitest);
    }
    try {
      const files = (run.specFiles ?? []).map((file) =>
        isAbsolute(file) ? file : resolve(PROJECT_ROOT, file),
      );
      const running =
        files.length > 0
          ? vitest.runTestFiles(files)
          : vitest.globTestSpecifications().then((specs) => vitest.runTestSpecifications(specs));
      // issue 12: a stopped run cancels the files under way and keeps what ran.
      const stopped = run.runStop?.stopped.then(() => "stopped" as const);
      if ((await Promise.race([running, ...(stopped ? [stopped] : [])])) === "stopped") {
        running.catch(() => undefined);
        await vitest.cancelCurrentRun("keyboard-input");
        await running.catch(() => undefined);
      }
    } finally {
      this.reporters = [];
    }
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
      include: [SPEC_GLOB],
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
