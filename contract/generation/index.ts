/**
 * Requests the suite sends: valid orders, derived negatives, the lifecycle model, shrinking.
 * Other jobs of contract/ and contract/index.ts use this surface; everything else here is internal.
 */
export { type AmountRoundingProbe, amountRoundingProbes } from "./amount-rounding.ts";
export {
  createRequestSchema,
  type GeneratedOrder,
  type GenerateOrdersOptions,
  type GenerationDepth,
  generateOrders,
  luhnValid,
  SeededRandom,
  TEST_CARD_NUMBERS,
} from "./generated-orders.ts";
export {
  AFTER_WRONG_CODE,
  answeredAsModelled,
  buildLifecycleModel,
  type LifecycleConventions,
  type LifecycleError,
  type LifecycleModel,
  type LifecycleOperation,
  type LifecycleTransition,
  NOT_CREATED,
  type ReachablePair,
  reachablePairs,
  transitionOf,
} from "./lifecycle-model.ts";
export { deriveNegativeCases, type NegativeCase, type NegativeCases } from "./negative-cases.ts";
export { onRequestBody, readRequestBody } from "./request-body.ts";
export {
  type JsonSchemaNode,
  type OrderMethod,
  requestJsonSchema,
  schemaField,
  schemaFields,
  withRequestRules,
} from "./request-json-schema.ts";
export { constraintBasis, mergedRequestRules, UNLIMITED_PROBE_LENGTH } from "./request-rules.ts";
export { shrinkRequest, toCurl } from "./shrink.ts";
