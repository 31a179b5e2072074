/**
 * Checks of the stateful probes: the lifecycle as a model (contract/generation/lifecycle-model.ts),
 * `timer` against the order's clock, races of identical requests, and callbacks delivered exactly
 * where the order says.
 */
import type { ExchangeResponse } from "../client/index.ts";
import { evaluateRejection, type PinnedError, type RejectionInput } from "./behaviour.ts";
import { defineCheck, fail, isRecord, notEvaluated, pass, type RuleSource, show } from "./check.ts";
import { rateLimitCause } from "./rate-limit.ts";

// --- the lifecycle ---------------------------------------------------------------------------------

export const rejectsConfirmAfterExpiry = defineCheck<RejectionInput>(
  "behaviour.rejects-confirm-after-expiry",
  "behaviour",
  "An order that expired unconfirmed cannot be confirmed any more, with any code: expired is a final status (§3, §6).",
  evaluateRejection,
);

export interface LifecycleCallbacksInput {
  /** The callback statuses the model says this order's moves cause, in order. */
  expected: readonly string[];
  /** Each callback that arrived for the order: its status, and its raw body (to tell a redelivery). */
  received: readonly { status: unknown; body: string }[];
  /**
   * Statuses that may arrive once more without a move causing them: `expired` for an order left
   * awaiting its confirmation longer than its lifetime in real time.
   */
  mayAlsoArrive?: readonly string[];
}

/** How many times each status occurs. */
function counts(statuses: readonly unknown[]): Map<unknown, number> {
  const out = new Map<unknown, number>();
  for (const status of statuses) out.set(status, (out.get(status) ?? 0) + 1);
  return out;
}

const listed = (statuses: readonly unknown[]) =>
  statuses.length === 0 ? "none" : statuses.map((s) => show(s)).join(", ");

export const callbacksFollowLifecycle = defineCheck<LifecycleCallbacksInput>(
  "callbacks.follow-lifecycle",
  "callbacks",
  "An order gets one callback for each status it enters and none for a move that changes nothing (§6; the transitions: the profile's lifecycle). The same body delivered again counts once (at-least-once delivery); their order is callbacks.appeal-after-failure's to judge.",
  ({ expected, received, mayAlsoArrive = [] }) => {
    // One event per distinct body: a redelivery of the same callback is not a second status change.
    const events = [...new Map(received.map((c) => [c.body, c.status])).values()];
    const want = counts(expected);
    const got = counts(events);
    const allowed = (status: unknown) =>
      typeof status === "string" && mayAlsoArrive.includes(status) ? 1 : 0;
    const problems = [...new Set([...want.keys(), ...got.keys()])]
      .filter((status) => {
        const wanted = want.get(status) ?? 0;
        const gotten = got.get(status) ?? 0;
        return gotten < wanted || gotten > wanted + allowed(status);
      })
      .map((status) => `${show(status)} ${got.get(status) ?? 0} time(s), expected ${want.get(status) ?? 0}`);
    return problems.length === 0
      ? pass(`callbacks ${listed(events)}, as the lifecycle says`)
      : fail(`callbacks ${listed(events)}, the lifecycle says ${listed(expected)}: ${problems.join("; ")}`);
  },
);

// --- timer -------------------------------------------------------------------------------------------

/** One request as the suite measured it (ms on the suite's clock): what it did happened in between. */
export interface MeasuredRequest {
  /** When it was sent, at the earliest. */
  sentMs: number;
  /** When its answer was received, at the latest. */
  receivedMs: number;
}

/** The four requests whose moments decide how far apart the two timers should be. */
export interface TimerReads {
  stayedCreated: MeasuredRequest;
  movedCreated: MeasuredRequest;
  /** The confirmations whose answers carried the timers. */
  stayedRead: MeasuredRequest;
  movedRead: MeasuredRequest;
}

