/**
 * The named checks: every rule, by name (the registry), and the helpers specs feed them with.
 * Other jobs of contract/ and contract/index.ts use this surface; everything else here is internal.
 */
// A check registers itself when its module is evaluated: these modules' checks the engine runs,
// and nothing outside names them, so they are imported for that alone.
import "./order-ids.ts";
import "./size.ts";

export { behaviourAmountNotRoundedPastLimit } from "./amount-rounding.ts";
export {
  acceptsMerchantOrderIdDifferingInCase,
  acceptsMerchantOrderIdOfOtherMerchant,
  confirmableAfterWrongCode,
  evaluateRejection,
  noServerError,
  type RejectionInput,
  rejectsConfirmingTwice,
  rejectsDuplicateMerchantOrderId,
  rejectsMalformedJson,
  rejectsMissingApiKey,
  rejectsMissingField,
  rejectsNearMissApiKey,
  rejectsNonPositiveAmount,
  rejectsOtherKindConfirmPath,
  rejectsOtherMerchantsOrder,
  rejectsQueryApiKey,
  rejectsTrafficTypeOutsideEnum,
  rejectsUnknownOrder,
  rejectsWrongApiKey,
  rejectsWrongCode,
} from "./behaviour.ts";
export {
  type CallbackScenario,
  callbackPathsOf,
  callbacksAppealAfterFailure,
  callbacksArrives,
  callbacksBodyParses,
  callbacksDateNotBeforeTrigger,
  callbacksExactlyOnce,
  callbacksMatchesOrder,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksNotBeforeTrigger,
  callbacksRetryPolicy,
  callbacksSandboxClock,
  callbacksSignatureValid,
  callbacksStopsAfterAcknowledgement,
  type DateBound,
  type SandboxClockAnswer,
} from "./callbacks.ts";
export {
  acceptanceExplained,
  CHECK_REGISTRY,
  type Check,
  type CheckScope,
  checksOfScope,
  defineCheck,
  describeRuleSource,
  effectiveSource,
  engineRunChecks,
  type RequirementContext,
  type RuleKind,
  type RuleSource,
  type RunJudgement,
  requirementOf,
  show,
} from "./check.ts";
export { checkOfConstraint, rejectsMethodOfOtherKind, rejectsOutOfRange } from "./constraints.ts";
export { type ContentCodingInput, envelopeContentCodingAccepted } from "./content-coding.ts";
export {
  callbackValues,
  type DateConvention,
  fieldsDateFraction,
  fieldsDateOffset,
  fieldsMoneyPrecision,
  fieldsOneDateFormat,
  type MoneyConvention,
  moneyValues,
  recordDates,
} from "./conventions.ts";
export {
  envelopeFailureData,
  envelopeFailureMarkers,
  envelopeFailureMessage,
  envelopeJsonContentType,
  envelopeRequestIdPresent,
  envelopeShape,
  envelopeSuccessMarkers,
} from "./envelope.ts";
export {
  type FieldsInput,
  fieldsConfirmationResult,
  fieldsOrderRecord,
  fieldsQuasiEcomCreationResult,
  fieldsStatusKnown,
} from "./fields.ts";
export { callbacksStrictJson } from "./json-text.ts";
export {
  callbacksExactUrl,
  callbacksFollowLifecycle,
  callbacksOneFinalAfterConcurrentConfirmations,
  concurrentConfirmationsOneAccepted,
  concurrentCreationsOneAccepted,
  confirmsLateInLifetime,
  expectedTimerDrop,
  type MeasuredRequest,
  type RefusalProofInput,
  type RefusalTimerInput,
  refusalChangesNothing,
  refusalKeepsTimer,
  rejectsConfirmAfterExpiry,
  rejectsMalformedCode,
  semanticsTimerFollowsClock,
  type TimerReads,
  timerCountsDownLifetime,
} from "./lifecycle.ts";
export {
  type BlindResendInput,
  type MerchantConfirmationInput,
  type MerchantOrderIdUse,
  merchantConfirmsConfirmable,
  merchantConfirmsOwnOrder,
  merchantNoBlindResend,
  merchantOrderIdUnique,
  merchantRequestBodyValid,
  merchantRequestHeaders,
} from "./merchant.ts";
export { RATE_LIMITED, rateLimitCause } from "./rate-limit.ts";
export {
  FORGERY_ACKNOWLEDGED,
  FORGERY_CHECKS,
  type ReceiverAnswer,
  receiverAcknowledgesDuplicates,
  receiverAcknowledgesValid,
  receiverAckP95,
  receiverAnswersVariation,
  receiverRefusesForgery,
  receiverRefusesMalformed,
  receiverRefusesReplay,
  receiverRefusesWrongPrefix,
  receiverSurvivesMalformed,
  receiverUnknownOrder,
} from "./receiver.ts";
export { envelopeRequestIdUnique } from "./request-ids.ts";
export { answerRootCause } from "./root-cause.ts";
export {
  dataOf,
  semanticsAmountEchoed,
  semanticsCommissionNonNegative,
  semanticsConfirmationEchoesOrder,
  semanticsCurrencyOfMethod,
  semanticsDatesOrdered,
  semanticsExchangeRatePositive,
  semanticsMerchantOrderIdEchoed,
  semanticsMethodEchoed,
  semanticsRequisiteTypeFields,
  semanticsRoutingAttemptsEmpty,
  semanticsStatusAfterOperation,
  semanticsTimerValid,
  semanticsUsdtAmount,
  semanticsUsdtCommission,
} from "./semantics.ts";
export { TRANSPORT_FAULT, transportFaultCause } from "./transport-fault.ts";
