/**
 * A rate-limited answer as a cause: kept apart from root-cause.ts, which imports the envelope
 * checks, so that the checks importing this one keep the registry's order.
 */
import type { ExchangeResponse } from "../client/index.ts";
import { show } from "./check.ts";

export interface RateLimitCause {
  check: string;
  signature: string;
  reason: string;
}

/** What a check that met a rate-limited answer waits on: no check fails for it, so it is never explained. */
export const RATE_LIMITED = "target.rate-limited";

/**
 * A 429 or 503 is the target's limiter (or load) speaking, not the endpoint: never a refusal, an
 * acceptance or an envelope to judge. Undefined for any other answer.
 */
export function rateLimitCause(response: ExchangeResponse): RateLimitCause | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const retryAfter = response.headers["retry-after"];
  const why = retryAfter === undefined ? "no Retry-After" : `Retry-After ${show(retryAfter)} not waited out`;
  return {
    check: RATE_LIMITED,
    signature: `rate limited · HTTP ${response.status}`,
    reason: `rate limited: HTTP ${response.status}, ${why}`,
  };
}
