/**
 * Whether N requests sent "at once" could have met at the target: a race probe whose requests
 * never overlapped (each answered before the next was written, as behind a proxy or a connection
 * pool that serialises them) proves nothing about the race, and is not evaluated.
 *
 * Only the client's side is seen: when each request was written on its connection and when its
 * answer's head came. Intervals that intersect may have overlapped at the target; disjoint ones
 * cannot have.
 */
import type { WireTimes } from "../../../contract/index.ts";

/** Why the requests cannot have overlapped at the target, or undefined when they may have. */
export function neverOverlapped(times: readonly (WireTimes | undefined)[]): string | undefined {
  if (times.length < 2 || times.some((t) => t === undefined)) return undefined;
  const sorted = [...(times as WireTimes[])].sort((a, b) => a.sentAtMs - b.sentAtMs);
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1] as WireTimes;
    if (before.answeredAtMs > (sorted[i] as WireTimes).sentAtMs) return undefined;
  }
  const start = (sorted[0] as WireTimes).sentAtMs;
  const at = (ms: number) => `+${ms - start}`;
  return (
    `its ${sorted.length} requests "at once" never overlapped: each was answered before the next was sent ` +
    `(sent at ${sorted.map((t) => at(t.sentAtMs)).join(", ")} ms; answered at ${sorted.map((t) => at(t.answeredAtMs)).join(", ")} ms), ` +
    "as behind a proxy that serialises them: the target never met the race"
  );
}
