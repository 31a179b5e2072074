/**
 * Callbacks (api §6), for both order kinds and each of the four statuses: the order is made to
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
  callbacksDateNotBeforeTrigger,
  callbacksExactlyOnce,
  callbacksExactUrl,
  callbacksMatchesOrder,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksNotBeforeTrigger,
  callbacksRetryPolicy,
  callbacksSandboxClock,
  callbacksSignatureValid,
  callbacksStopsAfterAcknowledgement,
  callbacksStrictJson,
  callbackValues,
  type DateBound,
  dataOf,
  fieldsDateFraction,
  fieldsDateOffset,
  fieldsMoneyPrecision,
  fieldsOneDateFormat,
  moneyValues,
  ORDER_KINDS,
  recordDates,
  SANDBOX_CLOCK_ADVANCE_PATH,
  type SandboxClockAnswer,
  STATUS,
  TransportError,
} from "../../contract/index.ts";
import { ORDER_KIND_TAGS } from "../../fixtures/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import type { BlockedBy, CallbackTimeline } from "../engine/run-context.ts";
import { callbackId } from "../reports/callback-evidence.ts";
import { hookTimeoutFor, withinMeasuredBudget } from "./support/measured-budget.ts";
import { LIFETIME_SKEW_MARGIN_MS } from "./support/order-lifetime.ts";
import { type CreatedOrder, confirm, createOrder, orderIdOf } from "./support/orders.ts";
import { neutralToken, requestTargetOf } from "./support/probes.ts";
import { callbacksAfterQuiet, duplicateWindowMs, extraAttemptWindowMs } from "./support/settle-windows.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { measuredStall, sinkLatenessMs, waitMeasured } from "./support/sink-lateness.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;

interface Observed {
  scenario: CallbackScenario;
  timeline: CallbackTimeline;
  evidence: Exchange[];
  /** Ids of the callbacks that arrived at the order's URL (`callback-<seq>`). */
  callbacks: string[];
  /** For an expiry through the sandbox clock: what the clock answered. */
  clock?: SandboxClockAnswer & { exchange?: Exchange };
  /** Why the scenario's checks cannot be evaluated (a required sandbox clock that failed). */
  blockedBy?: BlockedBy;
  /** The order's dates and money values, its callbacks' included, for the declared conventions. */
  conventions?: Conventions;
  /** The order's metadata.webHook, and the request target each callback arrived at. */
  webHook?: string;
  arrivedAt?: string[];
}

interface Conventions {
  dates: ReturnType<typeof recordDates>;
  money: ReturnType<typeof moneyValues>;
}

/** The success statuses a merchant may acknowledge with: each scenario's sink answers with one. */
const ACKNOWLEDGEMENTS = [200, 201, 202, 204] as const;
/** Each kind's scenarios acknowledge with every 2xx, and each status with two of them. */
function acknowledgementFor(kind: OrderKind, status: CallbackStatus): number {
  const index = CALLBACK_STATUSES.indexOf(status) + 2 * ORDER_KINDS.indexOf(kind);
  return ACKNOWLEDGEMENTS[index % ACKNOWLEDGEMENTS.length] as number;
}

/**
 * Half the scenarios write the webHook's path ending in "/", as many merchants' routes are
 * written: the callback must come to that path, slash and all.
 */
function webHookFor(url: string, kind: OrderKind, status: CallbackStatus): string {
  const slash = (CALLBACK_STATUSES.indexOf(status) + ORDER_KINDS.indexOf(kind)) % 2 === 0;
  return slash ? `${url}/` : url;
}

/** The record's and the confirmation's dates and money, then each callback's. */
function conventionsOf(order: CreatedOrder, evidence: Exchange[], callbacks: StoredCallback[]): Conventions {
  const { money } = profile.conventions;
  const record = dataOf(order.exchange.response.json);
  const confirmations = evidence.slice(1).map((e) => dataOf(e.response.json));
  const fromCallbacks = callbackValues(
    callbacks.map((c) => c.json),
    { dateUpdated: profile.callbacks.dateUpdatedPath, amount: profile.callbacks.amountPath },
    money,
  );
  return {
    dates: [...recordDates(record), ...fromCallbacks.dates],
    money: [
      ...moneyValues(record, money),
      ...confirmations.flatMap((result) => moneyValues(result, money, "confirmation data")),
      ...fromCallbacks.money,
    ],
  };
}

