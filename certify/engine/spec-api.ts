/**
 * describe, it and the hooks, as the spec files declare their tests: to the spec host's collector
 * when certify runs them (spec-host.ts), to Vitest's own when a Vitest runs them (the `contract`
 * project). Certify never loads Vitest: its module is imported only where no spec host runs.
 */
import { currentCollector, type SpecCollector } from "./spec-context.ts";
import type { SpecSuite, SpecTestContext } from "./spec-tasks.ts";

export type { SpecTestContext } from "./spec-tasks.ts";

type Declarations = Pick<
  typeof import("vitest"),
  "describe" | "it" | "beforeAll" | "afterAll" | "beforeEach"
>;

const vitest: Declarations | undefined =
  currentCollector() === undefined ? await import("vitest") : undefined;

function declarations(what: string): SpecCollector {
  const collector = currentCollector();
  if (collector !== undefined && collector !== "running") return collector;
  if (collector === "running")
    throw new Error(
      `${what} was called while the specs ran: declare tests at a spec file's top level or in a describe`,
    );
  if (!vitest)
    throw new Error(
      `${what} needs a runner: spec files are run by \`h2h-certify certify\` or the Vitest entry (h2h-certify/vitest)`,
    );
  return vitest as unknown as SpecCollector;
}

export function describe(name: string, factory: () => void): void {
  declarations("describe").describe(name, factory);
}

export function it(name: string, fn: (context: SpecTestContext) => unknown, timeout?: number): void {
  declarations("it").it(name, fn, timeout);
}

export function beforeAll(fn: (suite: SpecSuite) => unknown, timeout?: number): void {
  declarations("beforeAll").beforeAll(fn, timeout);
}

export function afterAll(fn: (suite: SpecSuite) => unknown, timeout?: number): void {
  declarations("afterAll").afterAll(fn, timeout);
}

export function beforeEach(fn: (context: SpecTestContext) => unknown, timeout?: number): void {
  declarations("beforeEach").beforeEach(fn, timeout);
}
