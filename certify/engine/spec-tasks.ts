/**
 * The spec files' tasks as the spec host (spec-host.ts) collects and runs them: files, describes
 * (suites) and tests, with their results, shaped as Vitest's runner shapes its own, so that a
 * check's record reads the same whoever ran its test.
 */
import type { CheckMeta } from "./run-context.ts";

/** An error a test or hook ended with, as recorded: its name, message and own plain properties. */
export interface SpecError {
  name?: string;
  message: string;
  stack?: string;
  [property: string]: unknown;
}

export interface SpecResult {
  state: "run" | "pass" | "fail" | "skip";
  errors?: SpecError[];
  /** Why it was skipped (`ctx.skip(note)`, a stopped run). */
  note?: string;
  /** When it started (epoch ms), and how long it took. */
  startTime?: number;
  duration?: number;
}

type Hook<Context> = { fn: (context: Context) => unknown; timeout: number | undefined };

export interface SpecSuite {
  type: "suite";
  name: string;
  mode: "run" | "skip";
  /** The describe it is in; none for a file. */
  suite?: SpecSuite | undefined;
  file: SpecFile;
  tasks: (SpecSuite | SpecTest)[];
  hooks: {
    beforeAll: Hook<SpecSuite>[];
    afterAll: Hook<SpecSuite>[];
    beforeEach: Hook<SpecTestContext>[];
  };
  result?: SpecResult;
}

export interface SpecFile extends SpecSuite {
  filepath: string;
  /** How long importing it (registering its describes and tests) took. */
  collectDuration?: number;
}

export interface SpecTest {
  type: "test";
  id: string;
  name: string;
  mode: "run" | "skip";
  suite: SpecSuite;
  file: SpecFile;
  fn: (context: SpecTestContext) => unknown;
  timeout: number | undefined;
  /** What the test records for certify's reporter (verify.ts). */
  meta: { h2h?: CheckMeta };
  result?: SpecResult;
}

/** What a test (and a beforeEach hook) is given: Vitest's test context, the part specs use. */
export interface SpecTestContext {
  task: { meta: { h2h?: CheckMeta } };
  /** Aborted when the test times out, or the run is stopped (a `TestRunAbortError`). */
  signal: AbortSignal;
  /** Ends the test as skipped, with a note that says why. */
  skip(note?: string): never;
}

/** What hears a run's tests as they end, its files as they end, and errors outside any test. */
export interface SpecListener {
  onTest?(test: SpecTest): void;
  onFileEnd?(file: SpecFile): void;
  /** An error no test or hook caught (an unhandled rejection while the specs ran). */
  onRunError?(message: string): void;
}

/** A test's outcome, read as Vitest's reporters read it (a task never run is pending). */
export type TestOutcome =
  | { state: "passed"; errors?: undefined; note?: undefined }
  | { state: "failed"; errors: readonly SpecError[]; note?: undefined }
  | { state: "skipped"; note: string | undefined; errors?: undefined }
  | { state: "pending"; errors?: undefined; note?: undefined };

export function testResultOf(test: SpecTest): TestOutcome {
  const { result } = test;
  if (!result && test.mode === "skip") return { state: "skipped", note: undefined };
  if (!result || result.state === "run") return { state: "pending" };
  if (result.state === "fail") return { state: "failed", errors: result.errors ?? [] };
  if (result.state === "pass") return { state: "passed" };
  return { state: "skipped", note: result.note };
}

function* walk(suite: SpecSuite): Generator<SpecSuite | SpecTest> {
  for (const task of suite.tasks) {
    yield task;
    if (task.type === "suite") yield* walk(task);
  }
}

export function allTestsOf(suite: SpecSuite): SpecTest[] {
  return [...walk(suite)].filter((task): task is SpecTest => task.type === "test");
}

/** The describes of a file or suite, nested ones included (not the file itself). */
export function allSuitesOf(suite: SpecSuite): SpecSuite[] {
  return [...walk(suite)].filter((task): task is SpecSuite => task.type === "suite");
}

/** A test's full name as Vitest matches a test name pattern against it: file, describes, test. */
export function fullNameOf(task: SpecSuite | SpecTest): string {
  return task.suite ? `${fullNameOf(task.suite)} ${task.name}` : task.name;
}
