import type { CallbackFilter } from "../../../webhook-sink/index.ts";
import type { SpecSink } from "./target.ts";

/**
 * How far off an interval between two of the sink's stamps may be on a loaded machine, which
 * `callbacks.retry-policy` adds to the profile's tolerance.
 *
 * - A target in another process (a sandbox, a container) is late or early only as the sink
 *   stamps it: each stamp is late by at most the hold under way when its request came, so an
 *   interval is off by at most the sink's longest stall meanwhile. The sum of every hold is no
 *   bound for it: a loop busy in short chunks adds up to a large share of each second, and over a
 *   retry window that let a target far off its retry policy pass.
 * - A target in the sink's own process (the bundled reference provider, the mutation self-test's)
 *   fires its retry timers and sends on the same event loop: every hold meanwhile can delay it,
 *   so the sum counts (a clean bundled provider's retry was late by several times the longest
 *   stall). That target is the suite's own; no provider is judged by this allowance.
 */
export interface SinkStalls {
  /** The longest hold of the sink's event loop in the span. */
  maxStallMs: number;
  /** Every hold in the span, added up. */
  heldUpMs: number;
}

export function sinkLatenessMs(stalls: SinkStalls, targetSharesSinkProcess: boolean): number {
  return targetSharesSinkProcess ? stalls.heldUpMs : stalls.maxStallMs;
}

/** Where the target runs, as far as the stall allowance goes. */
export interface TargetPlacement {
  /** In the sink's own process (sinkLatenessMs). */
  sharesSinkProcess: boolean;
  /**
   * On this machine (a loopback base URL): only then can this machine's CPU contention slow it.
   * A remote target is late by the sink's own stalls at most.
   */
  onThisHost: boolean;
}

/** What was measured to hold the suite up over one window: its sink's process, and its machine. */
export interface MeasuredStall {
  /** The sink's own lateness (sinkLatenessMs). */
  processMs: number;
  /**
   * How long runnable work waited for a CPU on the machine (PSI, else the load average; 0 unknown),
   * counted only for a target on this host.
   */
  machineMs: number;
  /** Both: how late a callback sent meanwhile may come through no fault of the target. */
  totalMs: number;
}

/** The stall the sink measured from `sinceMs` to `untilMs` (ms since the epoch). */
export async function measuredStall(
  sink: SpecSink,
  sinceMs: number,
  untilMs: number,
  target: TargetPlacement,
): Promise<MeasuredStall> {
  if (untilMs <= sinceMs) return { processMs: 0, machineMs: 0, totalMs: 0 };
  // The sink takes whole milliseconds only (a fraction is a 400): the window widened, never narrowed.
  const report = await sink.client.stalls(Math.floor(sinceMs), Math.ceil(untilMs));
  const processMs = sinkLatenessMs(report, target.sharesSinkProcess);
  const machineMs = target.onThisHost ? (report.machineStallMs ?? 0) : 0;
  return { processMs, machineMs, totalMs: processMs + machineMs };
}

/**
 * Waits for `minCount` callbacks of `filter` until `fromMs + timeoutMs`; when they have not all come
 * by then, once more for as long as the suite was measured stalled over that window, at most
 * `timeoutMs` again (the checks never give a stall more room than the declared delay), so this
 * waits at most twice the profile's timeout. `stallMs` is the stall measured (0 when no more wait
 * was needed).
 */
export async function waitMeasured(
  sink: SpecSink,
  filter: CallbackFilter,
  wait: { fromMs: number; timeoutMs: number; minCount?: number },
  target: TargetPlacement,
): Promise<{ timedOut: boolean; stallMs: number }> {
  const minCount = wait.minCount ?? 1;
  const deadline = wait.fromMs + wait.timeoutMs;
  const first = await sink.client.waitFor(filter, {
    timeoutMs: Math.max(0, deadline - Date.now()),
    minCount,
  });
  if (!first.timedOut) return { timedOut: false, stallMs: 0 };
  const stall = await measuredStall(sink, wait.fromMs, deadline, target);
  if (stall.totalMs <= 0) return { timedOut: true, stallMs: 0 };
  const more = await sink.client.waitFor(filter, {
    timeoutMs: Math.max(0, deadline + Math.min(stall.totalMs, wait.timeoutMs) - Date.now()),
    minCount,
  });
  return { timedOut: more.timedOut, stallMs: stall.totalMs };
}