/**
 * How long after the scenario starts the status is entered at the latest, in ms. A declared
 * (not required) sandbox clock may fail, and the suite then waits out the lifetime: that bounds it.
 */
function triggerDelayMs(status: CallbackStatus): number {
  const trigger = profile.callbackTriggers[status];
  if ("unconfirmedForSeconds" in trigger)
    return profile.sandboxClock === "required" ? 0 : trigger.unconfirmedForSeconds * 1000;
  if ("manual" in trigger) return trigger.waitSeconds * 1000;
  return 0;
}

/** What arrived for one order, as the report's callback timeline shows it. */
function timelineOf(
  orderId: string,
  scenario: string,
  tag: string,
  triggeredAtMs: number,
  callbacks: StoredCallback[],
): CallbackTimeline {
  return {
    orderId,
    scenario,
    tag,
    triggeredAt: new Date(triggeredAtMs).toISOString(),
    deliveries: callbacks.map((c) => ({
      status: c.status ?? "(none)",
      arrivedAfterMs: c.receivedAtMs - triggeredAtMs,
      delivery: c.deliveryOfOrder,
      answeredWith: c.answeredWith,
      signature: c.signature,
      callback: callbackId(c.seq),
    })),
  };
}

/** When a request was sent, in ms: the earliest the event it triggers can happen. */
const sentAtMs = (exchange: Exchange) => Date.parse(exchange.startedAt);
/**
 * When its answer was received, in whole ms (startedAt keeps whole ms, durationMs a tenth): the
 * latest the event can happen, rounded up, as the sink's queries take whole ms.
 */
const answeredAtMs = (exchange: Exchange) =>
  Date.parse(exchange.startedAt) + Math.ceil(exchange.durationMs) + 1;

/** A lifetime counted on the target's own clock may end up to a tick early. */
const LIFETIME_TOLERANCE_MS = 1_000;

/** A date written in whole seconds can read up to this much before the moment it stands for. */
const DATE_RESOLUTION_MS = 1_000;

/**
 * The earliest a callback's date may say: the trigger (the suite's clock, with the clocks' skew),
 * the creation record's last update and, for expiry, its creation plus the declared lifetime
 * (both on the target's own clock, the dates it wrote).
 */
function dateBoundsOf(
  order: CreatedOrder,
  status: CallbackStatus,
  trigger: { atMs: number; what: string; earlyToleranceMs: number },
): DateBound[] {
  const bounds: DateBound[] = [
    {
      atMs: trigger.atMs,
      what: trigger.what,
      toleranceMs: LIFETIME_SKEW_MARGIN_MS + DATE_RESOLUTION_MS + trigger.earlyToleranceMs,
    },
  ];
  const record = dataOf(order.exchange.response.json);
  const updatedMs = typeof record?.dateUpdated === "string" ? Date.parse(record.dateUpdated) : Number.NaN;
  if (!Number.isNaN(updatedMs))
    bounds.push({
      atMs: updatedMs,
      what: "the creation record's dateUpdated",
      toleranceMs: DATE_RESOLUTION_MS,
    });
  const addedMs = typeof record?.dateAdded === "string" ? Date.parse(record.dateAdded) : Number.NaN;
  const lifetime = profile.callbackTriggers[status];
  if (!Number.isNaN(addedMs) && "unconfirmedForSeconds" in lifetime)
    bounds.push({
      atMs: addedMs + lifetime.unconfirmedForSeconds * 1000,
      what: `the creation record's dateAdded plus the declared lifetime (${lifetime.unconfirmedForSeconds} s)`,
      toleranceMs: LIFETIME_TOLERANCE_MS + DATE_RESOLUTION_MS,
    });
  return bounds;
}

