/**
 * One cause per failure. An answer that is not JSON, or JSON that is not the
 * data/result envelope, fails `envelope.shape`; every other check of that answer depends on it
 * and is then "not evaluated, because …" instead of failing as well. The signature groups answers
 * that failed for the same reason, so one endpoint shows one root cause, not a cascade.
 */
import type { ExchangeResponse } from "../client/index.ts";
import { isRecord, show } from "./check.ts";
import { envelopeShape } from "./envelope.ts";

export { RATE_LIMITED, rateLimitCause } from "./rate-limit.ts";
export { TRANSPORT_FAULT, transportFaultCause } from "./transport-fault.ts";

export interface RootCause {
  /** The check that fails for it: the others of the same answer wait on it. */
  check: string;
  /** Answers with the same signature failed for the same reason (kind, HTTP status, media type). */
  signature: string;
  /** What is wrong with the answer, in words ("the answer is not JSON (HTTP 502, text/html …)"). */
  reason: string;
}

function mediaType(response: ExchangeResponse): string {
  return (response.headers["content-type"] ?? "no Content-Type").split(";")[0]?.trim() || "no Content-Type";
}

/** Why no check can read this answer, or undefined when it is an envelope they can read. */
export function answerRootCause(response: ExchangeResponse): RootCause | undefined {
  const type = mediaType(response);
  if (response.json === undefined) {
    const start = response.body.slice(0, 60).replace(/\s+/g, " ");
    const what =
      response.body.length === 0 ? "an empty body" : `${response.body.length} bytes: ${show(start)}`;
    return {
      check: envelopeShape.name,
      signature: `not JSON · HTTP ${response.status} · ${type}`,
      reason: `the answer is not JSON (HTTP ${response.status}, ${type}, ${what})`,
    };
  }
  if (!isRecord(response.json) || !isRecord(response.json.result)) {
    return {
      check: envelopeShape.name,
      signature: `not an envelope · HTTP ${response.status}`,
      reason: `the answer is JSON but not the data/result envelope (HTTP ${response.status}: ${show(response.json)})`,
    };
  }
  return undefined;
}
