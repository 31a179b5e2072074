/**
 * Callback checks (api §6): for an order made to enter a status, what arrived at the order's
 * own callback URL. Where the id and status sit in the body, and the signature scheme, come from
 * the target's profile.
 */

import type { ExchangeResponse } from "../client/index.ts";
import { SANDBOX_CLOCK_ADVANCE_PATH } from "../client/index.ts";
import type { JsonTextReport, SignatureExplanation } from "../schemas/index.ts";
import { readPath, STATUS } from "../schemas/index.ts";
import { defineCheck, fail, isRecord, pass, show } from "./check.ts";

/** One delivery the sink recorded, as the checks see it. */
export interface ObservedCallback {
  json: unknown;
  receivedAtMs: number;
  /** The sink's verdict on the signature. */
  signature: "valid" | "invalid" | "missing" | "malformed" | "not-checked";
  /** Why it failed: the scheme, the value received, the one computed (see explainCallbackSignature). */
  signatureExplained?: SignatureExplanation;
  answeredWith: number;
  /** Set when its bytes break strict JSON where JSON.parse forgives it (contract/schemas/json-text.ts). */
  jsonText?: JsonTextReport;
  /** The body's bytes as text (masked), where kept: a retry's are compared with the first attempt's. */
  body?: string;
}

export interface CallbackScenario {
  orderId: string;
  /** The status the order was made to enter. */
  statusEntered: string;
  /** Every delivery that arrived at this order's callback URL, in arrival order. */
  callbacks: ObservedCallback[];
  /**
   * When the order entered the status at the earliest: the triggering request was sent, or the
   * order's documented lifetime ran out; and how long a callback may take after it.
   */
  triggeredAtMs: number;
  /**
   * When the order entered the status at the latest, as measured: the triggering request's answer
   * received, or the creation's answer received plus the lifetime. A callback is due within
   * `timeoutMs` of that. Default `triggeredAtMs` (the two are one moment).
   */
  triggeredByMs?: number;
  timeoutMs: number;
  /**
   * How long the suite's machine and its sink were measured to be held up while the callback was
   * awaited (ms): a callback that late past `timeoutMs` was slowed by the suite's machine, not the
   * target. Measured, never a fixed margin; 0 when not measured.
   */
  stallMs?: number;
  /**
   * The profile's callbackMs: the most room `stallMs` gives. A target slowed by contention is late
   * by at most the delay it was running, so a loaded machine never excuses a callback many times
   * later than declared. Default `timeoutMs`.
   */
  callbackMs?: number;
  /**
   * How much earlier than `triggeredAtMs` a callback may still come: 0 after a request; a clock
   * tick after a lifetime the target counts on its own clock.
   */
  earlyToleranceMs?: number;
  paths: {
    id: string;
    status: string;
    amount?: string;
    currency?: string;
    merchantOrderId?: string;
    /** Where a callback says when the order entered its status (the order of events, not of arrival). */
    dateUpdated?: string;
  };
  /** What the order was created with. */
  order: { amount: number; currency: string; merchantOrderID: string | null };
  /**
   * The earliest each callback's date (`paths.dateUpdated`) may say: the trigger, the order's
   * earlier dates, its lifetime after creation; each with what it is and the room it is given.
   */
  datesNotBefore?: DateBound[];
  signed: boolean;
}

/**
 * Where the checks read a callback, from the profile's `callbacks`: the id and status, and the
 * order's amount, currency and merchantOrderID where it declares them. (The date, judged against
 * a trigger, is added only where one is known.)
 */
export function callbackPathsOf(callbacks: {
  idPath: string;
  statusPath: string;
  amountPath?: string | undefined;
  currencyPath?: string | undefined;
  merchantOrderIdPath?: string | undefined;
}): CallbackScenario["paths"] {
  return {
    id: callbacks.idPath,
    status: callbacks.statusPath,
    ...(callbacks.amountPath ? { amount: callbacks.amountPath } : {}),
    ...(callbacks.currencyPath ? { currency: callbacks.currencyPath } : {}),
    ...(callbacks.merchantOrderIdPath ? { merchantOrderId: callbacks.merchantOrderIdPath } : {}),
  };
}

