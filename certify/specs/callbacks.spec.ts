/**
 * Callbacks (seed §6), for both order kinds and each of the four statuses: the order is made to
 * enter the status as the profile says (a confirmation code; for `expired`, no confirmation and
 * the sandbox clock where the target has one, otherwise waiting), and what arrives at the order's
 * own callback URL on the webhook sink is checked. Then one callback the sink keeps refusing
 * shows the target's retry behaviour.
 */
import { beforeAll, describe, it } from "vitest";
import type { Check, Exchange, OrderKind } from "../../contract/index.ts";
import {
  CALLBACK_STATUSES,
  type CallbackScenario,
  type CallbackStatus,
  callbacksAppealAfterFailure,
  callbacksArrives,
  callbacksBodyParses,
  callbacksExactlyOnce,
  callbacksMatchesOrder,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksRetryPolicy,
  callbacksSignatureValid,
  ORDER_KINDS,
  SANDBOX_CLOCK_ADVANCE_PATH,
  STATUS,
} from "../../contract/index.ts";
import { ORDER_KIND_TAGS } from "../../fixtures/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import type { CallbackTimeline } from "../run-context.ts";
import { confirm, createOrder, orderIdOf } from "./support/orders.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
/** After the expected callbacks arrived, how long to keep listening for duplicates. */
const SETTLE_MS = 500;

interface Observed {
  scenario: CallbackScenario;
  timeline: CallbackTimeline;
  evidence: Exchange[];
}

