/**
 * An order the profile gives a lifetime expires in real time once it has passed. On a slow
 * machine a probe's steps may take that long: a step the model expects to be accepted (the right
 * code) may then be refused because the order expired, as a correct provider must. Such a refusal
 * cannot be judged; a refusal the model expects stays judged, and a step sent well within the
 * lifetime is judged as always.
 */
import { answerRootCause, type Exchange, evaluateRejection } from "../../../contract/index.ts";
import type { BlockedBy } from "../../engine/run-context.ts";

/** A second of margin for the skew between the suite's clock and the target's, around a lifetime. */
export const LIFETIME_SKEW_MARGIN_MS = 1_000;

/** What a check waits on when its order's declared lifetime may have passed before its step. */
export const ORDER_LIFETIME_PASSED = "lifecycle.order-lifetime";

/**
 * Whether an order may have expired `elapsedMs` after it was created, in real time: its declared
 * lifetime, less what the sandbox clock moved it ahead, less the margin. Never without a lifetime.
 */
export function mayHaveOutlived(
  elapsedMs: number,
  lifetimeSeconds: number | undefined,
  movedAheadS = 0,
): boolean {
  return (
    lifetimeSeconds !== undefined &&
    elapsedMs >= (lifetimeSeconds - movedAheadS) * 1000 - LIFETIME_SKEW_MARGIN_MS
  );
}

export interface LateStep {
  /** The profile's declared lifetime (s); undefined when it declares none. */
  lifetimeSeconds: number | undefined;
  /** How far the sandbox clock had moved the order's clock ahead when the step was sent (s). */
  movedAheadS?: number;
  /** The order's creation, as recorded. */
  creation: Exchange | undefined;
  /** The step the model expects to be accepted, as recorded. */
  step: Exchange;
  /** The step in words, after "when": "the right code was sent". */
  what: string;
  /** The case the check waits on, when it has one. */
  case?: string;
  /**
   * How the profile says the target refuses an order that can no longer be confirmed (its
   * `errors.invalidOrderState`); none pinned: any refusal, a 4xx that is not a success.
   */
  expiredAnswer?: { httpStatus?: number | undefined; codeError?: string | undefined } | undefined;
}

/**
 * Why a step the model expects to be accepted is not judged: it was refused, and sent (its
 * recorded startedAt, from its creation's) when the order's declared lifetime may already have
 * passed, so the refusal may be the expiry. Undefined when it was accepted, when its answer is
 * not the refusal an expired order gets (`expiredAnswer`; a 5xx never is), when it is unreadable or
 * rate limited (judged as such elsewhere), when no lifetime is declared, or when it was sent well
 * within the lifetime.
 */
export function refusedAfterLifetime(late: LateStep): BlockedBy | undefined {
  const { lifetimeSeconds, creation, step } = late;
  if (lifetimeSeconds === undefined || creation === undefined) return undefined;
  const { response } = step;
  // Only the answer an expired order gets: a 4xx refusal, as the profile pins it. A 5xx, an
  // unreadable or rate-limited answer, or another refusal is judged as always.
  if (answerRootCause(response) || !evaluateRejection({ response, pinned: late.expiredAnswer }).ok)
    return undefined;
  // The target may have acted on the step as late as its answer came: a loaded machine can hold a
  // request sent in time until after the lifetime.
  const elapsedMs = Date.parse(step.startedAt) + step.durationMs - Date.parse(creation.startedAt);
  const movedAheadS = late.movedAheadS ?? 0;
  if (!mayHaveOutlived(elapsedMs, lifetimeSeconds, movedAheadS)) return undefined;
  const declared = `${lifetimeSeconds} s${movedAheadS > 0 ? `, ${movedAheadS} s of it moved ahead by the sandbox clock` : ""}`;
  const passed =
    elapsedMs >= (lifetimeSeconds - movedAheadS) * 1000
      ? "had passed"
      : `had all but passed (within the ${LIFETIME_SKEW_MARGIN_MS / 1000} s allowed for the clocks' skew)`;
  return {
    check: ORDER_LIFETIME_PASSED,
    ...(late.case !== undefined ? { case: late.case } : {}),
    reason: `the order's declared lifetime (${declared}) ${passed} when ${late.what} (answered ${(elapsedMs / 1000).toFixed(1)} s after its creation): its refusal may be the expiry`,
  };
}
