/**
 * Runs a certification's spec files in certify's own process: it collects each file's describes,
 * tests and hooks (spec-api.ts hands them here while the file is imported), then runs them as
 * Vitest runs them: hooks around tests, test and hook timeouts, skips with their note, a setup
 * that failed leaving its tests unrun, a test name pattern (`--only`). A Vitest of its own (its
 * server, module transforms and worker threads) was most of a default certification's time.
 * The spec files stay Vitest files: the `contract` project (`h2h-certify/vitest`) runs the same
 * ones under Vitest.
 *
 * Spec files run side by side in lanes (they mostly wait on the target and the sink), each file's
 * tests one after another. A spec file is imported afresh for each run (its top level builds the
 * run's target); what it imports is loaded once per process. A run's state is its own: what a
 * file takes of its run (spec-context.ts), it takes at its top level, while it is imported.
 */
import { statSync } from "node:fs";
import { relative } from "node:path";
import { pathToFileURL } from "node:url";
import { CLOSE_GRACE_MS } from "./deadline.ts";
import { hostingRun, importForRun, type SpecCollector, type SpecHostRun } from "./spec-context.ts";
import {
  allTestsOf,
  fullNameOf,
  type SpecError,
  type SpecFile,
  type SpecListener,
  type SpecSuite,
  type SpecTest,
  type SpecTestContext,
} from "./spec-tasks.ts";

export interface HostedSpecRun {
  /** Absolute paths of the spec files. */
  files: readonly string[];
  /** The spec files' root: their names (in a test's full name) are relative to it. */
  root: string;
  /** What the specs read with `provided` (spec-context.ts). */
  provided: Record<string, unknown>;
  /** Where the specs' lines for the person running them go. */
  say(line: string): void;
  /** Hears each test as it ends, each file as it ends. */
  listener: SpecListener;
  /** Spec files under way at once. */
  lanes: number;
  testTimeout: number;
  hookTimeout: number;
  /** Only the tests whose full name (file, describes, test) matches run; the rest are skipped. */
  testNamePattern?: RegExp | undefined;
  /** Ends the run early: tests under way are cancelled, no file starts; what ran is kept. */
  stop?: AbortSignal | undefined;
}

/** The note of a test a stopped run never ran, and the name of what cancels one under way, as Vitest's. */
const ABORTED = "The test run was aborted by the user.";
class TestRunAbortError extends Error {
  override name = "TestRunAbortError";
}

/** Thrown by `ctx.skip(note)`: the test ends as skipped. */
class SkipSignal extends Error {
  constructor(readonly note: string | undefined) {
    super("test is skipped");
  }
}

/** An error as a record keeps it: name, message, stack and its own plain properties. */
function recordedError(error: unknown): SpecError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const recorded: SpecError = { name: error.name, message: error.message };
  if (error.stack) recorded.stack = error.stack;
  for (const [key, value] of Object.entries(error))
    if (["string", "number", "boolean"].includes(typeof value)) recorded[key] = value;
  return recorded;
}

/** Runs `fn` for at most `timeoutMs`, and no longer than `signal` allows. */
async function bounded<T>(
  fn: () => T | Promise<T>,
  timeoutMs: number,
  timedOut: () => Error,
  signal?: AbortSignal,
  onTimeout?: (error: Error) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<T>((resolve, reject) => {
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          const error = timedOut();
          onTimeout?.(error);
          reject(error);
        }, timeoutMs);
      }
      if (signal) {
        onAbort = () => reject(signal.reason);
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
      }
      Promise.resolve().then(fn).then(resolve, reject);
    });
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

const hookTimedOut = (ms: number) => () =>
  new Error(
    `Hook timed out in ${ms}ms.\nIf this is a long-running hook, pass a timeout value as the last argument.`,
  );
const testTimedOut = (ms: number) => () =>
  new Error(
    `Test timed out in ${ms}ms.\nIf this is a long-running test, pass a timeout value as the last argument.`,
  );

function newSuite(name: string, parent: SpecSuite | undefined, file: SpecFile | undefined): SpecSuite {
  const suite = {
    type: "suite",
    name,
    mode: "run",
    suite: parent,
    tasks: [],
    hooks: { beforeAll: [], afterAll: [], beforeEach: [] },
  } as unknown as SpecSuite;
  suite.file = file ?? (suite as SpecFile);
  return suite;
}

