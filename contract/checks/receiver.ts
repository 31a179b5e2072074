/**
 * The checks of a merchant's webhook receiver (`npm run certify:receiver`): the battery plays the
 * provider's callbacks towards it, as the profile describes them, and judges each answer. A
 * receiver answers a callback with a 2xx (taken), a 4xx (refused) or, wrongly, a 5xx or nothing.
 */
import { type CheckOutcome, defineCheck, fail, pass } from "./check.ts";

/** One delivery to the receiver and its answer. */
export interface ReceiverAnswer {
  /** What was sent, in words ("succeeded, mobile_commerce"). */
  case: string;
  /** The HTTP status; absent when no answer came. */
  status?: number | undefined;
  durationMs: number;
  /** Why no answer came (a timeout, a refused connection). */
  error?: string | undefined;
}

/** An answer, with the time the receiver has to acknowledge (the profile's timeouts.callbackMs). */
export interface TimedAnswer {
  answer: ReceiverAnswer;
  timeoutMs: number;
}

const is2xx = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;
const is4xx = (status: number | undefined) => status !== undefined && status >= 400 && status < 500;

/** An answer in words: `HTTP 200 in 12 ms`, or why none came. */
export function describeAnswer(answer: ReceiverAnswer): string {
  if (answer.status === undefined)
    return `no answer after ${Math.round(answer.durationMs)} ms (${answer.error ?? "no answer"})`;
  return `HTTP ${answer.status} in ${Math.round(answer.durationMs)} ms`;
}

const RECEIVER_PATH_REASON =
  "a 5xx or no answer says the receiver failed, not that it refuses the callback: the provider sends it again and it is never settled; a callback is taken (2xx) or refused (4xx)";

export const receiverAcknowledgesValid = defineCheck<TimedAnswer>(
  "receiver.acknowledges-valid",
  "receiver",
  "A callback signed as the profile says, of each callback status (§6) and both order kinds, is acknowledged with a 2xx within the profile's callback timeout.",
  ({ answer, timeoutMs }) => {
    if (!is2xx(answer.status))
      return fail(`${answer.case}: ${describeAnswer(answer)}; expected a 2xx within ${timeoutMs} ms`, [
        { path: answer.case, expected: `a 2xx within ${timeoutMs} ms`, actual: describeAnswer(answer) },
      ]);
    if (answer.durationMs > timeoutMs)
      return fail(
        `${answer.case}: acknowledged after ${Math.round(answer.durationMs)} ms, over ${timeoutMs} ms`,
      );
    return pass(`${answer.case}: ${describeAnswer(answer)}`);
  },
  {
    source: {
      kind: "declared",
      where: "timeouts.callbackMs, callbacks.signature",
      keys: ["timeouts.callbackMs"],
    },
  },
);

export const receiverAcknowledgesDuplicates = defineCheck<{ answers: ReceiverAnswer[]; timeoutMs: number }>(
  "receiver.acknowledges-duplicates",
  "receiver",
  "The same callback delivered 3 times, as a provider that retries sends it, is acknowledged with a 2xx every time.",
  ({ answers, timeoutMs }) => {
    const bad = answers
      .map((answer, i) => ({ answer, delivery: i + 1 }))
      .filter(({ answer }) => !is2xx(answer.status) || answer.durationMs > timeoutMs);
    if (bad.length > 0)
      return fail(
        `${bad.length} of ${answers.length} deliveries of the same callback not acknowledged within ${timeoutMs} ms: ${bad
          .map(({ answer, delivery }) => `delivery ${delivery}: ${describeAnswer(answer)}`)
          .join("; ")}`,
      );
    return pass(`${answers.length} deliveries, each ${answers.map((a) => a.status).join(", ")}`);
  },
  { source: { kind: "declared", where: "callbacks.retryPolicy", keys: ["callbacks.retryPolicy"] } },
);

export const receiverAnswersVariation = defineCheck<{ answer: ReceiverAnswer }>(
  "receiver.answers-variation",
  "receiver",
  "A callback out of the usual order (succeeded_by_appeal first, a final status followed by another, an unknown order, another amount) is acknowledged (2xx) or refused (4xx), never a 5xx or no answer.",
  ({ answer }) =>
    is2xx(answer.status) || is4xx(answer.status)
      ? pass(`${answer.case}: ${describeAnswer(answer)}`)
      : fail(`${answer.case}: ${describeAnswer(answer)}; expected a 2xx or a 4xx`),
  { source: { kind: "necessary", reason: RECEIVER_PATH_REASON } },
);

export const receiverUnknownOrder = defineCheck<{
  answer: ReceiverAnswer;
  expected: "refuse" | "acknowledge";
}>(
  "receiver.unknown-order",
  "receiver",
  "A signed callback of an order the merchant never made is answered as the profile's callbacks.unknownOrder says: refused (4xx) or acknowledged (2xx).",
  ({ answer, expected }) => {
    const ok = expected === "refuse" ? is4xx(answer.status) : is2xx(answer.status);
    const wanted = expected === "refuse" ? "a 4xx (refused)" : "a 2xx (acknowledged)";
    return ok
      ? pass(`${answer.case}: ${describeAnswer(answer)}`)
      : fail(`${answer.case}: ${describeAnswer(answer)}; expected ${wanted}`);
  },
  {
    source: {
      kind: "advisory",
      reason:
        "the API description does not say what a merchant answers for an order it does not know; a receiver that acknowledges one is reported",
      declaredBy: ["callbacks.unknownOrder"],
    },
  },
);