/** Asks the sandbox clock to move one order past its lifetime; a failure is kept, not thrown. */
async function advanceClock(orderId: string, seconds: number): Promise<NonNullable<Observed["clock"]>> {
  try {
    const exchange = await target.client().post(SANDBOX_CLOCK_ADVANCE_PATH, { seconds, orderId });
    return { response: exchange.response, exchange };
  } catch (error) {
    if (error instanceof TransportError) return { error: error.message };
    throw error;
  }
}

/** Makes one order of `kind` enter `status`, then collects what arrived at its callback URL. */
async function observe(kind: OrderKind, status: CallbackStatus): Promise<Observed> {
  const sink = target.sink();
  const tag = `${target.runId}.${ORDER_KIND_TAGS[kind]}.${status}`;
  const webHook = webHookFor(sink.callbackUrl(tag, { ack: acknowledgementFor(kind, status) }), kind, status);
  const order = await createOrder(target, kind, { merchantOrderID: true, webHook });
  const orderId = orderIdOf(order);
  const client = target.client();
  const trigger = profile.callbackTriggers[status];
  const evidence: Exchange[] = [order.exchange];
  let triggeredAtMs = Date.now();
  let triggeredByMs: number | undefined;
  let earlyToleranceMs = 0;
  let triggerWhat = "the manual action was asked for";
  let clock: Observed["clock"];

  if ("code" in trigger) {
    const confirmation = await confirm(client, kind, orderId, trigger.code);
    evidence.push(confirmation);
    triggeredAtMs = sentAtMs(confirmation);
    triggeredByMs = answeredAtMs(confirmation);
    triggerWhat = "the confirmation was sent";
  } else if ("unconfirmedForSeconds" in trigger) {
    let advanced = false;
    if (profile.sandboxClock) {
      clock = await advanceClock(orderId, trigger.unconfirmedForSeconds + 1);
      if (clock.exchange) evidence.push(clock.exchange);
      advanced = clock.response?.status === 200;
      if (!advanced) {
        const answer = clock.error ?? `HTTP ${clock.response?.status}`;
        if (profile.sandboxClock === "required") {
          return {
            scenario: emptyScenario(kind, orderId, status, order),
            timeline: timelineOf(orderId, `${kind} → ${status}`, tag, Date.now(), []),
            evidence,
            callbacks: [],
            clock,
            blockedBy: {
              check: callbacksSandboxClock.name,
              case: status,
              reason: `the sandbox clock the profile requires did not move the order's clock (${answer})`,
            },
          };
        }
        target.warn(
          `the profile declares a sandbox clock, but POST ${SANDBOX_CLOCK_ADVANCE_PATH} answered ${answer}: ` +
            `the ${status} scenarios wait out the order's lifetime (${trigger.unconfirmedForSeconds} s) instead. ` +
            `Set "sandboxClock": false if the target has none, or "required" to make this a failure.`,
        );
      }
    }
    if (advanced && clock?.exchange) {
      triggeredAtMs = sentAtMs(clock.exchange);
      triggeredByMs = answeredAtMs(clock.exchange);
      triggerWhat = "the sandbox clock was moved";
    } else {
      // Without the clock the order expires on its own; its lifetime counts from creation.
      triggeredAtMs = sentAtMs(order.exchange) + trigger.unconfirmedForSeconds * 1000;
      triggeredByMs = answeredAtMs(order.exchange) + trigger.unconfirmedForSeconds * 1000;
      earlyToleranceMs = LIFETIME_TOLERANCE_MS;
      triggerWhat = "the order's lifetime ran out";
    }
  } else {
    console.log(
      `ACTION NEEDED for ${kind} order ${orderId} to enter ${status}: ${trigger.manual} (waiting ${trigger.waitSeconds} s)`,
    );
    triggeredAtMs = Date.now();
  }

  const timeoutMs = profile.timeouts.callbackMs + ("manual" in trigger ? trigger.waitSeconds * 1000 : 0);
  // The profile's timeout, and as long again as the suite was measured stalled meanwhile.
  const wait = { fromMs: triggeredByMs ?? triggeredAtMs, timeoutMs };
  const first = await waitMeasured(sink, { runId: tag }, wait, target);
  if (status === STATUS.succeeded_by_appeal && !first.timedOut) {
    // The appeal follows a failed_by_terminal callback, if the target sends one: wait for the appeal itself.
    await waitMeasured(sink, { runId: tag, status }, wait, target);
  }
  const callbacks = first.timedOut
    ? await sink.client.list({ runId: tag })
    : await callbacksAfterQuiet(sink, tag, duplicateWindowMs(profile));
  // A callback later than the timeout is judged with the stall measured until it came (the
  // machine's only for a target on this host; the check caps it at callbackMs).
  const firstArrival = callbacks[0]?.receivedAtMs;
  const stallMs =
    firstArrival === undefined || firstArrival - triggeredAtMs > timeoutMs
      ? (await measuredStall(sink, triggeredAtMs, firstArrival ?? Date.now(), target)).totalMs
      : 0;

  const scenario: CallbackScenario = {
    ...emptyScenario(kind, orderId, status, order),
    callbacks: callbacks.map((c) => target.observed(c)),
    triggeredAtMs,
    ...(triggeredByMs !== undefined ? { triggeredByMs } : {}),
    timeoutMs,
    stallMs,
    callbackMs: profile.timeouts.callbackMs,
    earlyToleranceMs,
    datesNotBefore: dateBoundsOf(order, status, {
      atMs: triggeredAtMs,
      what: triggerWhat,
      earlyToleranceMs,
    }),
  };
  const timeline = timelineOf(orderId, `${kind} → ${status}`, tag, triggeredAtMs, callbacks);
  return {
    scenario,
    timeline,
    evidence,
    callbacks: callbacks.map((c) => callbackId(c.seq)),
    ...(clock ? { clock } : {}),
    conventions: conventionsOf(order, evidence, callbacks),
    webHook,
    arrivedAt: callbacks.map((c) => neutralToken(c.path)),
  };
}

