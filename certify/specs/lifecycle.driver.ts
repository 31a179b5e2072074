/**
 * The lifecycle spec's probes, run once before any of its tests: the sandbox clock is asked
 * first, then both kinds' model probes (lifecycle-orders.driver.ts), the timer probes and the
 * late confirmations (lifecycle-timer.driver.ts) run side by side; each result is kept settled,
 * for the tests that judge it.
 */
import { ORDER_KINDS, type OrderKind } from "../../contract/index.ts";
import { askClock, expiryPlan, type LifecycleContext } from "./lifecycle-context.driver.ts";
import type { KindProbes } from "./lifecycle-orders.driver.ts";
import {
  judgeableTimerRun,
  type LateRun,
  latePlan,
  lateRun,
  lateSecondsOf,
  type TimerRun,
} from "./lifecycle-timer.driver.ts";
import { type Settled, settle } from "./support/settled.ts";

/** What the timer probes and the late confirmations found, by kind. */
export interface TimerResults {
  timers: Map<OrderKind, Settled<TimerRun>>;
  lateRuns: Map<OrderKind, Settled<LateRun>>;
}

/**
 * How long the probes may take: both kinds' probes and the timer probes side by side, the file
 * takes as long as the slowest. The longest path waits for two processing steps and their
 * callbacks, twice when retried alone; without a clock, expiry is waited out. Plus a fixed margin
 * for the stalls of a loaded machine, which correct targets reached.
 */
export function lifecycleBudgetMs({ profile, lifetimeSeconds }: LifecycleContext): number {
  const mayWaitOutExpiry = profile.sandboxClock !== "required" && lifetimeSeconds !== undefined;
  return profile.timeouts.callbackMs * 6 + (mayWaitOutExpiry ? (lifetimeSeconds + 1) * 2000 : 0) + 30_000;
}

/** Asks the clock, plans expiry and the late confirmation, then runs every probe of the file. */
export async function runLifecycleProbes(
  lc: LifecycleContext,
  kinds: readonly KindProbes[],
  results: TimerResults,
): Promise<void> {
  lc.clock = await askClock(lc).catch((error: unknown) => ({
    works: false,
    failure: error instanceof Error ? error.message : String(error),
  }));
  lc.expiryBlocked = expiryPlan(lc);
  lc.lateBlocked = latePlan(lc);
  const lateSeconds = lateSecondsOf(lc);
  await Promise.all([
    ...kinds.map((kind) => kind.probe()),
    ...ORDER_KINDS.map(async (kind) => results.timers.set(kind, await settle(judgeableTimerRun(lc, kind)))),
    ...(lateSeconds !== undefined && lc.lateBlocked === undefined
      ? ORDER_KINDS.map(async (kind) =>
          results.lateRuns.set(kind, await settle(lateRun(lc, kind, lateSeconds))),
        )
      : []),
  ]);
}