/** Collects one file's describes, tests and hooks while it is imported. */
function fileCollector(file: SpecFile): SpecCollector & { done(): void } {
  let current: SpecSuite = file;
  let tests = 0;
  let over = false;
  const open = (what: string) => {
    if (over)
      throw new Error(
        `${what} was called inside a test or hook: describes, tests and hooks are declared at a file's top level or inside a describe`,
      );
  };
  return {
    describe(name, factory) {
      open("describe");
      const suite = newSuite(name, current, file);
      current.tasks.push(suite);
      const parent = current;
      current = suite;
      try {
        factory();
      } finally {
        current = parent;
      }
    },
    it(name, fn, timeout) {
      open("it");
      current.tasks.push({
        type: "test",
        id: `${file.name}#${tests++}`,
        name,
        mode: "run",
        suite: current,
        file,
        fn,
        timeout,
        meta: {},
      });
    },
    beforeAll(fn, timeout) {
      open("beforeAll");
      current.hooks.beforeAll.push({ fn, timeout });
    },
    afterAll(fn, timeout) {
      open("afterAll");
      current.hooks.afterAll.push({ fn, timeout });
    },
    beforeEach(fn, timeout) {
      open("beforeEach");
      current.hooks.beforeEach.push({ fn, timeout });
    },
    done() {
      over = true;
    },
  };
}

/** Skips the tests the pattern leaves out, and a describe all of whose tests are skipped (its hooks never run). */
function applyNamePattern(suite: SpecSuite, pattern: RegExp | undefined): void {
  for (const task of suite.tasks) {
    if (task.type === "suite") applyNamePattern(task, pattern);
    else if (pattern && !pattern.test(fullNameOf(task))) task.mode = "skip";
  }
  if (suite.tasks.length > 0 && suite.tasks.every((task) => task.mode === "skip")) suite.mode = "skip";
}

/** Marks the tests of a describe that have not started: skipped, with a note when there is one. */
function skipAll(suite: SpecSuite, note?: string): void {
  for (const test of allTestsOf(suite)) {
    // One under way ends as it ends (a stop cancels it through its signal).
    if (test.result) continue;
    test.mode = "skip";
    test.result = { state: "skip", ...(note ? { note } : {}) };
  }
}

/** Work handed to it runs one piece at a time, in the order handed, whether the one before failed or not. */
function inTurns(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const next = last.then(work);
    last = next.catch(() => undefined);
    return next;
  };
}

/**
 * One spec file is imported at a time in the process: what it declares goes to the run that
 * imports it (spec-context.ts). Files loading side by side share the modules they import, and
 * one's evaluation may resume from another's import: it would be collected into that one.
 */
const oneImportAtATime = inTurns();

/** The lanes of one run: its files, what runs now, how it is stopped. */
class HostedRun {
  private readonly running = new Map<SpecTest, AbortController>();
  private readonly files: SpecFile[] = [];
  private readonly query: string;

  constructor(
    private readonly run: HostedSpecRun,
    runNumber: number,
  ) {
    this.query = `h2h-run=${runNumber}`;
  }

  get stopped(): boolean {
    return this.run.stop?.aborted === true;
  }

  /** Cancels the tests under way (their signals abort with a TestRunAbortError) and the rest of their files. */
  cancel(): void {
    const error = new TestRunAbortError(ABORTED);
    for (const controller of this.running.values()) controller.abort(error);
    for (const file of this.files) skipAll(file, ABORTED);
  }

  async runFile(filepath: string, hosted: SpecHostRun): Promise<void> {
    const file = newSuite(relative(this.run.root, filepath), undefined, undefined) as SpecFile;
    file.filepath = filepath;
    this.files.push(file);
    const collector = fileCollector(file);
    await oneImportAtATime(async () => {
      const startedAt = performance.now();
      try {
        await importForRun(hosted, collector, () => import(`${pathToFileURL(filepath).href}?${this.query}`));
      } catch (error) {
        file.result = { state: "fail", errors: [recordedError(error)] };
      } finally {
        collector.done();
        file.collectDuration = performance.now() - startedAt;
      }
    });
    if (!file.result) {
      applyNamePattern(file, this.run.testNamePattern);
      // A stop during the import: nothing of the file runs.
      if (this.stopped) skipAll(file, ABORTED);
      else await this.runSuite(file, []);
    }
    // The tests that ran were heard as each ended; the skipped ones are heard now.
    for (const test of allTestsOf(file)) if (test.mode === "skip") this.heard(test);
    this.run.listener.onFileEnd?.(file);
  }

  /** A hook, within its own timeout or the run's; a test's beforeEach also ends with the test. */
  private runHook<Argument>(
    hook: { fn: (argument: Argument) => unknown; timeout: number | undefined },
    argument: Argument,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const timeoutMs = hook.timeout ?? this.run.hookTimeout;
    return bounded(() => hook.fn(argument), timeoutMs, hookTimedOut(timeoutMs), signal);
  }

  private heard(test: SpecTest): void {
    this.run.listener.onTest?.(test);
  }