/** What a scenario is judged against, before anything arrived. */
function emptyScenario(
  kind: OrderKind,
  orderId: string,
  status: CallbackStatus,
  order: CreatedOrder,
): CallbackScenario {
  const method = profile.methods[kind];
  return {
    orderId,
    statusEntered: status,
    callbacks: [],
    triggeredAtMs: Date.now(),
    timeoutMs: profile.timeouts.callbackMs,
    paths: {
      id: profile.callbacks.idPath,
      status: profile.callbacks.statusPath,
      ...(profile.callbacks.amountPath ? { amount: profile.callbacks.amountPath } : {}),
      ...(profile.callbacks.currencyPath ? { currency: profile.callbacks.currencyPath } : {}),
      ...(profile.callbacks.merchantOrderIdPath
        ? { merchantOrderId: profile.callbacks.merchantOrderIdPath }
        : {}),
      ...(profile.callbacks.dateUpdatedPath ? { dateUpdated: profile.callbacks.dateUpdatedPath } : {}),
    },
    order: {
      amount: Number(order.request.amount),
      currency: method.currency,
      merchantOrderID:
        typeof order.request.merchantOrderID === "string" ? order.request.merchantOrderID : null,
    },
    signed: profile.callbacks.signature.scheme !== "none",
  };
}

const longestWaitMs = Math.max(...CALLBACK_STATUSES.map(triggerDelayMs)) + profile.timeouts.callbackMs;
const SCENARIO_CHECKS: Check<CallbackScenario>[] = [
  callbacksArrives,
  callbacksNotBeforeTrigger,
  callbacksDateNotBeforeTrigger,
  callbacksBodyParses,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksSignatureValid,
  callbacksStrictJson,
  callbacksMatchesOrder,
  callbacksExactlyOnce,
  callbacksStopsAfterAcknowledgement,
];

