/**
 * How far off an interval between two of the sink's stamps may be on a loaded machine, which
 * `callbacks.retry-policy` adds to the profile's tolerance.
 *
 * - A target in another process (a sandbox, a container) is late or early only as the sink
 *   stamps it: each stamp is late by at most the hold under way when its request came, so an
 *   interval is off by at most the sink's longest stall meanwhile. The sum of every hold is no
 *   bound for it: a loop busy in 8 ms chunks adds up to ~0.2 s per second, and over a retry
 *   window that let a target retrying every 0.7 s pass a 0.1-0.4 s ± 0.25 s policy.
 * - A target in the sink's own process (the bundled reference provider, the mutation self-test's)
 *   fires its retry timers and sends on the same event loop: every hold meanwhile can delay it,
 *   so the sum counts (a clean bundled provider's retry was 0.4 s late while the longest stall
 *   was 0.06 s). That target is the suite's own; no provider is judged by this allowance.
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