export interface TimerClockInput {
  /** `timer` (seconds) of the order whose clock stayed. */
  stayed: unknown;
  /** `timer` (seconds) of the order whose clock moved ahead, or that is older. */
  moved: unknown;
  /** How far the sandbox clock moved the second order's clock ahead (s); 0 when it is only older. */
  seconds: number;
  /** How the clock moved, for the detail line. */
  how: "the sandbox clock" | "real time";
  toleranceSeconds: number;
  /** The order lifetime, when the profile states one: a fresh order's timer is at most that. */
  lifetimeSeconds?: number | undefined;
  /**
   * When each order was created and each timer read, measured. Without them the orders count as
   * created, and read, at one moment each.
   */
  reads?: TimerReads | undefined;
  /**
   * The timer's step (1 s for a timer in whole seconds, 0.001 s in milliseconds): a target that
   * rounds down, or counts from a creation time kept at that precision, is up to one step lower.
   */
  timerStepSeconds?: number | undefined;
}

/** Seconds from one event to another, each known only to lie within its request: the least and the most. */
function apart(from: MeasuredRequest, to: MeasuredRequest): { least: number; most: number } {
  return { least: (to.sentMs - from.receivedMs) / 1000, most: (to.receivedMs - from.sentMs) / 1000 };
}

/**
 * How much lower the moved order's timer may be, from what was measured: the clock's move, plus
 * how much later the moved order's timer was read, less how much later it was created (each
 * timer counts the order's age from its creation to its read).
 */
export function expectedTimerDrop(
  seconds: number,
  reads: TimerReads | undefined,
): { least: number; most: number } {
  if (!reads) return { least: seconds, most: seconds };
  const readLater = apart(reads.stayedRead, reads.movedRead);
  const createdLater = apart(reads.stayedCreated, reads.movedCreated);
  return {
    least: seconds + readLater.least - createdLater.most,
    most: seconds + readLater.most - createdLater.least,
  };
}

const secondsText = (s: number) => `${s.toFixed(3)} s`;

/** What a timer comparison waits on when the reads were too far apart to judge it: no check fails for it. */
export const TARGET_LATENCY = "target.latency";

export const semanticsTimerFollowsClock = defineCheck<TimerClockInput>(
  "semantics.timer-follows-clock",
  "semantics",
  "timer counts down the order's lifetime on the order's clock: a fresh order's timer is the lifetime the profile declares less the order's age, and an order whose clock is N seconds ahead answers a timer N seconds lower, give or take the time between the reads the suite measured, within the profile's tolerance (§2.3; the unit is the profile's).",
  ({ stayed, moved, seconds, how, toleranceSeconds, lifetimeSeconds, reads, timerStepSeconds = 1 }) => {
    if (typeof stayed !== "number" || typeof moved !== "number")
      return fail(`timer is ${show(stayed)} and ${show(moved)}: not numbers to compare`);
    const problems: string[] = [];
    const lowered = stayed - moved;
    const drop = expectedTimerDrop(seconds, reads);
    const low = drop.least - toleranceSeconds;
    const high = drop.most + toleranceSeconds;
    const expected = reads
      ? `${secondsText(drop.least)} to ${secondsText(drop.most)} ± ${toleranceSeconds}`
      : `${seconds} ± ${toleranceSeconds}`;
    const moves =
      how === "the sandbox clock" ? `${seconds} s ahead on the sandbox clock` : "older in real time";
    if (lowered < low || lowered > high)
      problems.push(
        `${moves} lowered timer by ${secondsText(lowered)} (${stayed} → ${moved}), expected ${expected}${
          reads ? ` (${describeReads(seconds, reads)})` : ""
        }`,
      );
    if (lifetimeSeconds !== undefined && stayed > lifetimeSeconds + toleranceSeconds)
      problems.push(`a fresh order's timer ${stayed} exceeds the lifetime ${lifetimeSeconds} s`);
    // The stayed order's age at its read, at most: from its creation sent to its timer received.
    const stayedAge = reads ? apart(reads.stayedCreated, reads.stayedRead).most : undefined;
    if (
      lifetimeSeconds !== undefined &&
      stayedAge !== undefined &&
      stayed < lifetimeSeconds - stayedAge - toleranceSeconds - timerStepSeconds
    )
      problems.push(
        `a fresh order's timer ${stayed} is below the declared lifetime ${lifetimeSeconds} s less the order's age (at most ${secondsText(stayedAge)}), beyond the tolerance ${toleranceSeconds} and one step of the timer (${timerStepSeconds} s): its orders live shorter than the profile says`,
      );
    if (problems.length > 0) return fail(problems.join("; "));
    // Reads so far apart that a timer standing still would pass too tell nothing: not judged.
    if (low <= 0)
      return notEvaluated({
        check: TARGET_LATENCY,
        signature: "timer reads too far apart to compare",
        reason: `the timers were read too far apart to tell one that follows the clock from one that stands still: the drop may be ${expected} (${describeReads(seconds, reads)}), and it was ${secondsText(lowered)}`,
      });
    return pass(
      `${moves}: timer ${stayed} → ${moved} (lower by ${secondsText(lowered)}, expected ${expected})`,
    );
  },
  {
    scope: "order",
    source: {
      kind: "advisory",
      reason:
        "§8 leaves the unit and meaning of timer open (§2.3 calls it only 'a timer value'); counting down the lifetime is a target's convention",
      declaredBy: ["lifecycle.timerUnit"],
    },
  },
);