/** How long after the scenario starts the status is entered at the latest, in ms. */
function triggerDelayMs(status: CallbackStatus): number {
  const trigger = profile.callbackTriggers[status];
  if ("unconfirmedForSeconds" in trigger)
    return profile.sandboxClock ? 0 : trigger.unconfirmedForSeconds * 1000;
  if ("manual" in trigger) return trigger.waitSeconds * 1000;
  return 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What arrived for one order, as the report's callback timeline shows it. */
function timelineOf(
  orderId: string,
  scenario: string,
  triggeredAtMs: number,
  callbacks: StoredCallback[],
): CallbackTimeline {
  return {
    orderId,
    scenario,
    triggeredAt: new Date(triggeredAtMs).toISOString(),
    deliveries: callbacks.map((c) => ({
      status: c.status ?? "(none)",
      arrivedAfterMs: c.receivedAtMs - triggeredAtMs,
      delivery: c.deliveryOfOrder,
      answeredWith: c.answeredWith,
      signature: c.signature,
    })),
  };
}

function toObserved(callback: StoredCallback) {
  return {
    json: callback.json,
    receivedAtMs: callback.receivedAtMs,
    signature: callback.signature,
    answeredWith: callback.answeredWith,
  };
}

/** Makes one order of `kind` enter `status`, then collects what arrived at its callback URL. */
async function observe(kind: OrderKind, status: CallbackStatus): Promise<Observed> {
  const sink = target.sink();
  const tag = `${target.runId}.${ORDER_KIND_TAGS[kind]}.${status}`;
  const order = await createOrder(target, kind, { merchantOrderID: true, webHook: sink.callbackUrl(tag) });
  const orderId = orderIdOf(order);
  const client = target.client();
  const trigger = profile.callbackTriggers[status];
  const evidence: Exchange[] = [order.exchange];
  let triggeredAtMs = Date.now();

  if ("code" in trigger) {
    evidence.push(await confirm(client, kind, orderId, trigger.code));
    triggeredAtMs = Date.now();
  } else if ("unconfirmedForSeconds" in trigger) {
    let advanced = false;
    if (profile.sandboxClock) {
      const clock = await client.post(SANDBOX_CLOCK_ADVANCE_PATH, {
        seconds: trigger.unconfirmedForSeconds + 1,
        orderId,
      });
      evidence.push(clock);
      advanced = clock.response.status === 200;
    }
    // Without the clock the order expires on its own; its lifetime counts from creation.
    triggeredAtMs = advanced
      ? Date.now()
      : Date.parse(order.exchange.startedAt) + trigger.unconfirmedForSeconds * 1000;
  } else {
    console.log(
      `ACTION NEEDED for ${kind} order ${orderId} to enter ${status}: ${trigger.manual} (waiting ${trigger.waitSeconds} s)`,
    );
    triggeredAtMs = Date.now();
  }

  const timeoutMs = profile.timeouts.callbackMs + ("manual" in trigger ? trigger.waitSeconds * 1000 : 0);
  const deadline = triggeredAtMs + timeoutMs;
  const remaining = () => Math.max(0, deadline - Date.now());
  const first = await sink.client.waitFor({ runId: tag }, { timeoutMs: remaining() });
  if (status === STATUS.succeeded_by_appeal && !first.callbacks.some((c) => c.status === status)) {
    // The appeal follows a failed_by_terminal callback, if the target sends one: wait for the appeal itself.
    await sink.client.waitFor({ runId: tag, status }, { timeoutMs: remaining() });
  }
  if (!first.timedOut) await sleep(SETTLE_MS);
  const callbacks = await sink.client.list({ runId: tag });

  const method = profile.methods[kind];
  const scenario: CallbackScenario = {
    orderId,
    statusEntered: status,
    callbacks: callbacks.map(toObserved),
    triggeredAtMs,
    timeoutMs,
    paths: {
      id: profile.callbacks.idPath,
      status: profile.callbacks.statusPath,
      ...(profile.callbacks.amountPath ? { amount: profile.callbacks.amountPath } : {}),
      ...(profile.callbacks.currencyPath ? { currency: profile.callbacks.currencyPath } : {}),
      ...(profile.callbacks.merchantOrderIdPath
        ? { merchantOrderId: profile.callbacks.merchantOrderIdPath }
        : {}),
    },
    order: {
      amount: Number(order.request.amount),
      currency: method.currency,
      merchantOrderID:
        typeof order.request.merchantOrderID === "string" ? order.request.merchantOrderID : null,
    },
    signed: profile.callbacks.signature.scheme !== "none",
  };
  const timeline = timelineOf(orderId, `${kind} → ${status}`, triggeredAtMs, callbacks);
  return { scenario, timeline, evidence };
}

const longestWaitMs = Math.max(...CALLBACK_STATUSES.map(triggerDelayMs)) + profile.timeouts.callbackMs;
const SCENARIO_CHECKS: Check<CallbackScenario>[] = [
  callbacksArrives,
  callbacksBodyParses,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksSignatureValid,
  callbacksMatchesOrder,
  callbacksExactlyOnce,
];

interface RetryObserved {
  attemptsAtMs: number[];
  evidence: Exchange[];
  timeline: CallbackTimeline;
}

const retryPolicy = profile.callbacks.retryPolicy;
const retryWaitMs =
  (retryPolicy ? retryPolicy.delaysMs.reduce((sum, d) => sum + d, 0) : 0) + profile.timeouts.callbackMs;

/** One order whose every delivery the sink refuses (503), so every attempt the target makes shows. */
async function observeRetries(): Promise<RetryObserved> {
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
  const triggeredAtMs = Date.now();
  const result = await sink.client.waitFor(
    { runId: tag },
    { timeoutMs: retryWaitMs, minCount: retryPolicy?.attempts ?? 2 },
  );
  if (!result.timedOut) await sleep(SETTLE_MS);
  const callbacks = await sink.client.list({ runId: tag });
  return {
    attemptsAtMs: callbacks.map((c) => c.receivedAtMs),
    evidence: [order.exchange, confirmed],
    timeline: timelineOf(
      orderIdOf(order),
      "mobile_commerce → succeeded, every delivery refused with 503",
      triggeredAtMs,
      callbacks,
    ),
  };
}

/** How the report titles each kind's callback block. */
const KIND_TITLES: Record<OrderKind, string> = {
  mobile_commerce: "mobile commerce",
  quasi_ecom: "quasi-ecom",
};
const observed = new Map<string, Settled<Observed>>();
let retries: Settled<RetryObserved> | undefined;

// Every scenario runs side by side, each with its own order and callback URL, so the run takes
// as long as the slowest one (the retry schedule), not their sum.
beforeAll(async () => {
  const scenarios = ORDER_KINDS.flatMap((kind) =>
    CALLBACK_STATUSES.map(async (status) =>
      observed.set(`${kind}:${status}`, await settle(observe(kind, status))),
    ),
  );
  const [observedRetries] = await Promise.all([settle(observeRetries()), ...scenarios]);
  retries = observedRetries;
}, Math.max(longestWaitMs, retryWaitMs) + 30_000);

for (const kind of ORDER_KINDS) {
  describe(`callbacks (${KIND_TITLES[kind]})`, () => {
    for (const status of CALLBACK_STATUSES) {
      const checks =
        status === STATUS.succeeded_by_appeal
          ? [...SCENARIO_CHECKS, callbacksAppealAfterFailure]
          : SCENARIO_CHECKS;
      for (const check of checks) {
        it(titled(check, status), (ctx) => {
          const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
          verify(
            ctx,
            target,
            check,
            seen.scenario,
            seen.evidence,
            check === callbacksArrives ? { timeline: seen.timeline } : {},
          );
        });
      }
    }
  });
}

describe("callbacks (retries)", () => {
  it(callbacksRetryPolicy.name, (ctx) => {
    const seen = settledValue(retries, "the retry scenario");
    verify(
      ctx,
      target,
      callbacksRetryPolicy,
      { attemptsAtMs: seen.attemptsAtMs, policy: retryPolicy },
      seen.evidence,
      {
        ...(retryPolicy
          ? {}
          : { informationalReason: "the profile declares no retry policy: observed, not judged" }),
        timeline: seen.timeline,
      },
    );
  });
});