/** The checks that read a callback's body: none can judge when no body is a JSON object. */
const READS_THE_BODY: ReadonlySet<Check<CallbackScenario>> = new Set([
  callbacksNamesOrder,
  callbacksDateNotBeforeTrigger,
  callbacksNamesStatus,
  callbacksMatchesOrder,
  callbacksExactlyOnce,
  callbacksAppealAfterFailure,
  callbacksStopsAfterAcknowledgement,
]);
const isJsonObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);

interface RetryObserved {
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

const retryPolicy = profile.callbacks.retryPolicy;
const retryWaitMs =
  (retryPolicy ? retryPolicy.delaysMs.reduce((sum, d) => sum + d, 0) : 0) + profile.timeouts.callbackMs;

/** How far off an interval between two of the sink's stamps of these callbacks may be (sinkLatenessMs). */
async function observerStallMs(sink: ReturnType<typeof target.sink>, callbacks: StoredCallback[]) {
  const first = callbacks[0];
  const last = callbacks.at(-1);
  if (!first || !last) return 0;
  return sinkLatenessMs(
    await sink.client.stalls(first.receivedAtMs, last.receivedAtMs),
    target.sharesSinkProcess,
  );
}

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
  const triggeredAtMs = sentAtMs(confirmed);
  // The attempts are this order's deliveries: anything else sent to its URL (a flood, another
  // order's callbacks) retries nothing of it.
  const orderId = orderIdOf(order);
  const result = await waitMeasured(
    sink,
    { runId: tag, orderId },
    { fromMs: answeredAtMs(confirmed), timeoutMs: retryWaitMs, minCount: retryPolicy?.attempts ?? 2 },
    target,
  );
  const ofOrder = result.timedOut
    ? await sink.client.list({ runId: tag, orderId })
    : await callbacksAfterQuiet(sink, tag, extraAttemptWindowMs(profile), orderId);
  // Callbacks that carry no id at the profile's idPath, or another spelling of it: all at its URL.
  const callbacks = ofOrder.length > 0 ? ofOrder : await sink.client.list({ runId: tag });
  return {
    attemptsAtMs: callbacks.map((c) => c.receivedAtMs),
    observerStallMs: await observerStallMs(sink, callbacks),
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
      ...emptyScenario("mobile_commerce", orderId, STATUS.succeeded, order),
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

/** How the report titles each kind's callback block. */
const KIND_TITLES: Record<OrderKind, string> = {
  mobile_commerce: "mobile commerce",
  quasi_ecom: "quasi-ecom",
};
const observed = new Map<string, Settled<Observed>>();
let retries: Settled<RetryObserved> | undefined;

// Every scenario runs side by side, each with its own order and callback URL, so the run takes
// as long as the slowest one (the retry schedule), not their sum.
// Bounded by the profile's waits plus the suite's measured stall, not by a fixed timeout that a
// loaded machine reaches with a correct target.
const setupBudgetMs = Math.max(longestWaitMs, retryWaitMs) + 30_000;
beforeAll(
  async () => {
    const scenarios = ORDER_KINDS.flatMap((kind) =>
      CALLBACK_STATUSES.map(async (status) =>
        observed.set(`${kind}:${status}`, await settle(observe(kind, status))),
      ),
    );
    const [observedRetries] = await withinMeasuredBudget(
      target,
      setupBudgetMs,
      "the callback scenarios",
      Promise.all([settle(observeRetries()), ...scenarios]),
    );
    retries = observedRetries;
  },
  hookTimeoutFor(target, setupBudgetMs),
);

for (const kind of ORDER_KINDS) {
  describe(`callbacks (${KIND_TITLES[kind]})`, () => {
    for (const status of CALLBACK_STATUSES) {
      const checks =
        status === STATUS.succeeded_by_appeal
          ? [...SCENARIO_CHECKS, callbacksAppealAfterFailure]
          : SCENARIO_CHECKS;
      if (profile.sandboxClock && "unconfirmedForSeconds" in profile.callbackTriggers[status]) {
        it(titled(callbacksSandboxClock, status), (ctx) => {
          const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
          verify(
            ctx,
            target,
            callbacksSandboxClock,
            seen.clock ?? {},
            seen.clock?.exchange ? [seen.clock.exchange] : [],
            {
              subject: null,
              ...(profile.sandboxClock === "required"
                ? {}
                : {
                    informationalReason:
                      'the profile declares the clock optional ("sandboxClock": true): when it fails, the suite warns and waits out the lifetime',
                  }),
            },
          );
        });
      }
      for (const check of checks) {
        it(titled(check, status), (ctx) => {
          const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
          // One cause per failure: with no callback at all, only callbacks.arrives judges; with no
          // body that is a JSON object, only body-parses (and what reads no body) does.
          const arrived = seen.scenario.callbacks;
          const blockedBy =
            seen.blockedBy ??
            (check !== callbacksArrives && arrived.length === 0
              ? {
                  check: callbacksArrives.name,
                  case: status,
                  reason: `no callback arrived for the ${kind} order that entered ${status}`,
                }
              : READS_THE_BODY.has(check) && arrived.length > 0 && !arrived.some((c) => isJsonObject(c.json))
                ? {
                    check: callbacksBodyParses.name,
                    case: status,
                    reason: `no callback body for the ${kind} order that entered ${status} is a JSON object`,
                  }
                : undefined);
          verify(ctx, target, check, seen.scenario, seen.evidence, {
            subject: null,
            callbacks: seen.callbacks,
            ...(blockedBy ? { blockedBy } : {}),
            ...(check === callbacksArrives ? { timeline: seen.timeline } : {}),
          });
        });
      }
      it(titled(callbacksExactUrl, status), (ctx) => {
        const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
        const arrived = seen.arrivedAt ?? [];
        const blockedBy =
          seen.blockedBy ??
          (arrived.length === 0
            ? {
                check: callbacksArrives.name,
                case: status,
                reason: `no callback arrived for the ${kind} order that entered ${status}`,
              }
            : undefined);
        verify(
          ctx,
          target,
          callbacksExactUrl,
          { expected: requestTargetOf(seen.webHook ?? "http://sink.invalid/"), received: arrived },
          seen.evidence,
          { subject: null, callbacks: seen.callbacks, ...(blockedBy ? { blockedBy } : {}) },
        );
      });
      // The declared conventions, on the order's record, its confirmation and every callback body.
      for (const check of [fieldsDateOffset, fieldsDateFraction, fieldsOneDateFormat]) {
        it(titled(check, status), (ctx) => {
          const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
          const dates = seen.conventions?.dates ?? [];
          verify(ctx, target, check, { dates, convention: profile.conventions.dates }, seen.evidence, {
            subject: null,
            callbacks: seen.callbacks,
          });
        });
      }
      it(titled(fieldsMoneyPrecision, status), (ctx) => {
        const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
        verify(ctx, target, fieldsMoneyPrecision, { values: seen.conventions?.money ?? [] }, seen.evidence, {
          subject: null,
          callbacks: seen.callbacks,
        });
      });
    }
  });
}

describe("callbacks (retries)", () => {
  // The first attempt and every retry are each signed over their own bytes.
  it(titled(callbacksSignatureValid, "every delivery, retries included"), (ctx) => {
    const seen = settledValue(retries, "the retry scenario");
    verify(ctx, target, callbacksSignatureValid, seen.scenario, seen.evidence, {
      subject: null,
      callbacks: seen.callbacks,
      timeline: seen.timeline,
    });
  });
  it(callbacksRetryPolicy.name, (ctx) => {
    const seen = settledValue(retries, "the retry scenario");
    verify(
      ctx,
      target,
      callbacksRetryPolicy,
      {
        attemptsAtMs: seen.attemptsAtMs,
        policy: retryPolicy,
        observerStallMs: seen.observerStallMs,
        machineStallMs: seen.machineStallMs,
        targetOnThisHost: seen.targetOnThisHost,
      },
      seen.evidence,
      {
        subject: null,
        callbacks: seen.callbacks,
        ...(retryPolicy
          ? {}
          : { informationalReason: "the profile declares no retry policy: observed, not judged" }),
        timeline: seen.timeline,
      },
    );
  });
});