export interface DateBound {
  atMs: number;
  /** What the bound is, in words: "the confirmation was sent". */
  what: string;
  /** How much earlier a date may still be: the clocks' skew, the dates' resolution. */
  toleranceMs: number;
}

const statusOf = (scenario: CallbackScenario, callback: ObservedCallback) =>
  readPath(callback.json, scenario.paths.status);
const ofStatus = (scenario: CallbackScenario) =>
  scenario.callbacks.filter((callback) => statusOf(scenario, callback) === scenario.statusEntered);
/** A duration in ms as a detail line shows it: "1.25 s". */
const inSeconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/** An arrival relative to the trigger in words: "0.25 s after the trigger", "9.61 s before the trigger". */
const relative = (ms: number) =>
  ms < 0 ? `${inSeconds(-ms)} before the trigger` : `${inSeconds(ms)} after the trigger`;

export const callbacksArrives = defineCheck<CallbackScenario>(
  "callbacks.arrives",
  "callbacks",
  "A callback arrives at metadata.webHook within the profile's timeout when the order enters a callback status, counted from the latest moment it can have entered it (the trigger's answer received, as measured; §6).",
  (scenario) => {
    const measuredMs = Math.max(0, scenario.stallMs ?? 0);
    const capMs = scenario.callbackMs ?? scenario.timeoutMs;
    const stallMs = Math.min(measuredMs, capMs);
    // Due within the timeout of the latest moment the status can have been entered.
    const dueFromMs = Math.max(scenario.triggeredAtMs, scenario.triggeredByMs ?? scenario.triggeredAtMs);
    const inTime = scenario.callbacks.filter(
      (c) => c.receivedAtMs - dueFromMs <= scenario.timeoutMs + stallMs,
    );
    const room =
      measuredMs > capMs
        ? ` (+ ${inSeconds(stallMs)}: the suite's measured stall meanwhile was ${inSeconds(measuredMs)}, but gives no more than the declared callbackMs)`
        : stallMs > 0
          ? ` (+ ${inSeconds(stallMs)}, the suite's machine's measured stall meanwhile)`
          : "";
    if (inTime.length === 0) {
      return fail(
        `no callback within ${inSeconds(scenario.timeoutMs)}${room} of entering ${scenario.statusEntered}` +
          (dueFromMs > scenario.triggeredAtMs
            ? ` (counted from the trigger's answer, ${inSeconds(dueFromMs - scenario.triggeredAtMs)} after it was sent)`
            : "") +
          (scenario.callbacks.length > 0 ? ` (${scenario.callbacks.length} arrived later)` : ""),
      );
    }
    const first = inTime[0] as ObservedCallback;
    const after = first.receivedAtMs - scenario.triggeredAtMs;
    const late = first.receivedAtMs - dueFromMs - scenario.timeoutMs;
    const answerMs = dueFromMs - scenario.triggeredAtMs;
    return pass(
      `${inTime.length} callback(s); the first ${relative(after)}` +
        (answerMs > 0 && after > scenario.timeoutMs
          ? ` (the trigger's answer came ${inSeconds(answerMs)} after it was sent: the timeout counts from then)`
          : "") +
        (late > 0
          ? `: ${inSeconds(late)} past the timeout, within the ${inSeconds(stallMs)} the measured stall gave` +
            (measuredMs > capMs
              ? ` (of ${inSeconds(measuredMs)} measured: never more than the declared callbackMs)`
              : "")
          : ""),
    );
  },
);