/** What the expected drop is made of, in words. */
function describeReads(seconds: number, reads: TimerReads | undefined): string {
  if (!reads) return `${seconds} s moved`;
  const range = ({ least, most }: { least: number; most: number }) =>
    `${least.toFixed(3)} to ${most.toFixed(3)} s`;
  return (
    `${seconds > 0 ? `${seconds} s moved; ` : ""}as measured, the moved order was created ` +
    `${range(apart(reads.stayedCreated, reads.movedCreated))} after the other ` +
    `and its timer read ${range(apart(reads.stayedRead, reads.movedRead))} after the other's`
  );
}

// --- races -------------------------------------------------------------------------------------------

export interface RaceInput {
  /** The answers to the identical requests sent at once. */
  answers: readonly ExchangeResponse[];
  /** The error the losers must get, where the profile pins it. */
  pinned?: PinnedError | undefined;
}

function codeErrorOf(response: ExchangeResponse): unknown {
  return isRecord(response.json) && isRecord(response.json.result)
    ? response.json.result.codeError
    : undefined;
}

function exactlyOneAccepted({ answers, pinned }: RaceInput) {
  // A 429 or 503 is neither the one acceptance nor a refusal: the race was not run as sent.
  const limited = answers.filter((a) => rateLimitCause(a) !== undefined);
  const cause = limited[0] && rateLimitCause(limited[0]);
  if (cause)
    return notEvaluated({
      ...cause,
      reason: `${cause.reason} (${limited.length} of ${answers.length} answers)`,
    });
  const accepted = answers.filter((a) => a.status >= 200 && a.status < 300);
  const losers = answers.filter((a) => a.status < 200 || a.status >= 300);
  const wrongRefusals = losers
    .map((response) => ({ response, outcome: evaluateRejection({ response, pinned }) }))
    .filter(({ outcome }) => !outcome.ok);
  const answered = answers
    .map((a) => `HTTP ${a.status}${codeErrorOf(a) !== undefined ? ` ${show(codeErrorOf(a))}` : ""}`)
    .join(", ");
  if (accepted.length === 1 && wrongRefusals.length === 0)
    return pass(`${answers.length} at once: exactly one accepted, the others refused (${answered})`);
  const problems: string[] = [];
  if (accepted.length !== 1)
    problems.push(`${accepted.length} of ${answers.length} accepted, expected exactly one`);
  for (const { outcome } of wrongRefusals.slice(0, 3)) problems.push(outcome.detail);
  return fail(`${problems.join("; ")} (${answered})`);
}

