/**
 * The callback spec's scenarios, run once before any of its tests: every kind and status
 * (callbacks-observe.driver.ts) and the retry scenario (callbacks-retries.driver.ts) side by
 * side, each with its own order and callback URL, so the run takes as long as the slowest one
 * (the retry schedule), not their sum. Each result is kept settled, for the tests that judge it.
 */
import { CALLBACK_STATUSES, ORDER_KINDS } from "../../contract/index.ts";
import { longestWaitMs, type Observed, observe } from "./callbacks-observe.driver.ts";
import { observeRetries, type RetryObserved, retryWaitMs } from "./callbacks-retries.driver.ts";
import { type Settled, settle } from "./support/settled.ts";
import type { SpecTarget } from "./support/target.ts";

/**
 * How long the scenarios may take: bounded by the profile's waits plus the suite's measured
 * stall, not by a fixed timeout that a loaded machine reaches with a correct target.
 */
export function callbacksBudgetMs(profile: SpecTarget["profile"]): number {
  return Math.max(longestWaitMs(profile), retryWaitMs(profile)) + 30_000;
}

/** Runs every scenario; each kind and status's result goes into `observed` (`kind:status`), the retries' is returned. */
export async function observeCallbacks(
  target: SpecTarget,
  observed: Map<string, Settled<Observed>>,
): Promise<Settled<RetryObserved>> {
  const scenarios = ORDER_KINDS.flatMap((kind) =>
    CALLBACK_STATUSES.map(async (status) =>
      observed.set(`${kind}:${status}`, await settle(observe(target, kind, status))),
    ),
  );
  const [retries] = await Promise.all([settle(observeRetries(target)), ...scenarios]);
  return retries;
}
