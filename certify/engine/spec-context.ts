/**
 * How a spec file reaches the run that runs it. Under certify, the spec host (spec-host.ts)
 * imports the spec files one at a time in a process, and while one is imported, the run it belongs
 * to (its provided values, its console, the collector of its describes and tests) is the one
 * here; a spec file takes what it needs of it at its top level. Under a Vitest of its own (the
 * `contract` project, `h2h-certify/vitest`), the values come from the setup file
 * (`useVitestProvided`), the console and the describes are Vitest's.
 */
import type { SpecSuite, SpecTestContext } from "./spec-tasks.ts";

/** What registers a file's describes, tests and hooks while the spec host imports it. */
export interface SpecCollector {
  describe(name: string, factory: () => void): void;
  it(name: string, fn: (context: SpecTestContext) => unknown, timeout?: number): void;
  beforeAll(fn: (suite: SpecSuite) => unknown, timeout?: number): void;
  afterAll(fn: (suite: SpecSuite) => unknown, timeout?: number): void;
  beforeEach(fn: (context: SpecTestContext) => unknown, timeout?: number): void;
}

/** What the spec host gives the specs of one run. */
export interface SpecHostRun {
  provided: Readonly<Record<string, unknown>>;
  /** A line for the person running certify (a manual trigger, a warning). */
  say(line: string): void;
}

/** The file the spec host is importing now, and its run. */
let importing: { run: SpecHostRun; collector: SpecCollector } | undefined;
/** Runs of the spec host under way in this process. */
let hosting = 0;

/** Imports a spec file for a run: only the spec host calls it, one file at a time. */
export async function importForRun<T>(
  run: SpecHostRun,
  collector: SpecCollector,
  load: () => Promise<T>,
): Promise<T> {
  if (importing) throw new Error("the spec host imports one spec file at a time");
  importing = { run, collector };
  try {
    return await load();
  } finally {
    importing = undefined;
  }
}

/** Counts a run of the spec host, until the returned function is called. */
export function hostingRun(): () => void {
  hosting += 1;
  return () => {
    hosting -= 1;
  };
}

/**
 * Where describes and tests go now: the collector of the file being imported; none while the
 * host runs tests (a test may not declare tests), undefined outside the spec host.
 */
export function currentCollector(): SpecCollector | "running" | undefined {
  if (importing) return importing.collector;
  return hosting > 0 ? "running" : undefined;
}

/** The values a Vitest run provides, handed over by its setup file (contract-project-timeouts.ts). */
let vitestProvided: Readonly<Record<string, unknown>> = {};
export function useVitestProvided(values: Readonly<Record<string, unknown>>): void {
  vitestProvided = values;
}

/** A value the run provides (the run context, the receiver battery's context), read at a spec file's top level. */
export function provided<T>(key: string): T | undefined {
  return (importing?.run.provided ?? vitestProvided)[key] as T | undefined;
}

/**
 * How a spec file tells the person running it something, taken at its top level: certify's
 * console under the spec host, Vitest's otherwise.
 */
export function sayer(): (line: string) => void {
  return importing?.run.say ?? ((line) => console.log(line));
}
