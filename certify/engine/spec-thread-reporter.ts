/**
 * The reporter of the Vitest that runs a certification's specs in a thread of its own
 * (spec-thread.mjs): certify's check collector and spec file clock, whose records go back to the
 * run as plain data. Vitest loads it by path, in that thread.
 */
import type { UserConsoleLog } from "vitest";
import type { Reporter, TestCase, TestModule } from "vitest/node";
import type { RequirementContext } from "../../contract/index.ts";
import { type RunSecrets, runMasker } from "../../run-setup/index.ts";
import { CheckCollector } from "./check-collector.ts";
import { silencedOnStop } from "./deadline.ts";
import type { CheckRecord } from "./run-model.ts";
import { SpecFileClock, type SpecFileTiming } from "./run-timings.ts";

/** What the run gets back from its spec thread. */
export interface SpecRunResult {
  records: CheckRecord[];
  /** Errors outside any test (a spec file that did not load, a failing hook). */
  runErrors: string[];
  specFiles: SpecFileTiming[];
}

/** A message from the spec thread to the run. */
export type SpecThreadMessage =
  | { type: "print"; line: string }
  | { type: "snapshot"; result: SpecRunResult }
  | { type: "error"; message: string };

export interface SpecThreadReporterOptions {
  secrets: RunSecrets;
  requirements: RequirementContext;
  post: (message: SpecThreadMessage) => void;
  /** When the run was stopped (epoch ms), or undefined while it goes on. */
  stoppedAtMs: () => number | undefined;
}

export default class SpecThreadReporter implements Reporter {
  private readonly collector: CheckCollector;
  private readonly clock = new SpecFileClock();
  private readonly heard: Reporter[];

  constructor(private readonly options: SpecThreadReporterOptions) {
    this.collector = new CheckCollector(
      runMasker(options.secrets),
      (line) => options.post({ type: "print", line }),
      options.requirements,
    );
    // Once stopped, only what belongs to the run reaches them (see silencedOnStop).
    this.heard = [this.collector, this.clock].map((reporter) =>
      silencedOnStop(reporter, options.stoppedAtMs, () => false),
    );
  }

  onTestCaseResult(test: TestCase): void {
    for (const reporter of this.heard) reporter.onTestCaseResult?.(test);
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    for (const reporter of this.heard) reporter.onUserConsoleLog?.(log);
  }

  onTestModuleEnd(module: TestModule): void {
    for (const reporter of this.heard) reporter.onTestModuleEnd?.(module);
    // Sent as each file ends: a run stopped later keeps them even if its thread then overruns.
    this.options.post({ type: "snapshot", result: this.result() });
  }

  onTestRunEnd(): void {
    this.options.post({ type: "snapshot", result: this.result() });
  }

  private result(): SpecRunResult {
    return {
      records: this.collector.records,
      runErrors: this.collector.runErrors,
      specFiles: this.clock.files,
    };
  }
}