export const callbacksNotBeforeTrigger = defineCheck<CallbackScenario>(
  "callbacks.not-before-trigger",
  "callbacks",
  "No callback arrives before the event that makes the order enter its status: the triggering request was sent, or the order's documented lifetime ran out (within a clock tick).",
  (scenario) => {
    const tolerance = scenario.earlyToleranceMs ?? 0;
    const early = scenario.callbacks.filter((c) => c.receivedAtMs < scenario.triggeredAtMs - tolerance);
    if (early.length === 0) return pass(`${scenario.callbacks.length} callback(s), none before the trigger`);
    const first = early[0] as ObservedCallback;
    return fail(
      `${early.length} of ${scenario.callbacks.length} callback(s) arrived before the trigger; the first ${relative(first.receivedAtMs - scenario.triggeredAtMs)}` +
        ` (status ${show(statusOf(scenario, first))}): it cannot report a status the order had not entered`,
      [
        {
          path: "(arrival)",
          expected: `at or after the trigger${tolerance > 0 ? ` (less ${inSeconds(tolerance)})` : ""}`,
          actual: relative(first.receivedAtMs - scenario.triggeredAtMs),
        },
      ],
    );
  },
  {
    source: {
      kind: "necessary",
      reason:
        "§6 sends a callback when an order moves into a status; one that comes before the move reports a status the order did not have",
    },
  },
);

export const callbacksBodyParses = defineCheck<CallbackScenario>(
  "callbacks.body-parses",
  "callbacks",
  "Each callback body is a JSON object.",
  (scenario) => {
    if (scenario.callbacks.length === 0) return fail("no callback arrived to parse");
    const bad = scenario.callbacks.filter((c) => !isRecord(c.json));
    return bad.length === 0
      ? pass(`${scenario.callbacks.length} JSON object bodies`)
      : fail(`${bad.length} of ${scenario.callbacks.length} bodies are not JSON objects`);
  },
  {
    source: {
      kind: "declared",
      where:
        "callbacks.idPath and callbacks.statusPath, which locate the id and status in a JSON object (§6 shows no body)",
      keys: ["callbacks.idPath", "callbacks.statusPath"],
    },
  },
);

export const callbacksNamesOrder = defineCheck<CallbackScenario>(
  "callbacks.names-order",
  "callbacks",
  "Each callback names its order at the profile's id path.",
  (scenario) => {
    if (scenario.callbacks.length === 0) return fail("no callback arrived");
    const wrong = scenario.callbacks
      .map((c) => readPath(c.json, scenario.paths.id))
      .filter((id) => String(id) !== scenario.orderId || id === undefined);
    return wrong.length === 0
      ? pass(`${scenario.paths.id} ${show(scenario.orderId)}`)
      : fail(
          `${scenario.paths.id} is ${wrong.map(show).join(", ")} in ${wrong.length} callback(s), expected ${show(scenario.orderId)}`,
        );
  },
  { source: { kind: "declared", where: "callbacks.idPath (§6 shows no body)", keys: ["callbacks.idPath"] } },
);

export const callbacksNamesStatus = defineCheck<CallbackScenario>(
  "callbacks.names-status",
  "callbacks",
  "A callback names the status the order entered, at the profile's status path (§6).",
  (scenario) => {
    if (scenario.callbacks.length === 0) return fail("no callback arrived");
    if (ofStatus(scenario).length > 0)
      return pass(`${scenario.paths.status} ${show(scenario.statusEntered)}`);
    const seen = scenario.callbacks.map((c) => show(statusOf(scenario, c)));
    return fail(
      `no callback says ${show(scenario.statusEntered)} at ${scenario.paths.status}; they say ${seen.join(", ")}`,
    );
  },
);