export const concurrentCreationsOneAccepted = defineCheck<RaceInput>(
  "behaviour.concurrent-creations-one-accepted",
  "behaviour",
  "Of N creations sent at once with one merchantOrderID, exactly one is accepted and the others are refused as duplicates (§4.1, §8: unique within the merchant account, also under concurrency).",
  exactlyOneAccepted,
  { scope: "order" },
);

export const concurrentConfirmationsOneAccepted = defineCheck<RaceInput>(
  "behaviour.concurrent-confirmations-one-accepted",
  "behaviour",
  "Of N confirmations of one order sent at once, exactly one is accepted and the others are refused: an order is confirmed once, as the profile's lifecycle.secondConfirm says.",
  exactlyOneAccepted,
  {
    scope: "order",
    source: {
      kind: "advisory",
      reason:
        "§4.2 and §4.4 do not say that an order is confirmed once: a target may answer a repeated confirmation with its first result",
      declaredBy: ["lifecycle.secondConfirm"],
    },
  },
);

export interface RaceCallbacksInput {
  /** The final status the accepted confirmation leads to. */
  finalStatus: string;
  /** Each callback that arrived for the order: its status and the sink's answer. */
  callbacks: readonly { status: unknown; answeredWith: number }[];
}

export const callbacksOneFinalAfterConcurrentConfirmations = defineCheck<RaceCallbacksInput>(
  "callbacks.one-final-after-concurrent-confirmations",
  "callbacks",
  "After N confirmations of one order sent at once, exactly one final callback arrives: the order entered its final status once (§6).",
  ({ finalStatus, callbacks }) => {
    const acknowledged = callbacks.filter(
      (c) => c.status === finalStatus && c.answeredWith >= 200 && c.answeredWith < 300,
    );
    const finals = callbacks.map((c) => show(c.status)).join(", ") || "none";
    return acknowledged.length === 1
      ? pass(`one acknowledged ${show(finalStatus)} callback (callbacks: ${finals})`)
      : fail(
          `${acknowledged.length} acknowledged ${show(finalStatus)} callbacks, expected exactly one (callbacks: ${finals})`,
        );
  },
);

// --- callbacks delivered exactly where the order says --------------------------------------------------

export interface ExactUrlInput {
  /** The path and query of the order's metadata.webHook, as the merchant wrote it. */
  expected: string;
  /** The request target (path and query) of each callback that arrived for the order. */
  received: readonly string[];
}

export const callbacksExactUrl = defineCheck<ExactUrlInput>(
  "callbacks.exact-url",
  "callbacks",
  "Every callback is sent to exactly the metadata.webHook URL the order was created with: path and query preserved byte for byte (§6).",
  ({ expected, received }) => {
    if (received.length === 0) return fail("no callback arrived to compare its URL");
    const wrong = received.filter((target) => target !== expected);
    return wrong.length === 0
      ? pass(`${received.length} callback(s) at ${show(expected)}`)
      : fail(
          `${wrong.length} of ${received.length} callback(s) at ${show(wrong[0])}, the order's webHook is ${show(expected)}`,
        );
  },
);

// --- refusals change nothing ---------------------------------------------------------------------

/** The source of every rule that a confirmation code off the code format is refused. */
const CODE_FORMAT_SOURCE: RuleSource = {
  kind: "advisory",
  reason:
    "§4.2 and §4.4 type code as a string and state no format; the suite's stand-in is the success code's own kind and length",
  declaredBy: ["requestRules.code.pattern"],
};

export const rejectsMalformedCode = defineCheck<RejectionInput>(
  "behaviour.rejects-malformed-code",
  "behaviour",
  "A confirmation code one step off the code format (a letter before or after it, one character too few or too many, a space around it, non-ASCII digits) is refused like a wrong code, and does not confirm the order.",
  evaluateRejection,
  { source: CODE_FORMAT_SOURCE },
);

export interface RefusalProofInput {
  /** The refused request, in words (the model's operation). */
  refused: string;
  /** What was tried after it, in words, and what its acceptance shows. */
  proof: string;
  shows: string;
  response: ExchangeResponse;
}

