/**
 * A deadline, and partial reports: what ends a run before its specs are done: the
 * overall deadline, SIGINT (Ctrl-C) or SIGTERM (a CI job's timeout). The run then writes the
 * reports of what ran, with the verdict "incomplete" and this reason, and exits 2. A second signal
 * changes nothing (the stop is under way, bounded by CLOSE_GRACE_MS); a third exits at once (2),
 * its temp folders removed first. The same signal twice within SAME_SIGNAL_WINDOW_MS counts once.
 */
import { rmSync } from "node:fs";
import type { Profile } from "../../contract/index.ts";
import { type SpecListener, type SpecTest, testResultOf } from "./spec-tasks.ts";

/**
 * The default deadline, from the profile's timeouts: room for about 60 requests and 10 callback
 * waits one after the other, plus a minute to start and write reports (8 min 30 s for the default timeouts).
 */
export function defaultDeadlineMs(profile: Profile): number {
  return profile.timeouts.requestMs * 60 + profile.timeouts.callbackMs * 10 + 60_000;
}

/** The deadline that applies: `--deadline`, then the profile's `limits.deadlineMs`, then the default. */
export function deadlineOf(profile: Profile, optionMs: number | undefined): number {
  return optionMs ?? profile.limits.deadlineMs ?? defaultDeadlineMs(profile);
}

export interface RunStop {
  /**
   * Aborted, with the reason as a string, when the run must stop: the deadline, SIGINT, SIGTERM.
   * The one signal of a run: the spec runner cancels Vitest's run on it, and every wait on it ends.
   */
  readonly signal: AbortSignal;
  /** Resolves with the reason when the run must stop; never rejects. */
  readonly stopped: Promise<string>;
  /** The reason, once stopped. */
  readonly reason: string | undefined;
  /** A folder removed on a forced exit (a third signal), besides the run's own cleanup. */
  removeOnForcedExit(path: string): void;
  /** Removes the signal handlers and the timer. */
  dispose(): void;
}

/** Signals after the first that the run absorbs (it is already stopping); the next one exits. */
const ABSORBED_SIGNALS = 1;

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * The same signal again within this long is the same cancellation: a CI runner or a terminal
 * signals the whole process group, and `npm run` forwards the signal to certify once more.
 */
export const SAME_SIGNAL_WINDOW_MS = 1_000;

export function watchRunStop(deadlineMs: number): RunStop {
  const controller = new AbortController();
  const stop = (why: string) => {
    if (!controller.signal.aborted) controller.abort(why);
  };
  const folders = new Set<string>();
  let extraSignals = 0;
  let last: { signal: NodeJS.Signals; atMs: number } | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    // One cancellation may arrive twice: sent to the process group and forwarded by `npm run`.
    const repeated = last?.signal === signal && performance.now() - last.atMs < SAME_SIGNAL_WINDOW_MS;
    last = { signal, atMs: performance.now() };
    if (repeated) return;
    if (!controller.signal.aborted) return stop(`stopped by ${signal} before the run was complete`);
    // A second Ctrl-C (or SIGTERM after it) must not lose the partial reports or leave the temp folder.
    if (extraSignals++ < ABSORBED_SIGNALS) {
      process.stderr.write(
        `${signal}: already stopping, writing the reports of what ran (again to quit at once)\n`,
      );
      return;
    }
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    process.exit(2);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  const timer = setTimeout(
    () => stop(`the run's deadline of ${(deadlineMs / 1000).toFixed(0)} s passed before it was complete`),
    deadlineMs,
  );
  timer.unref();
  const stopped = new Promise<string>((resolve) => {
    controller.signal.addEventListener("abort", () => resolve(String(controller.signal.reason)), {
      once: true,
    });
  });
  return {
    signal: controller.signal,
    stopped,
    get reason() {
      return controller.signal.aborted ? String(controller.signal.reason) : undefined;
    },
    removeOnForcedExit(path) {
      folders.add(path);
    },
    dispose() {
      clearTimeout(timer);
      for (const signal of SIGNALS) process.off(signal, onSignal);
    },
  };
}

/** How long a stopped run's specs may take to wind down (their requests, their hooks). */
export const CLOSE_GRACE_MS = 10_000;

/**
 * Whether a test that ended after the run was stopped still belongs to it: one that passed, or
 * failed before the stop. A failure that ended after the stop may be the stop's doing (a rate
 * limit no longer waited out past the deadline), so it is not kept, nor are the tests the stop
 * marks skipped as cancelled.
 */
function belongsToStoppedRun(test: SpecTest, stoppedAtMs: number): boolean {
  const { state } = testResultOf(test);
  if (state === "passed") return true;
  if (state !== "failed") return false;
  const { startTime, duration } = test.result ?? {};
  return startTime !== undefined && duration !== undefined && startTime + duration <= stoppedAtMs;
}

/**
 * The run's listeners: once the run is stopped (at `stoppedAtMs()`), they hear only tests that
 * belong to it (see belongsToStoppedRun) and no file's end (files ended unrun), and once
 * `isOver()` (the caller has the run back and writes its reports), nothing at all.
 */
export function silencedOnStop(
  listener: SpecListener,
  stoppedAtMs: () => number | undefined,
  isOver: () => boolean,
): SpecListener {
  return {
    onTest(test) {
      if (isOver()) return;
      const stoppedAt = stoppedAtMs();
      if (stoppedAt !== undefined && !belongsToStoppedRun(test, stoppedAt)) return;
      listener.onTest?.(test);
    },
    onFileEnd(file) {
      if (isOver() || stoppedAtMs() !== undefined) return;
      listener.onFileEnd?.(file);
    },
  };
}