export const callbacksSignatureValid = defineCheck<CallbackScenario>(
  "callbacks.signature-valid",
  "callbacks",
  "Each delivery of each callback, the first attempt and every retry, has a signature that verifies against its own raw body under the callback secret (scheme from the profile).",
  (scenario) => {
    if (!scenario.signed) return pass("the profile declares no signature scheme");
    if (scenario.callbacks.length === 0) return fail("no callback arrived");
    const bad = scenario.callbacks.filter((c) => c.signature !== "valid");
    if (bad.length === 0) return pass(`${scenario.callbacks.length} valid signature(s)`);
    const said = `${bad.length} of ${scenario.callbacks.length} signature(s) do not verify (${bad.map((c) => c.signature).join(", ")})`;
    // A delivery whose bytes differ from the first attempt's is shown with both bodies.
    const [first] = scenario.callbacks;
    const differing = scenario.callbacks
      .map((c, i) => ({ c, i }))
      .filter(({ c, i }) => i > 0 && bad.includes(c) && c.body !== undefined && c.body !== first?.body);
    const bodies = differing.slice(0, 3).map(({ c, i }) => ({
      path: `body of delivery ${i + 1}`,
      expected: `the first delivery's bytes, ${first?.body ?? "(not kept)"}`,
      actual: c.body ?? "(not kept)",
    }));
    const differs =
      differing.length > 0
        ? `; ${differing.length} of them carry other bytes than the first delivery (delivery ${differing.map(({ i }) => i + 1).join(", ")})`
        : "";
    const explained = bad.find((c) => c.signatureExplained)?.signatureExplained;
    if (!explained) return fail(`${said}${differs}`, bodies);
    const received = explained.received === null ? "no such header" : show(explained.received);
    return fail(
      `${said}; first: ${explained.header} received ${received}, computed ${show(explained.computed)}${differs}`,
      [
        {
          path: `header ${explained.header}`,
          expected: explained.computed,
          actual: explained.received === null ? "absent" : explained.received,
          hint: `${explained.scheme}, over ${explained.signedOver}, with ${explained.signedWith}`,
        },
        ...bodies,
      ],
    );
  },
  {
    source: {
      kind: "declared",
      where: "callbacks.signature (§6 shows no signature)",
      keys: ["callbacks.signature"],
    },
  },
);

export const callbacksMatchesOrder = defineCheck<CallbackScenario>(
  "callbacks.matches-order",
  "callbacks",
  "The amount, currency and merchantOrderID a callback carries are the order's (where the profile says where they sit).",
  (scenario) => {
    const [callback] = ofStatus(scenario);
    if (!callback) return fail(`no callback for ${show(scenario.statusEntered)} to compare`);
    const fields: [string | undefined, unknown][] = [
      [scenario.paths.amount, scenario.order.amount],
      [scenario.paths.currency, scenario.order.currency],
      [scenario.paths.merchantOrderId, scenario.order.merchantOrderID],
    ];
    const compared = fields.filter((f): f is [string, unknown] => f[0] !== undefined);
    if (compared.length === 0) return pass("the profile names no amount, currency or merchantOrderID path");
    const problems = compared
      .map(([path, expected]) => [path, expected, readPath(callback.json, path)] as const)
      .filter(([, expected, actual]) => (actual ?? null) !== expected)
      .map(([path, expected, actual]) => `${path} is ${show(actual)}, the order's is ${show(expected)}`);
    return problems.length === 0
      ? pass(compared.map(([path]) => path).join(", "))
      : fail(problems.join("; "));
  },
  {
    source: {
      kind: "declared",
      where: "callbacks.amountPath, currencyPath and merchantOrderIdPath",
      keys: ["callbacks.amountPath", "callbacks.currencyPath", "callbacks.merchantOrderIdPath"],
    },
  },
);

export const callbacksExactlyOnce = defineCheck<CallbackScenario>(
  "callbacks.exactly-once",
  "callbacks",
  "One acknowledged callback per status entered. A duplicate is a warning: the API description does not forbid at-least-once delivery.",
  (scenario) => {
    const acknowledged = ofStatus(scenario).filter((c) => c.answeredWith >= 200 && c.answeredWith < 300);
    if (acknowledged.length === 1) return pass(`one acknowledged ${show(scenario.statusEntered)} callback`);
    return fail(`${acknowledged.length} acknowledged ${show(scenario.statusEntered)} callbacks`);
  },
  {
    warning: true,
    source: {
      kind: "advisory",
      reason:
        "§6 sends a callback when an order enters a status and does not forbid at-least-once delivery; more than one acknowledged is reported as a duplicate",
      declaredBy: [],
    },
  },
);

