/**
 * The contract's names and shapes: the names table, the zod schemas, endpoints, the documented error
 * answers, the callback signature, and the rules of JSON text and of plain-words findings.
 * Other jobs of contract/ and contract/index.ts use this surface; everything else here is internal.
 */
export { asciiPattern, wideClassesIn } from "./ascii-patterns.ts";
export {
  explainCallbackSignature,
  type HmacScheme,
  type SignatureExplanation,
  type SignatureScheme,
  signCallbackBody,
  verifyCallbackSignature,
} from "./callback-signature.ts";
export { ENDPOINTS, matchEndpoint } from "./endpoints.ts";
export {
  ERROR_ANSWER_NAMES,
  ERROR_ANSWERS,
  ERROR_STATUS_BY_CODE,
  type ErrorAnswerName,
  errorAnswersOf,
} from "./error-answers.ts";
export { boundedJson, cutToSerialisedBytes, jsonBytes, serialisedBytes, withinDepth } from "./json-size.ts";
export {
  type JsonTextIssue,
  type JsonTextProblem,
  type JsonTextReport,
  jsonTextIssues,
  withoutBom,
} from "./json-text.ts";
export {
  byOrderKind,
  CALLBACK_STATUSES,
  type CallbackStatus,
  CLIENT_METADATA_FIELDS,
  type ClientMetadataField,
  CONFIRMED_STATUSES,
  type ConfirmedStatus,
  callbackUrlWith,
  ENDPOINT_PATHS,
  ENVELOPE_MARKERS,
  endpointPath,
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
  readPath,
  STATUS,
  STATUSES,
  successResult,
  TRAFFIC_TYPES,
} from "./names.ts";
export {
  NORMALISATION_NAMES,
  NORMALISATIONS,
  type Normalisation,
  nearMissApiKeys,
  nearMissCodes,
  normalisedValues,
  standInCodePattern,
} from "./near-misses.ts";
export { describeFinding, describeValue, type Finding, nearestName, plainFindings } from "./plain-issues.ts";
export {
  buildContract,
  type ConfirmationResult,
  ConfirmOrderRequest,
  type Contract,
  CreateMobileCommerceOrderRequest,
  CreateQuasiEcomOrderRequest,
  contract,
  ErrorEnvelope,
  ErrorResult,
  LENIENT_GAPS,
  type OrderRecord,
  type QuasiEcomCreationResult,
  REQUEST_MAX_LENGTHS,
  type ReferenceCallbackBody,
  ResultMember,
  SuccessResult,
  successEnvelopeSchema,
} from "./schemas.ts";
export { describeZodIssues } from "./zod-issues.ts";
