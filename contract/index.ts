/**
 * The contract package's public surface: what the layers above (the sink, the reference
 * provider, load, certify, scripts) may use. Everything else in contract/ is internal.
 *
 * k6 code imports `contract/names.ts` directly instead: it is the one schema-free entry point, so a
 * load bundle carries no validator library.
 */

export { type AmountRoundingProbe, amountRoundingProbes } from "./amount-rounding.ts";
export {
  explainCallbackSignature,
  type HmacScheme,
  type SignatureExplanation,
  type SignatureScheme,
  signCallbackBody,
  verifyCallbackSignature,
} from "./callback-signature.ts";
// The checks: every rule, by name (the registry), and the helpers specs feed them with.
export * from "./checks/index.ts";
export { type DerivedNegatives, derivedNegativesOf, type NegativeBaseOptions } from "./derived-negatives.ts";
// The endpoints and the OpenAPI document generated from them.
export { ENDPOINTS, type Endpoint, matchEndpoint } from "./endpoints.ts";
// The documented error answers: the OpenAPI error responses, the profile's `errors` keys and the
// reference provider's codes derive from this one table.
export {
  ERROR_ANSWER_NAMES,
  ERROR_ANSWERS,
  ERROR_STATUS_BY_CODE,
  type ErrorAnswer,
  type ErrorAnswerName,
  errorAnswersOf,
} from "./error-answers.ts";
// Generated and stateful probing: valid orders, derived negatives, the lifecycle model, shrinking.
export * from "./generated-orders.ts";
// Talking to a target, and keeping what was said (masked).
// Answers are read within a body limit (the real size recorded), decoded within it, 429s parsed.
export {
  type BodySize,
  type ContentEncodingInfo,
  DEFAULT_MAX_BODY_BYTES,
  type EvidenceCut,
  type Exchange,
  type ExchangeResponse,
  H2hClient,
  type H2hClientOptions,
  parseRetryAfter,
  type RateLimitedAttempt,
  type RateLimitInfo,
  type RateLimitRetry,
  rateLimitWait,
  type SendOptions,
  TransportError,
  type TransportFaultKind,
  type WireTimes,
  wireTimesOf,
} from "./h2h-client.ts";
export {
  boundedJson,
  cutToSerialisedBytes,
  jsonBytes,
  MAX_JSON_DEPTH,
  serialisedBytes,
  withinDepth,
} from "./json-size.ts";
// What JSON.parse forgives, read from the bytes as received (BOM, not UTF-8, names twice, lone surrogates).
export {
  type JsonTextIssue,
  type JsonTextProblem,
  type JsonTextReport,
  jsonTextIssues,
  withoutBom,
} from "./json-text.ts";
export * from "./lifecycle-model.ts";
// The names table (schema-free): operations, kinds, statuses, markers, enums, callback URLs.
export {
  byOrderKind,
  CALLBACK_STATUSES,
  CALLBACKS_SEGMENT,
  type CallbackStatus,
  type CallbackUrlVariant,
  CLIENT_METADATA_FIELDS,
  type ClientMetadataField,
  CONFIRMED_STATUSES,
  type ConfirmedStatus,
  callbackUrlWith,
  ENDPOINT_PATHS,
  ENVELOPE_MARKERS,
  endpointPath,
  MALFORMED_ESCAPE,
  OPERATION,
  OPERATION_NAMES,
  OPERATIONS,
  OPERATIONS_BY_KIND,
  type OperationName,
  ORDER_KIND,
  ORDER_KINDS,
  ORDER_STATUSES,
  type OrderKind,
  type OrderStatus,
  otherOrderKind,
  parseCallbackVariant,
  readPath,
  STATUS,
  STATUSES,
  sinkCallbackUrl,
  successResult,
  TRAFFIC_TYPES,
} from "./names.ts";
export * from "./near-misses.ts";
export * from "./negative-cases.ts";
export { buildOpenApiDocument } from "./openapi.ts";
// Schema problems in plain words (path, expected, actual), for checks, profiles and messages.
export {
  describeFinding,
  describeValue,
  type Finding,
  nearestName,
  type PlainIssueOptions,
  plainFindings,
} from "./plain-issues.ts";
// Target profiles.
export {
  MAX_DEADLINE_MS,
  type Profile,
  ProfileError,
  parseProfile,
  profileJsonSchema,
  readProfile,
} from "./profile.ts";
export { type JsonSchema, PROFILE_KEY_DOCS, profileKeyDoc, walkSchema } from "./profile-help.ts";
export * from "./profile-probes.ts";
// The callbacks the receiver battery plays towards a merchant's webhook receiver.
export * from "./receiver-deliveries.ts";
export {
  appendRecord,
  ExchangeRecorder,
  MAX_RUN_BODY_BYTES,
  type RecordedEvidence,
  type RecordedExchange,
  readRecordedEvidence,
  readRecordedExchanges,
  readWriteFailures,
  type WriteFailure,
} from "./recorder.ts";
export { onRequestBody, readRequestBody } from "./request-body.ts";
export { requestFields, withField, wrongTypeValue } from "./request-fields.ts";
export * from "./request-json-schema.ts";
export * from "./request-rules.ts";
// The sandbox clock extension and callback signatures.
export { AdvanceClockRequest, SANDBOX_CLOCK_ADVANCE_PATH } from "./sandbox-clock.ts";
// The zod schemas, built for a gap policy.
export {
  buildContract,
  type ConfirmationResult,
  ConfirmOrderRequest,
  type Contract,
  CreateMobileCommerceOrderRequest,
  CreateQuasiEcomOrderRequest,
  contract,
  ErrorEnvelope,
  type GapPolicy,
  LENIENT_GAPS,
  type OrderRecord,
  type QuasiEcomCreationResult,
  type ReferenceCallbackBody,
} from "./schemas.ts";
export * from "./shrink.ts";
export { describeZodIssues } from "./zod-issues.ts";