export const refusalChangesNothing = defineCheck<RefusalProofInput>(
  "behaviour.refusal-changes-nothing",
  "behaviour",
  "A refused request leaves everything as it was: after it, a creation with its merchantOrderID is accepted, and an order it was about still accepts the right code.",
  ({ refused, proof, shows, response }) => {
    const limited = rateLimitCause(response);
    if (limited) return notEvaluated(limited);
    const json = response.json;
    const codeError =
      isRecord(json) && isRecord(json.result) ? ` codeError ${show(json.result.codeError)}` : "";
    // The status it answers is status-after-operation's to judge: here, only that it is accepted.
    if (response.status === 200) return pass(`after ${refused} was refused, ${proof} was accepted: ${shows}`);
    return fail(
      `after ${refused} was refused, ${proof} answered HTTP ${response.status}${codeError}, not 200: the refusal had an effect, although ${shows}`,
      [
        {
          path: proof,
          expected: `accepted (HTTP 200): ${shows}`,
          actual: `HTTP ${response.status}${codeError}`,
        },
      ],
    );
  },
  {
    scope: "order",
    source: {
      kind: "necessary",
      reason:
        "§7 makes a refusal the failure of that call: a refused request is not carried out, so it reserves no merchantOrderID (§8's uniqueness is among orders) and moves no order",
    },
  },
);

export interface RefusalTimerInput {
  /** `timer` of the confirmation after the refusals, in seconds. */
  timer: unknown;
  lifetimeSeconds: number;
  /** How far the sandbox clock moved the order's clock ahead, seconds. */
  movedSeconds: number;
  /** Real time between the creation's answer and the confirmation's request, seconds. */
  minElapsedSeconds: number;
  /** Real time between the creation's request and the confirmation's answer, seconds. */
  maxElapsedSeconds: number;
  toleranceSeconds: number;
  timerStepSeconds: number;
}

/**
 * The timer an order must answer: its declared lifetime less what its clock moved and the real
 * time that passed since its creation (both measured), give or take the tolerance and one step.
 */
export function timerLeft({
  lifetimeSeconds,
  movedSeconds,
  minElapsedSeconds,
  maxElapsedSeconds,
  toleranceSeconds,
  timerStepSeconds,
}: Omit<RefusalTimerInput, "timer">): { low: number; high: number; expected: string } {
  const slack = toleranceSeconds + timerStepSeconds;
  const high = lifetimeSeconds - movedSeconds - minElapsedSeconds + slack;
  const low = lifetimeSeconds - movedSeconds - maxElapsedSeconds - slack;
  const expected = `between ${low.toFixed(3)} and ${high.toFixed(3)} (lifetime ${lifetimeSeconds} s less ${movedSeconds} s moved and ${minElapsedSeconds.toFixed(3)}-${maxElapsedSeconds.toFixed(3)} s passed, ± ${slack} s)`;
  return { low, high, expected };
}

export const refusalKeepsTimer = defineCheck<RefusalTimerInput>(
  "semantics.refusal-keeps-timer",
  "semantics",
  "A refused confirmation leaves the order's timer running: the right code after it answers a timer of the lifetime less the order's age and the seconds its clock moved, within the profile's tolerance (§2.3; the unit is the profile's).",
  (input) => {
    const { timer } = input;
    if (typeof timer !== "number") return fail(`timer is ${show(timer)}, not a number`);
    const { low, high, expected } = timerLeft(input);
    if (timer > high)
      return fail(
        `timer ${timer} after the refusals, expected ${expected}: a refusal set the order's timer back`,
        [{ path: "data.timer", expected, actual: String(timer) }],
      );
    if (timer < low)
      return fail(
        `timer ${timer} after the refusals, expected ${expected}: a refusal ran the order's timer down`,
        [{ path: "data.timer", expected, actual: String(timer) }],
      );
    return pass(`timer ${timer}, ${expected}`);
  },
  {
    scope: "order",
    source: {
      kind: "advisory",
      reason:
        "§8 leaves the unit and meaning of timer open (§2.3 calls it only 'a timer value'); counting down the lifetime is a target's convention",
      declaredBy: ["lifecycle.timerUnit"],
    },
  },
);

