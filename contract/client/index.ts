/**
 * Talking to a target: the HTTP client (bounded bodies, transport faults, 429s), the exchange
 * recorder, and the sandbox clock's request.
 * Other jobs of contract/ and contract/index.ts use this surface; everything else here is internal.
 */
export {
  DEFAULT_MAX_BODY_BYTES,
  type EvidenceCut,
  type Exchange,
  type ExchangeResponse,
  H2hClient,
  type RateLimitRetry,
  TransportError,
  type WireTimes,
  wireTimesOf,
} from "./h2h-client.ts";
export {
  appendRecord,
  ExchangeRecorder,
  linesOf,
  MAX_RUN_BODY_BYTES,
  type RecordedEvidence,
  type RecordedExchange,
  readRecordedEvidence,
  readWriteFailures,
} from "./recorder.ts";
export { AdvanceClockRequest, SANDBOX_CLOCK_ADVANCE_PATH } from "./sandbox-clock.ts";
