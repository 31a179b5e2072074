/**
 * How the contract specs of one certification run: in certify's own process, through the spec
 * host (spec-host.ts), which runs the spec files with Vitest's test runner and hands each test's
 * task to the check collector as it ends.
 */

import { existsSync, readdirSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { RequirementContext } from "../../contract/index.ts";
import { CODE_ROOT, type RunSecrets, runMasker } from "../../run-setup/index.ts";
import { CheckCollector } from "./check-collector.ts";
import { type RunStop, silencedOnStop } from "./deadline.ts";
import { RECEIVER_CONTEXT_KEY, type ReceiverRunContext } from "./receiver-context.ts";
import { RUN_CONTEXT_KEY, type RunContext } from "./run-context.ts";
import type { CheckRecord } from "./run-model.ts";
import { SpecFileClock, type SpecFileTiming } from "./run-timings.ts";
import { hostSpecs } from "./spec-host.ts";
import { SPEC_GLOB } from "./spec-pool.ts";

export { SPEC_GLOB } from "./spec-pool.ts";

/** What the run gets back from its specs. */
export interface SpecRunResult {
  records: CheckRecord[];
  /** Errors outside any test (a spec file that did not load, a failing hook). */
  runErrors: string[];
  specFiles: SpecFileTiming[];
}

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
  /** Spec files under way at once (H2H_WORKERS); default: SPEC_LANES. */
  workers?: number | undefined;
  testTimeout: number;
  hookTimeout: number;
  /**
   * What ends the run early (the deadline, SIGINT, SIGTERM): the tests under way are cancelled,
   * the specs' requests end, and the run writes the reports of what ran.
   */
  runStop?: RunStop | undefined;
}

/** Runs the contract specs of one certification, and gives back their records. */
export type SpecRunner = (run: SpecRun) => Promise<SpecRunResult>;

/**
 * Spec files under way at once, in certify's one thread, by default: they mostly wait on the
 * target and the sink, and four overlap those waits where two left the thread idle between them
 * (docs/ci.md), whatever the cores.
 */
export const SPEC_LANES = 4;

/**
 * Spec files under way at once: `--only` runs a few tests, one file after another; a whole run
 * keeps H2H_WORKERS files, or SPEC_LANES, side by side.
 */
export function workersOf(run: Pick<SpecRun, "testNamePattern" | "workers">): number {
  return run.testNamePattern ? 1 : (run.workers ?? SPEC_LANES);
}

export { MAX_WORKERS } from "../../run-setup/index.ts";

/** The spec files' extension where the code runs: TypeScript in a checkout, JavaScript in dist/. */
const SPEC_EXTENSION = SPEC_GLOB.endsWith(".js") ? ".js" : ".ts";

/**
 * The spec files a run names: a folder's `dir/** /*.spec.ts` glob, a path from the code's root,
 * or a file name of the contract specs (`mobile-commerce.spec.ts`); `.ts` names also find the
 * compiled `.js`.
 */
export function specFilesOf(entries: readonly string[]): string[] {
  const found = new Set<string>();
  for (const entry of entries) {
    const glob = /^(.*?)\/\*\*\/\*(\.spec\.[jt]s)$/.exec(entry);
    if (glob) {
      const folder = resolve(CODE_ROOT, glob[1] ?? "");
      let names: string[] = [];
      try {
        names = readdirSync(folder, { recursive: true, encoding: "utf8" });
      } catch {
        // No such folder: nothing found there.
      }
      for (const name of names.sort()) if (name.endsWith(glob[2] ?? "")) found.add(join(folder, name));
      continue;
    }
    const named = entry.replace(/\.spec\.[jt]s$/, `.spec${SPEC_EXTENSION}`);
    const path = isAbsolute(named)
      ? named
      : named.includes("/")
        ? resolve(CODE_ROOT, named)
        : resolve(CODE_ROOT, "certify/specs", named);
    // As a glob does, a name that finds no file adds none: the run then says that no spec ran.
    if (existsSync(path)) found.add(path);
  }
  return [...found];
}

/**
 * Runs one certification's spec files in this process (spec-host.ts). Once stopped, the tests
 * under way are cancelled and the run has CLOSE_GRACE_MS to wind down; what ended by then is kept.
 */
export const runSpecsOnce: SpecRunner = async (run) => {
  const collector = new CheckCollector(
    runMasker(run.reporting.secrets),
    run.print,
    run.reporting.requirements,
  );
  const clock = new SpecFileClock();
  let stoppedAtMs: number | undefined;
  let over = false;
  const signal = run.runStop?.signal;
  const noteStop = () => {
    stoppedAtMs ??= Date.now();
  };
  if (signal?.aborted) noteStop();
  else signal?.addEventListener("abort", noteStop, { once: true });
  const listeners = [collector, clock].map((listener) =>
    silencedOnStop(
      listener,
      () => stoppedAtMs,
      () => over,
    ),
  );
  try {
    await hostSpecs({
      files: specFilesOf(run.specFiles ?? [SPEC_GLOB]),
      root: CODE_ROOT,
      provided: providedOf(run),
      say: (line) => run.print(`  ${line}`),
      listener: {
        onTest: (test) => {
          for (const listener of listeners) listener.onTest?.(test);
        },
        onFileEnd: (file) => {
          for (const listener of listeners) listener.onFileEnd?.(file);
        },
        onRunError: (message) => collector.onRunError(message),
      },
      lanes: workersOf(run),
      testTimeout: run.testTimeout,
      hookTimeout: run.hookTimeout,
      testNamePattern: run.testNamePattern,
      stop: signal,
    });
  } catch (error) {
    // A stopped run's own winding down is no failure of the specs.
    if (run.runStop?.reason === undefined)
      throw new Error(`the contract specs could not run: ${(error as Error).stack ?? String(error)}`);
  } finally {
    over = true;
    signal?.removeEventListener("abort", noteStop);
  }
  return { records: collector.records, runErrors: collector.runErrors, specFiles: clock.files };
};

/** What the specs of a run read with `provided`: the contract specs' run context, or the receiver battery's. */
function providedOf(run: SpecRun): Record<string, unknown> {
  return {
    ...(run.runContext ? { [RUN_CONTEXT_KEY]: run.runContext } : {}),
    ...(run.receiverContext ? { [RECEIVER_CONTEXT_KEY]: run.receiverContext } : {}),
  };
}
