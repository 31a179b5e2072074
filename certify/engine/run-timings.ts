/**
 * Where a certification's time went: when the process started, when the contract specs started
 * and ended, and each spec file's span. The JSON report carries it (`timings`), and
 * `npm run bench:certify` reads its phases from there: start-up (process start to the first spec
 * file), specs (first spec file to the last one's end), callbacks (the callback spec file, which
 * runs beside the others), reports (the specs' end to the process's exit).
 */
import type { Reporter, TestModule } from "vitest/node";
import { specFileName } from "./spec-pool.ts";

export interface SpecFileTiming {
  file: string;
  /** How long importing the file (and what it imports) took before it ran. */
  loadMs: number;
  /** When its tests started and ended (ms since the epoch). */
  startedAtMs: number;
  endedAtMs: number;
}

export interface RunTimings {
  /** When the process started (its time origin), and when the run itself began. */
  processStartedAtMs: number;
  runStartedAtMs: number;
  /** When the first spec file started, and the last one ended (absent when no spec ran). */
  specsStartedAtMs?: number;
  specsEndedAtMs?: number;
  specFiles: SpecFileTiming[];
}

/** The callback spec file: its span is the "callbacks" phase. */
export const CALLBACK_SPEC_FILE = "callbacks.spec.ts";

/**
 * A Vitest reporter that notes when each spec file ran: the worker's own start time and
 * duration of the file (events reach reporters in batches, so their arrival says little), and
 * how long loading it took before that.
 */
export class SpecFileClock implements Reporter {
  readonly files: SpecFileTiming[] = [];

  onTestModuleEnd(module: TestModule): void {
    const reportedAtMs = Date.now();
    // The runner task's start time is the worker's own clock reading (Vitest does not expose it
    // on TestModule); without it, the file is placed back from when its end was reported.
    const { result } = (module as unknown as { task?: { result?: { startTime?: number } } }).task ?? {};
    const durationMs = module.diagnostic().duration;
    const startedAtMs = Math.round(result?.startTime ?? reportedAtMs - durationMs);
    this.files.push({
      file: specFileName(module.moduleId),
      loadMs: Math.round(module.diagnostic().collectDuration),
      startedAtMs,
      endedAtMs: Math.round(startedAtMs + durationMs),
    });
  }

  /** The run's timings so far, from the process start and the run's own start. */
  timings(runStartedAtMs: number): RunTimings {
    const files = [...this.files].sort((a, b) => a.startedAtMs - b.startedAtMs);
    return {
      processStartedAtMs: Math.round(performance.timeOrigin),
      runStartedAtMs,
      ...(files.length > 0
        ? {
            specsStartedAtMs: Math.min(...files.map((f) => f.startedAtMs)),
            specsEndedAtMs: Math.max(...files.map((f) => f.endedAtMs)),
          }
        : {}),
      specFiles: files,
    };
  }
}

/** The phases of a run, in ms, as `bench:certify` prints them. `exitedAtMs`: when the process ended. */
export function phasesOf(
  timings: RunTimings,
  exitedAtMs: number,
  launchedAtMs = timings.processStartedAtMs,
): { startupMs: number; specsMs: number; callbacksMs: number; reportsMs: number; wallMs: number } {
  const specsStart = timings.specsStartedAtMs ?? exitedAtMs;
  const specsEnd = timings.specsEndedAtMs ?? specsStart;
  const callbacks = timings.specFiles.find((f) => f.file === CALLBACK_SPEC_FILE);
  return {
    startupMs: specsStart - launchedAtMs,
    specsMs: specsEnd - specsStart,
    callbacksMs: callbacks ? callbacks.endedAtMs - callbacks.startedAtMs : 0,
    reportsMs: exitedAtMs - specsEnd,
    wallMs: exitedAtMs - launchedAtMs,
  };
}
