/**
 * Where a certification's time went: when the process started, when the contract specs started
 * and ended, and each spec file's span. The JSON report carries it (`timings`), and
 * `npm run bench:certify` reads its phases from there: start-up (process start to the first spec
 * file), specs (first spec file to the last one's end), callbacks (the callback spec file, which
 * runs beside the others), reports (the specs' end to the process's exit).
 */
import { specFileName } from "./spec-pool.ts";
import type { SpecFile, SpecListener } from "./spec-tasks.ts";

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

/** Notes when each spec file ran (its start and duration), and how long loading it took before. */
export class SpecFileClock implements SpecListener {
  readonly files: SpecFileTiming[] = [];

  onFileEnd(file: SpecFile): void {
    const durationMs = file.result?.duration ?? 0;
    // A file that never started (a stopped run) is placed back from now.
    const startedAtMs = Math.round(file.result?.startTime ?? Date.now() - durationMs);
    this.files.push({
      file: specFileName(file.filepath),
      loadMs: Math.round(file.collectDuration ?? 0),
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