// --- late in the declared lifetime ------------------------------------------------------------------

/** Where the order's lifetime is declared: what makes the late confirmation a required rule. */
const LIFETIME_SOURCE: RuleSource = {
  kind: "advisory",
  reason: "§8 leaves the order's lifetime open; a target states it at integration",
  declaredBy: ["callbackTriggers.expired.unconfirmedForSeconds"],
};

export interface LateConfirmationInput {
  /** The answer to the success code, sent late in the order's lifetime. */
  response: ExchangeResponse;
  lifetimeSeconds: number;
  /** How old the order was on its own clock when the code was sent, at the least and at the most (s). */
  ageSeconds: { least: number; most: number };
  /** The status the success code leads to (the profile's outcomes). */
  successStatus: string;
  /** The statuses of the callbacks that arrived for the order; undefined when none are awaited. */
  callbackStatuses?: readonly unknown[] | undefined;
}

export const confirmsLateInLifetime = defineCheck<LateConfirmationInput>(
  "behaviour.confirms-late-in-lifetime",
  "behaviour",
  "An order confirmed late in its life (more than half of the lifetime the profile declares in callbackTriggers.expired.unconfirmedForSeconds has passed on its clock, not all of it) accepts the success code and reaches the status that code leads to: an order lives as long as declared.",
  ({ response, lifetimeSeconds, ageSeconds, successStatus, callbackStatuses }) => {
    const limited = rateLimitCause(response);
    if (limited) return notEvaluated(limited);
    const age = `${ageSeconds.least.toFixed(1)}-${ageSeconds.most.toFixed(1)} s into its declared lifetime of ${lifetimeSeconds} s`;
    if (response.status !== 200) {
      const json = response.json;
      const codeError =
        isRecord(json) && isRecord(json.result) ? ` codeError ${show(json.result.codeError)}` : "";
      return fail(
        `the success code, sent ${age}, answered HTTP ${response.status}${codeError}: the order no longer took its confirmation before its declared lifetime ended`,
        [{ path: "HTTP status", expected: "200 (accepted)", actual: `${response.status}${codeError}` }],
      );
    }
    if (callbackStatuses !== undefined && !callbackStatuses.includes(successStatus))
      return fail(
        `the success code, sent ${age}, was accepted, but the order did not reach ${show(successStatus)} (callbacks: ${listed(callbackStatuses)})`,
        [{ path: "callbacks", expected: show(successStatus), actual: listed(callbackStatuses) }],
      );
    return pass(
      `the success code, sent ${age}, was accepted${callbackStatuses !== undefined ? ` and the order reached ${show(successStatus)}` : ""}`,
    );
  },
  { source: LIFETIME_SOURCE },
);

export const timerCountsDownLifetime = defineCheck<RefusalTimerInput>(
  "semantics.timer-counts-down-lifetime",
  "semantics",
  "Late in an order's life, its timer is the lifetime the profile declares less the seconds its clock moved and the time since its creation, within the profile's tolerance (§2.3; the unit is the profile's).",
  (input) => {
    const { timer } = input;
    if (typeof timer !== "number") return fail(`timer is ${show(timer)}, not a number`);
    const { low, high, expected } = timerLeft(input);
    if (timer < low || timer > high)
      return fail(
        `timer ${timer} late in the order's life, expected ${expected}: ${
          timer > high ? "it does not count the lifetime down" : "it counts down a shorter lifetime"
        }`,
        [{ path: "data.timer", expected, actual: String(timer) }],
      );
    return pass(`timer ${timer}, ${expected}`);
  },
  {
    source: {
      kind: "advisory",
      reason:
        "§8 leaves the unit and meaning of timer open (§2.3 calls it only 'a timer value'); counting down the lifetime is a target's convention",
      declaredBy: ["lifecycle.timerUnit"],
    },
  },
);
