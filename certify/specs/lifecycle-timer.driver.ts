/**
 * The lifecycle's timer probes: two orders, one ahead on its clock (or older), confirmed at the
 * same moment, must answer timers that far apart; and one order confirmed late in its declared
 * lifetime must be accepted, with the timer its age leaves.
 */
import {
  callbacksSandboxClock,
  dataOf,
  type Exchange,
  expectedTimerDrop,
  type MeasuredRequest,
  type OrderKind,
  SANDBOX_CLOCK_ADVANCE_PATH,
  type TimerReads,
} from "../../contract/index.ts";
import { ORDER_KIND_TAGS } from "../../fixtures/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import { type BlockedBy, PrerequisiteError } from "../engine/run-context.ts";
import { type LifecycleContext, waitForCallbacks } from "./lifecycle-context.driver.ts";
import { refusedAfterLifetime } from "./support/order-lifetime.ts";
import { orderRequest } from "./support/orders.ts";
import { sleep } from "./support/probes.ts";

// --- timer ----------------------------------------------------------------------------------------------

export interface TimerRun {
  stayed: unknown;
  moved: unknown;
  /** How far the sandbox clock moved the moved order's clock (s); 0 in real time. */
  seconds: number;
  /** In real time: how long the suite waited between the two creations (s). */
  waitedSeconds: number;
  /** When each order was created and each timer read, as measured. */
  reads: TimerReads;
  evidence: Exchange[];
  /** The confirmations that were not accepted (not 2xx), as `HTTP <status>` by order: no timer to read. */
  refused: string[];
}

/**
 * When a request was sent and its answer received, ms on the suite's clock: what it did on the
 * target happened in between, after Retry-After waits too (the exchange is the last attempt).
 * startedAt keeps whole milliseconds: the answer may come up to one more.
 */
export function measured(exchange: Exchange): MeasuredRequest {
  const sentMs = Date.parse(exchange.startedAt);
  return { sentMs, receivedMs: sentMs + Math.ceil(exchange.durationMs) + 1 };
}

/** Two orders, one of them ahead on its clock (or older), confirmed at the same moment. */
async function timerRun(lc: LifecycleContext, kind: OrderKind): Promise<TimerRun> {
  const { target, profile, lifetimeSeconds } = lc;
  const client = target.client();
  const create = () => client.createOrder(kind, orderRequest(target, kind));
  const idOf = (e: Exchange) => {
    const id = dataOf(e.response.json)?.id;
    if (typeof id !== "string")
      throw new PrerequisiteError(
        `the timer probe's order could not be created (HTTP ${e.response.status})`,
        e.id,
      );
    return id;
  };
  const evidence: Exchange[] = [];
  let seconds = 0;
  let waitedSeconds = 0;
  let older: Exchange;
  let younger: Exchange;
  if (lc.clock.works) {
    seconds = Math.max(1, Math.floor((lifetimeSeconds ?? 30) / 3));
    [younger, older] = await Promise.all([create(), create()]);
    evidence.push(younger, older);
    evidence.push(await client.post(SANDBOX_CLOCK_ADVANCE_PATH, { seconds, orderId: idOf(older) }));
  } else {
    older = await create();
    // Long enough for the drop to stand out of the tolerance and the doubt the reads leave (a
    // confirmation's time, guessed from this creation's, twice over); the older order must outlive it.
    const doubtS = profile.lifecycle.timerToleranceSeconds + (2 * older.durationMs) / 1000;
    waitedSeconds = Math.max(2, Math.min(doubtS, (lifetimeSeconds ?? Number.POSITIVE_INFINITY) / 2));
    await sleep(waitedSeconds * 1000);
    younger = await create();
    evidence.push(older, younger);
  }
  const [stayedAnswer, movedAnswer] = await Promise.all([
    client.confirmOrder(kind, idOf(younger), profile.confirmation.successCode),
    client.confirmOrder(kind, idOf(older), profile.confirmation.successCode),
  ]);
  evidence.push(stayedAnswer, movedAnswer);
  const refused = [
    ...(stayedAnswer.response.status >= 300
      ? [`the younger order's: HTTP ${stayedAnswer.response.status}`]
      : []),
    ...(movedAnswer.response.status >= 300 ? [`the older order's: HTTP ${movedAnswer.response.status}`] : []),
  ];
  const inSeconds = (value: unknown) =>
    typeof value === "number" && profile.lifecycle.timerUnit === "milliseconds" ? value / 1000 : value;
  return {
    stayed: inSeconds(dataOf(stayedAnswer.response.json)?.timer),
    moved: inSeconds(dataOf(movedAnswer.response.json)?.timer),
    seconds,
    waitedSeconds,
    refused,
    reads: {
      stayedCreated: measured(younger),
      movedCreated: measured(older),
      stayedRead: measured(stayedAnswer),
      movedRead: measured(movedAnswer),
    },
    evidence,
  };
}

