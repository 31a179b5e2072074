/**
 * One callback scenario: an order of a kind is made to enter a status as the profile says (a
 * confirmation code; for expiry, the sandbox clock or the lifetime waited out; or a manual
 * action), and what arrives at its own callback URL on the sink is collected, with the bounds its
 * callbacks' dates are judged against and the conventions its values are read for.
 */
import {
  CALLBACK_STATUSES,
  type CallbackScenario,
  type CallbackStatus,
  callbackPathsOf,
  callbacksSandboxClock,
  callbackValues,
  type DateBound,
  dataOf,
  type Exchange,
  moneyValues,
  ORDER_KINDS,
  type OrderKind,
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
import { LIFETIME_SKEW_MARGIN_MS } from "./support/order-lifetime.ts";
import { type CreatedOrder, confirm, createOrder, orderIdOf } from "./support/orders.ts";
import { neutralToken } from "./support/probes.ts";
import { callbacksAfterQuiet, duplicateWindowMs } from "./support/settle-windows.ts";
import { measuredStall, waitMeasured } from "./support/sink-lateness.ts";
import type { SpecTarget } from "./support/target.ts";

type Profile = SpecTarget["profile"];

export interface Observed {
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
function conventionsOf(
  profile: Profile,
  order: CreatedOrder,
  evidence: Exchange[],
  callbacks: StoredCallback[],
): Conventions {
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
function triggerDelayMs(profile: Profile, status: CallbackStatus): number {
  const trigger = profile.callbackTriggers[status];
  if ("unconfirmedForSeconds" in trigger)
    return profile.sandboxClock === "required" ? 0 : trigger.unconfirmedForSeconds * 1000;
  if ("manual" in trigger) return trigger.waitSeconds * 1000;
  return 0;
}

/** What arrived for one order, as the report's callback timeline shows it. */
export function timelineOf(
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
export const sentAtMs = (exchange: Exchange) => Date.parse(exchange.startedAt);
/**
 * When its answer was received, in whole ms (startedAt keeps whole ms, durationMs a tenth): the
 * latest the event can happen, rounded up, as the sink's queries take whole ms.
 */
export const answeredAtMs = (exchange: Exchange) =>
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
  profile: Profile,
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
async function advanceClock(
  target: SpecTarget,
  orderId: string,
  seconds: number,
): Promise<NonNullable<Observed["clock"]>> {
  try {
    const exchange = await target.client().post(SANDBOX_CLOCK_ADVANCE_PATH, { seconds, orderId });
    return { response: exchange.response, exchange };
  } catch (error) {
    if (error instanceof TransportError) return { error: error.message };
    throw error;
  }
}

/** Makes one order of `kind` enter `status`, then collects what arrived at its callback URL. */
export async function observe(
  target: SpecTarget,
  kind: OrderKind,
  status: CallbackStatus,
): Promise<Observed> {
  const { profile } = target;
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
      clock = await advanceClock(target, orderId, trigger.unconfirmedForSeconds + 1);
      if (clock.exchange) evidence.push(clock.exchange);
      advanced = clock.response?.status === 200;
      if (!advanced) {
        const answer = clock.error ?? `HTTP ${clock.response?.status}`;
        if (profile.sandboxClock === "required") {
          return {
            scenario: emptyScenario(profile, kind, orderId, status, order),
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
    target.say(
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
    ...emptyScenario(profile, kind, orderId, status, order),
    callbacks: callbacks.map((c) => target.observed(c)),
    triggeredAtMs,
    ...(triggeredByMs !== undefined ? { triggeredByMs } : {}),
    timeoutMs,
    stallMs,
    callbackMs: profile.timeouts.callbackMs,
    earlyToleranceMs,
    datesNotBefore: dateBoundsOf(profile, order, status, {
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
    conventions: conventionsOf(profile, order, evidence, callbacks),
    webHook,
    arrivedAt: callbacks.map((c) => neutralToken(c.path)),
  };
}

/** What a scenario is judged against, before anything arrived. */
export function emptyScenario(
  profile: Profile,
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
      ...callbackPathsOf(profile.callbacks),
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

/** The longest a status scenario waits for its callbacks: its trigger at the latest, then the profile's timeout. */
export function longestWaitMs(profile: Profile): number {
  return (
    Math.max(...CALLBACK_STATUSES.map((status) => triggerDelayMs(profile, status))) +
    profile.timeouts.callbackMs
  );
}
