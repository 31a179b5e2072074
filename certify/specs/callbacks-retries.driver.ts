/**
 * The retry scenario: one order whose every delivery the sink refuses (503), so that every
 * attempt the target makes shows, with the stalls that may blur the intervals between them.
 */
import type { CallbackScenario, Exchange } from "../../contract/index.ts";
import { STATUS } from "../../contract/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import type { CallbackTimeline } from "../engine/run-context.ts";
import { callbackId } from "../reports/callback-evidence.ts";
import { answeredAtMs, emptyScenario, sentAtMs, timelineOf } from "./callbacks-observe.driver.ts";
import { confirm, createOrder, orderIdOf } from "./support/orders.ts";
import { callbacksAfterQuiet, extraAttemptWindowMs } from "./support/settle-windows.ts";
import { measuredStall, sinkLatenessMs, waitMeasured } from "./support/sink-lateness.ts";
import type { SpecTarget } from "./support/target.ts";

export interface RetryObserved {
  attemptsAtMs: number[];
  /** How late the sink may have stamped those attempts (its own longest stall meanwhile). */
  observerStallMs: number;
  /** For each retry, the machine's CPU stall measured over the interval before it (0 for a remote target). */
  machineStallMs: number[];
  targetOnThisHost: boolean;
  evidence: Exchange[];
  callbacks: string[];
  timeline: CallbackTimeline;
  /** Every delivery, the retries' included, as the callback checks read them. */
  scenario: CallbackScenario;
}

/** How long the retry scenario waits for every attempt: the policy's delays, then the profile's timeout. */
export function retryWaitMs(profile: SpecTarget["profile"]): number {
  const retryPolicy = profile.callbacks.retryPolicy;
  return (
    (retryPolicy ? retryPolicy.delaysMs.reduce((sum, d) => sum + d, 0) : 0) + profile.timeouts.callbackMs
  );
}

/** How far off an interval between two of the sink's stamps of these callbacks may be (sinkLatenessMs). */
async function observerStallMs(
  target: SpecTarget,
  sink: ReturnType<SpecTarget["sink"]>,
  callbacks: StoredCallback[],
) {
  const first = callbacks[0];
  const last = callbacks.at(-1);
  if (!first || !last) return 0;
  return sinkLatenessMs(
    await sink.client.stalls(first.receivedAtMs, last.receivedAtMs),
    target.sharesSinkProcess,
  );
}

/** One order whose every delivery the sink refuses (503), so every attempt the target makes shows. */
export async function observeRetries(target: SpecTarget): Promise<RetryObserved> {
  const { profile } = target;
  const retryPolicy = profile.callbacks.retryPolicy;
  const sink = target.sink();
  const tag = `${target.runId}.retry`;
  const order = await createOrder(target, "mobile_commerce", {
    webHook: sink.callbackUrl(tag, { refuse: 99 }),
  });
  const confirmed = await confirm(
    target.client(),
    "mobile_commerce",
    orderIdOf(order),
    profile.confirmation.successCode,
  );
  const triggeredAtMs = sentAtMs(confirmed);
  // The attempts are this order's deliveries: anything else sent to its URL (a flood, another
  // order's callbacks) retries nothing of it.
  const orderId = orderIdOf(order);
  const result = await waitMeasured(
    sink,
    { runId: tag, orderId },
    {
      fromMs: answeredAtMs(confirmed),
      timeoutMs: retryWaitMs(profile),
      minCount: retryPolicy?.attempts ?? 2,
    },
    target,
  );
  const ofOrder = result.timedOut
    ? await sink.client.list({ runId: tag, orderId })
    : await callbacksAfterQuiet(sink, tag, extraAttemptWindowMs(profile), orderId);
  // Callbacks that carry no id at the profile's idPath, or another spelling of it: all at its URL.
  const callbacks = ofOrder.length > 0 ? ofOrder : await sink.client.list({ runId: tag });
  return {
    attemptsAtMs: callbacks.map((c) => c.receivedAtMs),
    observerStallMs: await observerStallMs(target, sink, callbacks),
    machineStallMs: await Promise.all(
      callbacks
        .slice(1)
        .map(async (c, i) =>
          c.receivedAtMs > (callbacks[i] as StoredCallback).receivedAtMs
            ? (
                await measuredStall(
                  sink,
                  (callbacks[i] as StoredCallback).receivedAtMs,
                  c.receivedAtMs,
                  target,
                )
              ).machineMs
            : 0,
        ),
    ),
    targetOnThisHost: target.onThisHost,
    scenario: {
      ...emptyScenario(profile, "mobile_commerce", orderId, STATUS.succeeded, order),
      callbacks: callbacks.map((c) => target.observed(c)),
      triggeredAtMs,
    },
    evidence: [order.exchange, confirmed],
    callbacks: callbacks.map((c) => callbackId(c.seq)),
    timeline: timelineOf(
      orderIdOf(order),
      "mobile_commerce → succeeded, every delivery refused with 503",
      tag,
      triggeredAtMs,
      callbacks,
    ),
  };
}