/**
 * With a sandbox clock, the probe once more (at most {@link TIMER_RUNS} in all) while its reads
 * were so slow that the drop they allow takes in a timer standing still: a busy moment (on either
 * side) blurs one observation, not the next. With a clock or without, once more when a confirmation
 * was not accepted: a timer is read from an accepted one only. Every attempt's exchanges are kept.
 */
const TIMER_RUNS = 3;
export async function judgeableTimerRun(lc: LifecycleContext, kind: OrderKind): Promise<TimerRun> {
  const earlier: Exchange[] = [];
  for (let attempt = 1; ; attempt++) {
    const run = await timerRun(lc, kind);
    const low = expectedTimerDrop(run.seconds, run.reads).least - lc.profile.lifecycle.timerToleranceSeconds;
    const again = run.refused.length > 0 || (low <= 0 && lc.clock.works);
    if (!again || attempt >= (lc.clock.works ? TIMER_RUNS : 2))
      return { ...run, evidence: [...earlier, ...run.evidence] };
    earlier.push(...run.evidence);
  }
}

// --- late in the declared lifetime ----------------------------------------------------------------

/**
 * How far into its declared lifetime an order is confirmed late: past half of it (a target whose
 * orders expire early refuses it), with the rest left for the requests on a loaded machine.
 */
const LATE_PART_OF_LIFETIME = 0.6;
export function lateSecondsOf({ lifetimeSeconds }: LifecycleContext): number | undefined {
  return lifetimeSeconds === undefined
    ? undefined
    : Math.round(lifetimeSeconds * LATE_PART_OF_LIFETIME * 1000) / 1000;
}

/** The success code's final status: the last one its outcome leads to. */
export function successStatusOf({ conventions, profile }: LifecycleContext): string | undefined {
  return conventions.outcomes.find((o) => o.code === profile.confirmation.successCode)?.statuses.at(-1);
}

export interface LateRun {
  creation: Exchange;
  confirmation: Exchange;
  /** How far the sandbox clock moved the order's clock ahead (s); 0 when the age was waited out. */
  movedSeconds: number;
  /** How long the suite waited in real time before confirming (s). */
  waitedSeconds: number;
  /** Refused when the whole lifetime may have passed on a slow machine: why it is not judged. */
  late?: BlockedBy;
  callbacks: StoredCallback[];
  evidence: Exchange[];
}

/**
 * Why the late confirmation cannot be tried, found once the clock is known: a sandbox clock the
 * profile requires that failed, or a wait the run's deadline leaves no room for. Never a pass.
 */
export function latePlan(lc: LifecycleContext): BlockedBy | undefined {
  const { target, profile, lifetimeSeconds, clock } = lc;
  const lateSeconds = lateSecondsOf(lc);
  if (clock.works || lateSeconds === undefined) return undefined;
  const failure = "failure" in clock ? clock.failure : undefined;
  if (profile.sandboxClock === "required")
    return {
      check: callbacksSandboxClock.name,
      reason: `the sandbox clock the profile requires did not move the order's clock (${failure ?? "not asked"}), so no order can be made ${lateSeconds} s old`,
    };
  const needMs = lateSeconds * 1000 + 2 * profile.timeouts.requestMs + profile.timeouts.callbackMs;
  const leftMs = target.deadlineAt - Date.now();
  if (needMs > leftMs)
    return {
      check: "lifecycle.late-confirmation-wait",
      reason:
        `${profile.sandboxClock ? "the sandbox clock failed" : "no sandbox clock"}: confirming an order late in its life means waiting ` +
        `${lateSeconds} s of its ${lifetimeSeconds} s lifetime, and the run's deadline leaves ` +
        `${Math.max(0, Math.floor(leftMs / 1000))} s of the ${Math.ceil(needMs / 1000)} s it needs; give a longer --deadline`,
    };
  return undefined;
}

