/**
 * How long a spec file's shared setup may take: the profile's timeouts, plus as long as the suite
 * was measured stalled meanwhile (its sink's process and its machine, sink-lateness.ts). A fixed
 * hook timeout failed correct targets on loaded CI machines, ending the run "not run".
 */
import { measuredStall } from "./sink-lateness.ts";
import type { SpecTarget } from "./target.ts";

/** A stall below this is within what the measure resolves over a setup: no further extension. */
const MIN_EXTENSION_MS = 250;

const inSeconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * `work`, or an error naming `what` once it has run `budgetMs` plus every stall measured meanwhile
 * (each extension lasts the stall measured over the time before it) and, at the latest, the run's
 * deadline, which stops the run as "incomplete" on its own.
 */
export async function withinMeasuredBudget<T>(
  target: Pick<SpecTarget, "sink" | "sharesSinkProcess" | "deadlineAt">,
  budgetMs: number,
  what: string,
  work: Promise<T>,
): Promise<T> {
  const startedAt = Date.now();
  let measuredFrom = startedAt;
  let extendedMs = 0;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    const arm = (atMs: number) => {
      timer = setTimeout(
        async () => {
          const now = Date.now();
          // The budget bounds the suite's own work, which this machine slows wherever the target is.
          const placement = { sharesSinkProcess: target.sharesSinkProcess, onThisHost: true };
          const stall = await measuredStall(target.sink(), measuredFrom, now, placement).catch(() => ({
            totalMs: 0,
          }));
          measuredFrom = now;
          if (stall.totalMs >= MIN_EXTENSION_MS && now + stall.totalMs < target.deadlineAt) {
            extendedMs += stall.totalMs;
            arm(now + stall.totalMs);
            return;
          }
          reject(
            new Error(
              `${what} did not end within ${inSeconds(budgetMs)} (from the profile's timeouts)` +
                ` + ${inSeconds(extendedMs)} (the suite's measured stall meanwhile)`,
            ),
          );
        },
        Math.max(0, atMs - Date.now()),
      );
    };
    arm(startedAt + budgetMs);
  });
  // It may still settle after the work won the race: that is no unhandled rejection.
  expired.catch(() => undefined);
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Vitest's own timeout for a hook that runs {@link withinMeasuredBudget}: only an outer bound, never
 * reached before the budget's error or the run's deadline.
 */
export function hookTimeoutFor(target: Pick<SpecTarget, "deadlineAt">, budgetMs: number): number {
  return Math.max(budgetMs, target.deadlineAt - Date.now()) + 10_000;
}
