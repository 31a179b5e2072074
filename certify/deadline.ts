/**
 * issue 12 (a deadline, and partial reports): what ends a run before its specs are done: the
 * overall deadline, SIGINT (Ctrl-C) or SIGTERM (a CI job's timeout). The run then writes the
 * reports of what ran, with the verdict "incomplete" and this reason, and exits 2. A second signal
 * exits at once (2): the user insists.
 */
import type { createVitest, Reporter, TestCase } from "vitest/node";
import type { Profile } from "../contract/index.ts";

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
  /** Resolves with the reason when the run must stop; never rejects. */
  readonly stopped: Promise<string>;
  /** The reason, once stopped. */
  readonly reason: string | undefined;
  /** Removes the signal handlers and the timer. */
  dispose(): void;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;
/** The runs' own signal handlers (several runs may share a process: the mutation suite). */
const RUN_STOP_HANDLERS = new WeakSet<(...args: never[]) => unknown>();

export function watchRunStop(deadlineMs: number): RunStop {
  let reason: string | undefined;
  let resolveStop: (why: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => {
    resolveStop = resolve;
  });
  const stop = (why: string) => {
    if (reason !== undefined) return;
    reason = why;
    resolveStop(why);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    // The second signal: stop waiting for the reports.
    if (reason !== undefined) process.exit(2);
    stop(`stopped by ${signal} before the run was complete`);
  };
  RUN_STOP_HANDLERS.add(onSignal);
  for (const signal of SIGNALS) process.on(signal, onSignal);
  const timer = setTimeout(
    () => stop(`the run's deadline of ${(deadlineMs / 1000).toFixed(0)} s passed before it was complete`),
    deadlineMs,
  );
  timer.unref();
  return {
    stopped,
    get reason() {
      return reason;
    },
    dispose() {
      clearTimeout(timer);
      for (const signal of SIGNALS) process.off(signal, onSignal);
    },
  };
}

type CreateVitest = typeof createVitest;
type VitestInstance = Awaited<ReturnType<CreateVitest>>;

/** How long closing Vitest (its workers) may take once the run was stopped. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Whether a reporter call made after the run was stopped still belongs to it: a test that ended
 * before the stop (Vitest sends results in batches, 100 ms apart, so the last ones may come after
 * it), or that passed after it. A failure that ended after the stop may be the stop's doing (a
 * rate limit no longer waited out past the deadline), so it is not kept. Nor is what Vitest reports
 * while it winds down: tests it marks skipped as cancelled, files ended unrun, a run "interrupted".
 */
function belongsToStoppedRun(property: string | symbol, args: unknown[], stoppedAtMs: number): boolean {
  if (property !== "onTestCaseResult") return false;
  const test = args[0] as TestCase | undefined;
  const state = test?.result().state;
  if (state === "passed") return true;
  if (state !== "failed") return false;
  const diagnostic = test?.diagnostic();
  return diagnostic !== undefined && diagnostic.startTime + diagnostic.duration <= stoppedAtMs;
}

/**
 * The run's reporters: once the run is stopped (at `stoppedAtMs()`), they hear only results that
 * belong to it (see belongsToStoppedRun), and once `isOver()` (the caller has the run back and
 * writes its reports), nothing at all.
 */
export function silencedOnStop(
  reporter: Reporter,
  stoppedAtMs: () => number | undefined,
  isOver: () => boolean,
): Reporter {
  return new Proxy(reporter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (isOver()) return undefined;
        const stoppedAt = stoppedAtMs();
        if (stoppedAt !== undefined && !belongsToStoppedRun(property, args, stoppedAt)) return undefined;
        return value.apply(target, args);
      };
    },
  });
}

const STOPPED: unique symbol = Symbol("stopped");

/**
 * One Vitest run of `files` (none: every spec the options include) that ends when the run is
 * stopped too, whenever that comes: while Vitest is being created it is closed as soon as it
 * exists, and never started; while specs run, the run is cancelled (the files under way end, what
 * ran is kept) and waited for, within a grace period. Nothing of Vitest runs on after this
 * returns: no spec against a target that was stopped meanwhile, no report event, no exit code of
 * its own. The caller closes the Vitest it gets back.
 */
export async function stoppableVitestRun(
  runStop: RunStop,
  create: CreateVitest,
  options: Parameters<CreateVitest>[1],
): Promise<VitestInstance | undefined> {
  // Vitest's logger exits the process on SIGINT/SIGTERM (after its own cleanup), from as soon as
  // it exists: the run's stop handles those signals instead, so the partial reports get written.
  // Each such listener goes as it comes.
  const dropSignalListener = (event: string | symbol, listener: (...args: unknown[]) => void) => {
    if ((SIGNALS as readonly (string | symbol)[]).includes(event) && !RUN_STOP_HANDLERS.has(listener))
      queueMicrotask(() => process.off(event as NodeJS.Signals, listener));
  };
  process.on("newListener", dropSignalListener);
  const grace = () =>
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), CLOSE_GRACE_MS).unref());
  let stoppedAtMs: number | undefined;
  const stopped: Promise<typeof STOPPED> = runStop.stopped.then(() => {
    stoppedAtMs = Date.now();
    return STOPPED;
  });
  let over = false;
  try {
    const given = (options?.reporters as Reporter[] | undefined) ?? [];
    const reporters = given.map((reporter) =>
      silencedOnStop(
        reporter,
        () => (runStop.reason === undefined ? undefined : (stoppedAtMs ?? Date.now())),
        () => over,
      ),
    );
    const creating = create("test", { ...options, reporters });
    const created = await Promise.race([creating, stopped]);
    if (created === STOPPED) {
      const vitest = await Promise.race([creating.catch(() => undefined), grace()]);
      await Promise.race([vitest?.close().catch(() => undefined), grace()]);
      return undefined;
    }
    const running = created.start().catch((error: unknown) => {
      // No spec file matched: the run reports that no contract spec ran. (Vitest's error says so by
      // its code; its name is plain "Error".)
      if ((error as { code?: string } | undefined)?.code !== "VITEST_FILES_NOT_FOUND") throw error;
    });
    try {
      if ((await Promise.race([running, stopped])) === STOPPED) {
        await created.cancelCurrentRun("keyboard-input");
        await Promise.race([running.catch(() => undefined), grace()]);
      }
    } catch (error) {
      // Vitest failed to run: it is closed here, since the caller gets no Vitest to close.
      await Promise.race([created.close().catch(() => undefined), grace()]);
      throw error;
    }
    return created;
  } finally {
    // Once stopped, what comes after this returns (a run that outlived its grace) is not reported.
    over = runStop.reason !== undefined;
    process.off("newListener", dropSignalListener);
  }
}
