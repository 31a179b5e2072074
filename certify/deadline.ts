/**
 * issue 12 (a deadline, and partial reports): what ends a run before its specs are done: the
 * overall deadline, SIGINT (Ctrl-C) or SIGTERM (a CI job's timeout). The run then writes the
 * reports of what ran, with the verdict "incomplete" and this reason, and exits 2. A second signal
 * exits at once (2): the user insists.
 */
import type { Reporter, startVitest } from "vitest/node";
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

type StartVitest = typeof startVitest;
type VitestInstance = Awaited<ReturnType<StartVitest>>;

/** How long closing Vitest (its workers) may take once the run was stopped. */
const CLOSE_GRACE_MS = 10_000;

/**
 * The run's reporters, silent once the run is stopped: what Vitest reports while it winds down
 * (files ended unrun, a run "interrupted") is not part of the run whose reports are being written.
 */
function silencedOnStop(reporter: Reporter, runStop: RunStop): Reporter {
  return new Proxy(reporter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => (runStop.reason === undefined ? value.apply(target, args) : undefined);
    },
  });
}

/**
 * `startVitest`, but it returns when the run is stopped too: it then closes Vitest (ending its
 * workers) and waits for it to end, within a grace period, and hands back a closed stand-in;
 * `runStop.reason` says why. Nothing of Vitest runs on after it returns: no spec against a target
 * that was stopped meanwhile, no report event, no exit code of its own.
 */
export function stoppableStartVitest(runStop: RunStop, start: StartVitest) {
  return async (...[mode, filters, options, ...rest]: Parameters<StartVitest>) => {
    let instance: VitestInstance | undefined;
    let markInitialized: () => void = () => undefined;
    const initialized = new Promise<void>((resolve) => {
      markInitialized = resolve;
    });
    // Vitest's logger exits the process on SIGINT/SIGTERM (after its own cleanup), from as soon as
    // it exists, well before Vitest reports its start: the run's stop handles those signals
    // instead, so the partial reports get written. Each such listener goes as it comes.
    const dropSignalListener = (event: string | symbol, listener: (...args: unknown[]) => void) => {
      if ((SIGNALS as readonly (string | symbol)[]).includes(event) && !RUN_STOP_HANDLERS.has(listener))
        queueMicrotask(() => process.off(event as NodeJS.Signals, listener));
    };
    process.on("newListener", dropSignalListener);
    const taker: Reporter = {
      onInit(vitest) {
        instance = vitest;
        markInitialized();
      },
    };
    const given = (options?.reporters as Reporter[] | undefined) ?? [];
    const reporters = [...given.map((reporter) => silencedOnStop(reporter, runStop)), taker];
    const running = start(mode, filters, { ...options, reporters } as typeof options, ...rest);
    const ended = running.then(
      () => undefined,
      () => undefined,
    );
    try {
      const done = await Promise.race([running, runStop.stopped.then(() => undefined)]);
      if (done !== undefined) return done;
      const grace = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
      // Stopped while Vitest was still starting: it is closed once it can be.
      if (!instance) await Promise.race([initialized, ended, grace]);
      await Promise.race([Promise.all([instance?.close().catch(() => undefined), ended]), grace]);
      return { close: async () => undefined };
    } finally {
      process.off("newListener", dropSignalListener);
    }
  };
}