  /** A describe's run: its beforeAll hooks, its tasks in order, its afterAll hooks. */
  private async runSuite(suite: SpecSuite, beforeEach: SpecSuite["hooks"]["beforeEach"]): Promise<void> {
    const start = performance.now();
    suite.result = { state: "run", startTime: Date.now() };
    if (suite.mode === "skip") {
      skipAll(suite);
      suite.result = { state: "skip", startTime: suite.result.startTime, duration: 0 };
      return;
    }
    const errors: SpecError[] = [];
    let setUp = true;
    for (const hook of suite.hooks.beforeAll) {
      try {
        await this.runHook(hook, suite);
      } catch (error) {
        errors.push(recordedError(error));
        setUp = false;
        break;
      }
    }
    if (setUp) {
      const hooks = [...beforeEach, ...suite.hooks.beforeEach];
      for (const task of suite.tasks) {
        if (this.stopped) break;
        if (task.type === "suite") await this.runSuite(task, hooks);
        else await this.runTest(task, hooks);
      }
    }
    // Skipped as Vitest skips them: the tests of a setup that failed, or of a stopped run.
    skipAll(suite, this.stopped ? ABORTED : undefined);
    for (const hook of [...suite.hooks.afterAll].reverse()) {
      try {
        await this.runHook(hook, suite);
      } catch (error) {
        errors.push(recordedError(error));
      }
    }
    suite.result = {
      state: errors.length > 0 ? "fail" : "pass",
      ...(errors.length > 0 ? { errors } : {}),
      startTime: suite.result.startTime,
      duration: performance.now() - start,
    };
  }

  private async runTest(test: SpecTest, beforeEach: SpecSuite["hooks"]["beforeEach"]): Promise<void> {
    if (test.mode === "skip") return;
    const controller = new AbortController();
    this.running.set(test, controller);
    const start = performance.now();
    test.result = { state: "run", startTime: Date.now() };
    const context: SpecTestContext = {
      task: test,
      signal: controller.signal,
      skip(note?: string): never {
        throw new SkipSignal(note);
      },
    };
    const timeout = test.timeout ?? this.run.testTimeout;
    try {
      for (const hook of beforeEach) await this.runHook(hook, context, controller.signal);
      await bounded(
        () => test.fn(context),
        timeout,
        testTimedOut(timeout),
        controller.signal,
        (error) => controller.abort(error),
      );
      test.result = { state: "pass", startTime: test.result.startTime };
    } catch (error) {
      test.result =
        error instanceof SkipSignal
          ? { state: "skip", ...(error.note ? { note: error.note } : {}), startTime: test.result.startTime }
          : { state: "fail", errors: [recordedError(error)], startTime: test.result.startTime };
    } finally {
      this.running.delete(test);
    }
    test.result.duration = performance.now() - start;
    this.heard(test);
  }
}

/**
 * Certifications in one process take turns: their specs would share its event loop, and a timing
 * check of one (a confirmation sent late in an order's lifetime, a callback's lateness) would wait
 * on another's work. The process of `h2h-certify` runs one; a program or test that starts several
 * gets them one after another. Taken before a run starts its deadline, so waiting costs it nothing.
 */
export const oneCertificationAtATime = inTurns();

/** A new query for each run's imports: its spec files' modules are evaluated afresh. */
let runs = 0;

/** Runs under way in this process: an error no test caught is theirs to report. */
const active = new Set<HostedSpecRun>();
function onStrayError(error: unknown): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  for (const run of active)
    run.listener.onRunError?.(`an error no test caught while the specs ran: ${message}`);
}

/** Larger files first, as Vitest orders them with no history: the long ones start early. */
function bySizeDescending(files: readonly string[]): string[] {
  const size = (file: string) => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  return [...files].sort((a, b) => size(b) - size(a));
}

/** Runs the spec files; resolves once all ended, or CLOSE_GRACE_MS after a stop. */
export async function hostSpecs(run: HostedSpecRun): Promise<void> {
  const hostedRun = new HostedRun(run, ++runs);
  const queue = bySizeDescending(run.files);
  const hosted: SpecHostRun = { provided: structuredClone(run.provided), say: run.say };
  const lane = async (): Promise<void> => {
    for (let file = queue.shift(); file !== undefined && !hostedRun.stopped; file = queue.shift())
      await hostedRun.runFile(file, hosted);
  };
  const cancel = () => hostedRun.cancel();
  run.stop?.addEventListener("abort", cancel, { once: true });
  if (active.size === 0) {
    process.on("unhandledRejection", onStrayError);
    process.on("uncaughtException", onStrayError);
  }
  active.add(run);
  const hostingEnded = hostingRun();
  try {
    const lanes = Promise.all(Array.from({ length: Math.max(1, run.lanes) }, lane));
    const graceOver = new Promise<void>((resolve) => {
      const wait = () => setTimeout(resolve, CLOSE_GRACE_MS).unref();
      if (hostedRun.stopped) wait();
      else run.stop?.addEventListener("abort", wait, { once: true });
    });
    await Promise.race([lanes, graceOver]);
  } finally {
    hostingEnded();
    run.stop?.removeEventListener("abort", cancel);
    active.delete(run);
    if (active.size === 0) {
      process.off("unhandledRejection", onStrayError);
      process.off("uncaughtException", onStrayError);
    }
  }
}