const acknowledges = (answeredWith: number) => answeredWith >= 200 && answeredWith < 300;

export const callbacksStopsAfterAcknowledgement = defineCheck<CallbackScenario>(
  "callbacks.stops-after-acknowledgement",
  "callbacks",
  "Once a callback is answered with any 2xx (200, 201, 202, 204), it is not delivered again: no delivery of a status follows an acknowledged one.",
  (scenario) => {
    const acknowledgedAt = new Map<string, ObservedCallback>();
    const after: { status: string; first: ObservedCallback; again: ObservedCallback }[] = [];
    for (const callback of scenario.callbacks) {
      const status = show(statusOf(scenario, callback));
      const first = acknowledgedAt.get(status);
      if (first) after.push({ status, first, again: callback });
      else if (acknowledges(callback.answeredWith)) acknowledgedAt.set(status, callback);
    }
    if (after.length === 0)
      return pass(
        acknowledgedAt.size === 0
          ? `${scenario.callbacks.length} callback(s), none acknowledged with a 2xx`
          : `none delivered again after its 2xx: ${[...acknowledgedAt].map(([status, c]) => `${status} (HTTP ${c.answeredWith})`).join(", ")}`,
      );
    const [one] = after as [(typeof after)[number]];
    return fail(
      `${after.length} delivery(ies) after an acknowledged one; ${one.status} was answered HTTP ${one.first.answeredWith} and delivered again ${inSeconds(one.again.receivedAtMs - one.first.receivedAtMs)} later`,
      after.map(({ status, first, again }) => ({
        path: `(delivery of ${status})`,
        expected: `none after HTTP ${first.answeredWith}, a success answer`,
        actual: `delivered again ${inSeconds(again.receivedAtMs - first.receivedAtMs)} later`,
      })),
    );
  },
  {
    source: {
      kind: "necessary",
      reason:
        "§6 sends a callback request when an order enters a status; any 2xx answer is HTTP's success (RFC 9110, section 15.3): that request was received, and a delivery after it retries a success, where at-least-once delivery repeats only a request whose answer was lost",
    },
  },
);