/**
 * How long to wait, at `nowMs`, before an order is surely `seconds` old: counted from its
 * creation's answer, the latest it can have been made. Counted from the request, a creation
 * answered late (a busy target) left the order younger than the lifetime's late part, and one
 * that expires early passed.
 */
export function lateWaitMs(creation: Exchange, seconds: number, nowMs: number): number {
  return measured(creation).receivedMs + seconds * 1000 - nowMs;
}

/** One order, made `lateSeconds` old on its clock (moved, or waited out), then confirmed with the success code. */
export async function lateRun(lc: LifecycleContext, kind: OrderKind, seconds: number): Promise<LateRun> {
  const { target, profile, lifetimeSeconds, conventions } = lc;
  const successStatus = successStatusOf(lc);
  const client = target.client();
  const tag = `${target.runId}.late.${ORDER_KIND_TAGS[kind]}`;
  const creation = await client.createOrder(
    kind,
    orderRequest(target, kind, { webHook: target.sink().callbackUrl(tag) }),
  );
  const evidence: Exchange[] = [creation];
  const orderId = dataOf(creation.response.json)?.id;
  if (typeof orderId !== "string")
    throw new PrerequisiteError(
      `the late confirmation's order could not be created (HTTP ${creation.response.status})`,
      creation.id,
    );
  let movedSeconds = 0;
  let waitedSeconds = 0;
  if (lc.clock.works) {
    const moved = await client.post(SANDBOX_CLOCK_ADVANCE_PATH, { seconds, orderId });
    evidence.push(moved);
    if (moved.response.status !== 200)
      throw new PrerequisiteError(
        `the sandbox clock did not move the order's clock ${seconds} s ahead (HTTP ${moved.response.status})`,
        moved.id,
      );
    movedSeconds = seconds;
  } else {
    const waitMs = lateWaitMs(creation, seconds, Date.now());
    waitedSeconds = Math.max(0, waitMs) / 1000;
    if (waitMs > 0) await sleep(waitMs);
  }
  const confirmation = await client.confirmOrder(kind, orderId, profile.confirmation.successCode);
  evidence.push(confirmation);
  const late = refusedAfterLifetime({
    lifetimeSeconds,
    movedAheadS: movedSeconds,
    creation,
    step: confirmation,
    what: "the success code was sent late in its life",
    expiredAnswer: profile.errors.invalidOrderState,
  });
  const expectsCallback = successStatus !== undefined && conventions.callbackStatuses.includes(successStatus);
  if (confirmation.response.status === 200 && expectsCallback) await waitForCallbacks(lc, tag, 1);
  const callbacks = expectsCallback ? await target.sink().client.list({ runId: tag }) : [];
  return {
    creation,
    confirmation,
    movedSeconds,
    waitedSeconds,
    ...(late ? { late } : {}),
    callbacks,
    evidence,
  };
}

/** How old the order was when its late confirmation was sent, at least and at most, as measured. */
export function measuredAge(run: LateRun) {
  const created = measured(run.creation);
  const sent = measured(run.confirmation);
  return {
    minElapsedSeconds: Math.max(0, sent.sentMs - created.receivedMs) / 1000,
    maxElapsedSeconds: (sent.receivedMs - created.sentMs) / 1000,
  };
}

/** The late confirmation's steps, for its reproduction. */
export function lateSteps(lc: LifecycleContext, kind: OrderKind, run: LateRun): string[] {
  const { successCode } = lc.profile.confirmation;
  return [
    run.movedSeconds > 0
      ? `create a ${kind} order; move its clock ${run.movedSeconds} s ahead (${SANDBOX_CLOCK_ADVANCE_PATH}); confirm it with ${successCode}`
      : `create a ${kind} order; wait ${run.waitedSeconds.toFixed(1)} s; confirm it with ${successCode}`,
  ];
}

/** The timer probe's steps, for its reproduction. */
export function timerSteps(lc: LifecycleContext, kind: OrderKind, run: TimerRun): string[] {
  return [
    lc.clock.works
      ? `create two ${kind} orders; move the second one's clock ${run.seconds} s ahead (${SANDBOX_CLOCK_ADVANCE_PATH}); confirm both at once`
      : `create a ${kind} order; wait ${run.waitedSeconds.toFixed(1)} s; create another; confirm both at once`,
  ];
}
