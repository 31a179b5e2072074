/**
 * How a spec file reaches the run that runs it. Under certify, the spec host (spec-host.ts) runs
 * the specs in certify's own process, inside an async context that holds the run's provided values,
 * its console and, while a file is imported, the collector of its describes and tests; under a
 * Vitest of its own (the `contract` project, `h2h-certify/vitest`), they come from Vitest: the
 * values its setup file hands over (`useVitestProvided`), its console, its describe and it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
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
  /** While a spec file is being imported: where its describes and tests go. */
  collector?: SpecCollector;
}

/** The run whose specs are under way in this async context, when the spec host runs them. */
export const specHostRun = new AsyncLocalStorage<SpecHostRun>();

/** The values a Vitest run provides, handed over by its setup file (contract-project-timeouts.ts). */
let vitestProvided: Readonly<Record<string, unknown>> = {};
export function useVitestProvided(values: Readonly<Record<string, unknown>>): void {
  vitestProvided = values;
}

/** A value the run provides (the run context, the receiver battery's context). */
export function provided<T>(key: string): T | undefined {
  return ((specHostRun.getStore()?.provided ?? vitestProvided)[key] as T | undefined) ?? undefined;
}

/** Tells the person running the specs something: certify's console, or Vitest's. */
export function say(line: string): void {
  const run = specHostRun.getStore();
  if (run) run.say(line);
  else console.log(line);
}
