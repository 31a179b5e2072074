/**
 * How long a callback scenario keeps listening after what it waited for arrived, to see what
 * should not come (a duplicate, one attempt too many). The windows come from the target's
 * profile: a second delivery is a redelivery, and the retry policy says when that comes. The
 * listening is a long-poll of the sink: anything that does arrive ends it at once.
 */
import type { Profile } from "../../../contract/index.ts";
import type { StoredCallback } from "../../../webhook-sink/index.ts";
import type { SpecSink } from "./target.ts";

/** The window when the profile declares no retry policy. */
export const UNDECLARED_SETTLE_MS = 500;

/**
 * After a scenario's callbacks arrived, how long a duplicate may still take: the policy's first
 * retry delay and its tolerance (a duplicate is a redelivery).
 */
export function duplicateWindowMs(profile: Profile): number {
  const policy = profile.callbacks.retryPolicy;
  const [first] = policy?.delaysMs ?? [];
  return policy && first !== undefined ? first + policy.toleranceMs : UNDECLARED_SETTLE_MS;
}

/**
 * After the policy's attempts arrived at a sink that refuses them all, how long one more attempt
 * may still take: the policy's longest delay and its tolerance.
 */
export function extraAttemptWindowMs(profile: Profile): number {
  const policy = profile.callbacks.retryPolicy;
  return policy && policy.delaysMs.length > 0
    ? Math.max(...policy.delaysMs) + policy.toleranceMs
    : UNDECLARED_SETTLE_MS;
}

/** Every callback of `tag`, once none more arrived within `windowMs` (or one more did). */
export async function callbacksAfterQuiet(
  sink: SpecSink,
  tag: string,
  windowMs: number,
  /** Only this order's callbacks (others at the same URL are not its deliveries). */
  orderId?: string,
): Promise<StoredCallback[]> {
  const filter = { runId: tag, ...(orderId === undefined ? {} : { orderId }) };
  const sofar = await sink.client.list(filter);
  if (windowMs > 0) await sink.client.waitFor(filter, { timeoutMs: windowMs, minCount: sofar.length + 1 });
  return sink.client.list(filter);
}