/** A forgery's answer: anything but a 2xx refuses it; a 2xx is the worst a receiver can do. */
function refused(answer: ReceiverAnswer): CheckOutcome {
  if (is2xx(answer.status))
    return fail(
      `ACKNOWLEDGED a forged callback: ${answer.case}: ${describeAnswer(answer)}; expected a refusal (not a 2xx)`,
      [{ path: answer.case, expected: "a refusal (not a 2xx)", actual: describeAnswer(answer) }],
    );
  if (answer.status === undefined)
    return fail(`${answer.case}: ${describeAnswer(answer)}; expected a refusal (a 4xx)`);
  return pass(`${answer.case}: refused, ${describeAnswer(answer)}`);
}

/** The text a forgery check's detail starts with when the receiver took the forgery. */
export const FORGERY_ACKNOWLEDGED = "ACKNOWLEDGED a forged callback";

export const receiverRefusesForgery = defineCheck<{ answer: ReceiverAnswer }>(
  "receiver.refuses-forgery",
  "receiver",
  "A callback whose signature does not hold (none, another secret, another body, the body changed after signing) is refused: never a 2xx.",
  ({ answer }) => refused(answer),
  { source: { kind: "declared", where: "callbacks.signature", keys: ["callbacks.signature"] } },
);

export const receiverRefusesWrongPrefix = defineCheck<{ answer: ReceiverAnswer }>(
  "receiver.refuses-wrong-prefix",
  "receiver",
  "A signature whose prefix is not the scheme's (another prefix, none, the prefix in another case) is refused: never a 2xx.",
  ({ answer }) => refused(answer),
  {
    source: {
      kind: "declared",
      where: "callbacks.signature.prefix",
      keys: ["callbacks.signature.prefix"],
    },
  },
);

export const receiverRefusesReplay = defineCheck<{ answer: ReceiverAnswer }>(
  "receiver.refuses-replay",
  "receiver",
  "A validly signed callback older than the profile's replay window (callbacks.replayWindowSeconds, by its dateUpdatedPath) is refused: never a 2xx.",
  ({ answer }) => refused(answer),
  {
    source: {
      kind: "declared",
      where: "callbacks.replayWindowSeconds",
      keys: ["callbacks.replayWindowSeconds"],
    },
  },
);

export const receiverSurvivesMalformed = defineCheck<TimedAnswer>(
  "receiver.survives-malformed",
  "receiver",
  "A malformed delivery (not JSON, empty, 1 MB, another Content-Type, no status, an unknown status) is answered within the profile's callback timeout, never with a 5xx.",
  ({ answer, timeoutMs }) => {
    if (answer.status === undefined || answer.status >= 500)
      return fail(
        `${answer.case}: ${describeAnswer(answer)}; expected an answer below 500 within ${timeoutMs} ms`,
      );
    return pass(`${answer.case}: ${describeAnswer(answer)}`);
  },
  { source: { kind: "necessary", reason: RECEIVER_PATH_REASON } },
);

export const receiverRefusesMalformed = defineCheck<{ answer: ReceiverAnswer }>(
  "receiver.refuses-malformed",
  "receiver",
  "A malformed delivery is refused with a 4xx: what is not a callback of the profile's shape is not acknowledged as one.",
  ({ answer }) =>
    is4xx(answer.status)
      ? pass(`${answer.case}: refused, ${describeAnswer(answer)}`)
      : fail(`${answer.case}: ${describeAnswer(answer)}; expected a 4xx`),
  {
    source: {
      kind: "necessary",
      reason:
        "a 2xx tells the provider the callback was taken: a body with no status, an unknown status or no JSON cannot have been",
    },
  },
);

/** The 95th percentile (nearest rank) of durations; an unanswered delivery counts as endless. */
export function p95Of(durationsMs: readonly number[]): number {
  if (durationsMs.length === 0) return Number.NaN;
  const sorted = [...durationsMs].sort((a, b) => a - b);
  return sorted[Math.ceil(0.95 * sorted.length) - 1] as number;
}

export const receiverAckP95 = defineCheck<{
  /** Each delivery's time to a 2xx; Infinity for one not acknowledged. */
  durationsMs: number[];
  /** Deliveries the burst meant to send (it stops early once the 95th percentile is over). */
  planned: number;
  timeoutMs: number;
}>(
  "receiver.ack-p95",
  "receiver",
  "Over a burst of valid callbacks, the 95th percentile of the time to a 2xx is within the profile's callback timeout.",
  ({ durationsMs, planned, timeoutMs }) => {
    const over = durationsMs.filter((d) => d > timeoutMs).length;
    // Past 5% of the planned deliveries over the timeout, the percentile is over whatever follows.
    const decided = over > planned - Math.ceil(0.95 * planned);
    const p95 = durationsMs.length >= planned ? p95Of(durationsMs) : Number.POSITIVE_INFINITY;
    const shown = Number.isFinite(p95) ? `${Math.round(p95)} ms` : "over the timeout";
    if (decided || p95 > timeoutMs)
      return fail(
        `p95 ${shown} over ${timeoutMs} ms: ${over} of ${durationsMs.length} deliveries sent (of ${planned}) not acknowledged within it`,
      );
    return pass(`p95 ${shown} over ${durationsMs.length} deliveries (timeout ${timeoutMs} ms)`);
  },
  { source: { kind: "declared", where: "timeouts.callbackMs", keys: ["timeouts.callbackMs"] } },
);

/** The checks that find a receiver taking a forged callback: the report says so at its top. */
export const FORGERY_CHECKS: readonly string[] = [
  receiverRefusesForgery.name,
  receiverRefusesWrongPrefix.name,
  receiverRefusesReplay.name,
];