/** When a callback says its status was entered, in ms since the epoch, if it says so readably. */
function enteredAtMs(callback: ObservedCallback, path: string | undefined): number | undefined {
  if (path === undefined) return undefined;
  const value = readPath(callback.json, path);
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

export const callbacksAppealAfterFailure = defineCheck<CallbackScenario>(
  "callbacks.appeal-after-failure",
  "callbacks",
  "For succeeded_by_appeal, a failed_by_terminal callback, if sent, came first: by the time each callback says its status was entered (the profile's date path), else by arrival.",
  (scenario) => {
    const appeal = ofStatus(scenario)[0];
    if (!appeal) return fail("no succeeded_by_appeal callback arrived");
    const failure = scenario.callbacks.find((c) => statusOf(scenario, c) === STATUS.failed_by_terminal);
    if (!failure) return pass("no failed_by_terminal callback was sent (allowed)");
    // Two deliveries sent moments apart may arrive in either order: HTTP keeps no order between
    // them, and a merchant orders them by the time they carry. Only without one does arrival decide.
    const path = scenario.paths.dateUpdated;
    const failedAt = enteredAtMs(failure, path);
    const appealedAt = enteredAtMs(appeal, path);
    if (failedAt !== undefined && appealedAt !== undefined) {
      return failedAt <= appealedAt
        ? pass(
            `failed_by_terminal entered ${inSeconds(appealedAt - failedAt)} before succeeded_by_appeal (${path}); arrived ${inSeconds(Math.abs(appeal.receivedAtMs - failure.receivedAtMs))} ${failure.receivedAtMs <= appeal.receivedAtMs ? "before" : "after"} it`,
          )
        : fail(
            `failed_by_terminal says it was entered ${inSeconds(failedAt - appealedAt)} after succeeded_by_appeal (${path})`,
          );
    }
    const by = path ? ` (by arrival: ${path} is not a readable date in both)` : " (by arrival)";
    return failure.receivedAtMs <= appeal.receivedAtMs
      ? pass(
          `failed_by_terminal ${inSeconds(appeal.receivedAtMs - failure.receivedAtMs)} before succeeded_by_appeal${by}`,
        )
      : fail(
          `failed_by_terminal arrived ${inSeconds(failure.receivedAtMs - appeal.receivedAtMs)} after succeeded_by_appeal${by}`,
        );
  },
  {
    source: {
      kind: "necessary",
      reason:
        "§3 names both statuses; a success by appeal reverses the failure it appeals, so it comes after it (HTTP keeps no order between two deliveries: the times the callbacks carry decide)",
    },
  },
);

export const callbacksDateNotBeforeTrigger = defineCheck<CallbackScenario>(
  "callbacks.date-not-before-trigger",
  "callbacks",
  "Each callback's date (the profile's callbacks.dateUpdatedPath) is not before what made the order enter its status: the triggering request, the order's earlier dates (its creation record), its declared lifetime after creation for expired; within the clocks' skew and the dates' resolution.",
  (scenario) => {
    const path = scenario.paths.dateUpdated;
    if (path === undefined)
      return pass("the profile declares no callbacks.dateUpdatedPath: no date to judge");
    const bounds = scenario.datesNotBefore ?? [];
    const problems: string[] = [];
    let judged = 0;
    for (const callback of scenario.callbacks) {
      const at = enteredAtMs(callback, path);
      if (at === undefined) continue;
      judged++;
      for (const bound of bounds) {
        if (at >= bound.atMs - bound.toleranceMs) continue;
        problems.push(
          `${path} ${show(readPath(callback.json, path))} (status ${show(statusOf(scenario, callback))}) is ${inSeconds(bound.atMs - at)} before ${bound.what} (${new Date(bound.atMs).toISOString()}, ${inSeconds(bound.toleranceMs)} allowed)`,
        );
      }
    }
    if (problems.length > 0)
      return fail(
        `${problems.length} date(s) before the status was entered: ${problems.slice(0, 3).join("; ")}`,
      );
    return pass(
      `${judged} callback date(s) at ${path}, none before ${bounds.map((b) => b.what).join(", ") || "anything known"}`,
    );
  },
  {
    source: {
      kind: "declared",
      where:
        "callbacks.dateUpdatedPath, where a callback says when its order entered the status (§6 sends it on entering), and callbackTriggers, which make it enter",
      keys: ["callbacks.dateUpdatedPath"],
    },
  },
);

export interface RetryObservation {
  /** Delivery times of one callback the sink kept refusing (503), in order. */
  attemptsAtMs: number[];
  /** The target's documented policy, when the profile declares one. */
  policy?: { attempts: number; delaysMs: number[]; toleranceMs: number } | undefined;
  /**
   * How late the observer (the webhook sink) may have stamped these arrivals: how long its process
   * was held up meanwhile. Each interval is then known only to within that much more.
   */
  observerStallMs?: number | undefined;
  /**
   * For each retry (the interval before attempt i + 2), how long runnable work waited for a CPU on
   * the suite's machine meanwhile (measured, ms): a target slowed that much retries that much
   * later. Room to be late only: contention never makes a retry come early.
   */
  machineStallMs?: readonly number[] | undefined;
  /**
   * False for a target on another host: this machine's CPU cannot slow it, so `machineStallMs`
   * gives no room. Default true.
   */
  targetOnThisHost?: boolean | undefined;
  /**
   * Observed traffic (observe mode), where the receiver may take a retry: the last attempt was
   * acknowledged, so fewer attempts than the policy's are all that was due.
   */
  settled?: boolean | undefined;
  /** Observed traffic: when watching stopped; a retry not yet due by then is not missing. */
  observedUntilMs?: number | undefined;
  /**
   * Observed traffic: how long each attempt took to be refused (its answer, or the timeout waited
   * out); a retry's delay may count from that refusal, so it may come that much later.
   */
  refusedAfterMs?: readonly number[] | undefined;
  /** Each attempt's body as delivered, where kept: every retry carries the first attempt's bytes. */
  bodies?: readonly (string | undefined)[] | undefined;
}

export const callbacksRetryPolicy = defineCheck<RetryObservation>(
  "callbacks.retry-policy",
  "callbacks",
  "A refused callback is retried: how often and after how long (the API description shows no policy; checked against the profile's when it declares one, within its tolerance, the sink's own measured lateness and, for a late retry on a target on this host, the machine's measured CPU stall meanwhile; the stall's room to be late is never more than the declared delay).",
  ({
    attemptsAtMs,
    policy,
    observerStallMs = 0,
    machineStallMs = [],
    targetOnThisHost = true,
    settled = false,
    observedUntilMs,
    refusedAfterMs = [],
    bodies = [],
  }) => {
    const gaps = attemptsAtMs.slice(1).map((at, i) => at - (attemptsAtMs[i] as number));
    const seen = `${attemptsAtMs.length} attempt(s)${gaps.length > 0 ? `, retried after ${gaps.map(inSeconds).join(", ")}` : ""}`;
    if (!policy)
      return attemptsAtMs.length > 1
        ? pass(`${seen} (no policy declared)`)
        : fail(`${seen}: a refused callback was not retried`);
    const problems: string[] = [];
    // The sink's own lateness is not the target's: an interval between two stamps is off by at
    // most the time the sink was held up meanwhile, and is judged with that much more room.
    const slack = policy.toleranceMs + observerStallMs;
    const refusedAfter = (i: number) => Math.max(0, refusedAfterMs[i] ?? 0);
    const last = attemptsAtMs.length - 1;
    // A retry not yet due when watching stopped is not missing: its delay had not run out.
    const nextDueMs =
      (attemptsAtMs[last] ?? 0) +
      refusedAfter(last) +
      (policy.delaysMs[last] ?? 0) +
      slack +
      (targetOnThisHost ? Math.max(0, ...machineStallMs) : 0);
    const watchedLongEnough = observedUntilMs === undefined || observedUntilMs > nextDueMs;
    if (
      attemptsAtMs.length > policy.attempts ||
      (!settled && attemptsAtMs.length < policy.attempts && watchedLongEnough)
    )
      problems.push(`${attemptsAtMs.length} attempts, the policy says ${policy.attempts}`);
    const [firstBody] = bodies;
    bodies.forEach((body, i) => {
      if (i > 0 && body !== undefined && firstBody !== undefined && body !== firstBody)
        problems.push(`retry ${i} carries other bytes than the first attempt`);
    });
    const within = `± ${inSeconds(policy.toleranceMs)}${observerStallMs > 0 ? ` (+ ${inSeconds(observerStallMs)}, the sink's own stalls meanwhile)` : ""}`;
    // A target on this machine is late by as long as it waited for a CPU over that one interval
    // (PSI "some" reads near 100 % on any busy machine, so it bounds, not measures, the delay).
    const machineMs = (i: number) => (targetOnThisHost ? Math.max(0, machineStallMs[i] ?? 0) : 0);
    // A timer slowed by contention is late by at most the delay it was running: the stall never
    // excuses a retry more than its declared delay late, so 3x the declared delay fails however
    // loaded the machine.
    const measuredLate = (i: number) => observerStallMs + machineMs(i);
    const capped = (i: number, expected: number) => measuredLate(i) > expected;
    const machineRoom = (i: number, expected: number) =>
      Math.min(machineMs(i), Math.max(0, expected - observerStallMs));
    const roomLine = (i: number, expected: number) =>
      capped(i, expected)
        ? ` (the stalls' room to be late, ${inSeconds(measuredLate(i))} measured meanwhile, is capped at the declared ${inSeconds(expected)})`
        : machineRoom(i, expected) > 0
          ? ` (+ ${inSeconds(machineRoom(i, expected))} late, the machine's measured CPU stall meanwhile)`
          : "";
    gaps.forEach((gap, i) => {
      const expected = policy.delaysMs[i];
      if (expected === undefined) return;
      const early = expected - gap > slack;
      // The sink's stalls are in `slack` whole, however long: they are the observer's error, not the
      // target's lateness. Only the machine's room is capped.
      if (early || gap - expected > slack + machineRoom(i, expected) + refusedAfter(i)) {
        problems.push(
          `retry ${i + 1} after ${inSeconds(gap)}, the policy says ${inSeconds(expected)} ${within}${early ? "" : roomLine(i, expected)}${!early && refusedAfter(i) > 0 ? ` (+ ${inSeconds(refusedAfter(i))}, counted from the attempt's refusal)` : ""}`,
        );
      }
    });
    const rooms = gaps.map((_, i) => {
      const expected = policy.delaysMs[i];
      return expected === undefined ? 0 : machineRoom(i, expected);
    });
    const roomGiven = Math.max(0, ...rooms);
    const anyCapped = gaps.some((_, i) => {
      const expected = policy.delaysMs[i];
      return expected !== undefined && capped(i, expected);
    });
    const given =
      (roomGiven > 0
        ? `; the machine's measured CPU stall gave up to ${inSeconds(roomGiven)} more room to be late`
        : "") +
      (anyCapped ? "; the stall's room never exceeds a retry's declared delay" : "") +
      (!targetOnThisHost && machineStallMs.some((ms) => ms > 0)
        ? "; the target is on another host: this machine's CPU stall gave it no room"
        : "");
    return problems.length === 0
      ? pass(`${seen}, as the policy says (${within}${given})`)
      : fail(`${seen}: ${problems.join("; ")}`);
  },
  {
    source: {
      kind: "declared",
      where: "callbacks.retryPolicy (§6 shows none; without one, retries are observed, not judged)",
      keys: ["callbacks.retryPolicy"],
    },
  },
);

/** What the sandbox clock answered, or why it could not be asked. */
export interface SandboxClockAnswer {
  response?: ExchangeResponse;
  /** A transport failure (no answer). */
  error?: string;
}

export const callbacksSandboxClock = defineCheck<SandboxClockAnswer>(
  "callbacks.sandbox-clock",
  "callbacks",
  `The sandbox clock the profile declares moves an order's clock: POST ${SANDBOX_CLOCK_ADVANCE_PATH} answers HTTP 200 (an extension outside the API; without it the suite waits out the order's lifetime).`,
  ({ response, error }) => {
    if (error !== undefined) return fail(`the sandbox clock could not be asked: ${error}`);
    if (!response) return fail("the sandbox clock was not asked");
    if (response.status === 200) return pass("HTTP 200: the order's clock moved");
    const codeError =
      isRecord(response.json) && isRecord(response.json.result) ? response.json.result.codeError : undefined;
    return fail(
      `HTTP ${response.status}${codeError !== undefined ? ` codeError ${show(codeError)}` : ""}: the clock did not move`,
      [
        {
          path: `POST ${SANDBOX_CLOCK_ADVANCE_PATH}`,
          expected: "HTTP 200",
          actual: `HTTP ${response.status}`,
        },
      ],
    );
  },
  {
    source: {
      kind: "declared",
      where: "sandboxClock (the target documents a sandbox clock)",
      keys: ["sandboxClock"],
    },
  },
);
