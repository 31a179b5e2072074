/**
 * The H2H pay-in API contract as zod schemas: the single source of truth for every request,
 * response, envelope, status and callback. The OpenAPI document, the reference provider's
 * validation, payload builders and the checks all derive from what is here.
 *
 * Section numbers (§) refer to docs/api.md (the API description), the reference provider's
 * sandbox conventions to the last section of docs/api.md.
 *
 * Where the API description leaves a gap, the schema is lenient by default and a target profile can make it
 * strict through {@link GapPolicy}. Each such decision is written next to the field it concerns.
 */
import * as z from "zod";
import {
  CALLBACK_STATUSES,
  CLIENT_METADATA_FIELDS,
  type ClientMetadataField,
  ENVELOPE_MARKERS,
  OPERATION,
  type OperationName,
  ORDER_STATUSES,
  TRAFFIC_TYPES,
} from "./names.ts";

/**
 * How strict the schemas are where the API description leaves a gap. The default ({@link LENIENT_GAPS})
 * accepts anything the API description's wording allows; a profile narrows it to what a target documents.
 */
export interface GapPolicy {
  /**
   * §2.2 gap "Date and time format of dateAdded and dateUpdated: not shown".
   * `string`: any string (a check still verifies it parses as a date);
   * `rfc3339`: an RFC 3339 date-time with an offset or `Z` (the reference provider's format).
   */
  dateFormat: "string" | "rfc3339";
  /** §2.2 gap "Allowed values of orderType … not shown". Empty: any string. */
  orderTypes: readonly string[];
  /** §2.2 gap "Allowed values of … currency: not shown". Empty: any string. */
  currencies: readonly string[];
  /** §2.2 gap "Allowed values of … requisiteTypeCode: not shown". Empty: any string. */
  requisiteTypeCodes: readonly string[];
  /**
   * §3 gap "Complete list of statuses: not shown". Statuses a target documents beyond the seven
   * named ones: a list makes any status outside the union a contract violation; undefined (the
   * target documents no list) accepts any string.
   */
  extraStatuses?: readonly string[] | undefined;
}

export const LENIENT_GAPS: GapPolicy = {
  dateFormat: "string",
  orderTypes: [],
  currencies: [],
  requisiteTypeCodes: [],
  extraStatuses: undefined,
};

// --- building blocks ---------------------------------------------------------------------------

/** §2: "float64". zod 4's number() already rejects NaN and ±Infinity, which JSON cannot carry. */
const float64 = () => z.number();
/** §2: "integer". A safe integer (zod 4's int()). */
const integer = () => z.int();

/**
 * §2.2 "Required: no" plus "Fields that are not applicable are returned as null": an optional
 * field may be absent or null. Which of the two a target uses is not a contract question.
 */
const optionalNullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

function oneOfOrString(values: readonly string[]) {
  return values.length > 0 ? z.enum(values as [string, ...string[]]) : z.string();
}

/** A JSON string that names a date; see {@link GapPolicy.dateFormat}. */
function dateTime(policy: GapPolicy) {
  return policy.dateFormat === "rfc3339" ? z.iso.datetime({ offset: true }) : z.string().min(1);
}

/** A non-empty string other than `word` (a pattern, so the OpenAPI document carries it too). */
function anythingBut(word: string): RegExp {
  return new RegExp(`^(?!${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$).+$`);
}

// --- request limits and nullability: the suite's reading --------------------------
// The API description declares no maximum length for any request string, and does not say whether an
// optional request field may be sent as null. What follows is the suite's reading, in this one
// block; a target profile overrides a length per field (contract/generation/request-json-schema.ts applies
// the override to the JSON Schema the generated and negative inputs derive from).

/**
 * Maximum lengths of request strings, in UTF-16 code units as zod counts them (the same as
 * characters for every character of the Basic Multilingual Plane, Cyrillic and Kazakh included).
 */
export const REQUEST_MAX_LENGTHS = {
  /** Identifiers and free text (clientID, merchantOrderID, names, operator): a VARCHAR(255) column. */
  text: 255,
  /** `clientMetadata.email`: RFC 5321's limit on an address in a mail path. */
  email: 254,
  /** `clientMetadata.phone`: E.164's 15 digits with room for "+", spaces and punctuation. */
  phone: 32,
  /** URLs: the de-facto limit browsers and servers agree on. */
  url: 2048,
} as const;

/**
 * An optional request field may be absent or null: a merchant's JSON serializer commonly writes
 * null for an unset field, and §2.2 uses null for "not applicable" in the other direction. A
 * method that requires a conditional field requires it non-null (contract/generation/request-json-schema.ts).
 */
const optionalRequestField = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** A non-empty request string of at most `max` characters. */
const requestText = (max: number = REQUEST_MAX_LENGTHS.text) => z.string().min(1).max(max);

/** http(s) URL, as `metadata.webHook` and the redirect URLs must be to be reachable. */
const httpUrl = () => z.url({ protocol: /^https?$/ }).max(REQUEST_MAX_LENGTHS.url);

// --- requests (§4) -----------------------------------------------------------------------------

/**
 * §4.1 / §4.3 "clientMetadata.*: conditional". Optional in the contract; a target's profile says
 * which fields its geographies require.
 */
/** Maximum length of each `clientMetadata` field (see {@link REQUEST_MAX_LENGTHS}). */
const CLIENT_METADATA_MAX_LENGTHS: Record<ClientMetadataField, number> = {
  phone: REQUEST_MAX_LENGTHS.phone,
  operator: REQUEST_MAX_LENGTHS.text,
  name: REQUEST_MAX_LENGTHS.text,
  email: REQUEST_MAX_LENGTHS.email,
};
export const ClientMetadata = z.looseObject(
  Object.fromEntries(
    CLIENT_METADATA_FIELDS.map((field) => [
      field,
      optionalRequestField(requestText(CLIENT_METADATA_MAX_LENGTHS[field])),
    ]),
  ) as Record<ClientMetadataField, z.ZodOptional<z.ZodNullable<z.ZodString>>>,
);

/** Fields common to both create requests (§4.1 and §4.3 list them identically). */
const createOrderCommon = {
  /** §4: "Transfer method" (integer). Values are communicated at integration (§4.5 gap). */
  methodID: integer(),
  /**
   * "Payment amount" (float64). The API description shows no minimum (§8 gap), but a non-positive payment
   * amount is meaningless, so the contract requires amount > 0. A maximum is a target's rule.
   */
  amount: float64().positive(),
  trafficType: optionalRequestField(z.enum(TRAFFIC_TYPES)),
  /** "conditional": optional here, required per target through the profile. */
  clientID: optionalRequestField(requestText()),
  /** "must be unique within one merchant account". */
  merchantOrderID: optionalRequestField(requestText()),
};

export const CreateMobileCommerceOrderRequest = z.looseObject({
  ...createOrderCommon,
  clientMetadata: optionalRequestField(ClientMetadata),
  metadata: optionalRequestField(z.looseObject({ webHook: optionalRequestField(httpUrl()) })),
});
export type CreateMobileCommerceOrderRequest = z.infer<typeof CreateMobileCommerceOrderRequest>;

/**
 * §4.3 `requisites.*`: all required strings. The API description fixes the formats of the expiry fields
 * (`MM`, `YY`); for the card number and CVC it says only "string", and this contract narrows them
 * to what a bank card can be (ISO/IEC 7812: 12–19 digits; CVC/CVV: 3–4 digits) so that an
 * obviously malformed card is a validation failure rather than a provider-specific surprise.
 * Digits are `[0-9]`: what `\d` means here, and what every other regex engine reads alike.
 */
export const CardRequisites = z.looseObject({
  number: z.string().regex(/^[0-9]{12,19}$/, "must be 12 to 19 digits"),
  mediatorName: requestText(),
  lifetimeMonth: z.string().regex(/^(0[1-9]|1[0-2])$/, "must be a month in the format MM (01-12)"),
  lifetimeYear: z.string().regex(/^[0-9]{2}$/, "must be a year in the format YY"),
  cvc: z.string().regex(/^[0-9]{3,4}$/, "must be 3 or 4 digits"),
});

export const CreateQuasiEcomOrderRequest = z.looseObject({
  ...createOrderCommon,
  requisites: CardRequisites,
  /**
   * §2.2 gap: a quasi-ecom sample carries `metadata.successRedirectURL` and
   * `metadata.failRedirectURL`, but no table lists them and their semantics are not shown. They
   * are accepted as optional URLs and never required.
   */
  metadata: optionalRequestField(
    z.looseObject({
      webHook: optionalRequestField(httpUrl()),
      successRedirectURL: optionalRequestField(httpUrl()),
      failRedirectURL: optionalRequestField(httpUrl()),
    }),
  ),
});
export type CreateQuasiEcomOrderRequest = z.infer<typeof CreateQuasiEcomOrderRequest>;

// --- end of the issue-10 request block -----------------------------------------------------------

/** §4.2 / §4.4: the confirmation code, a required string (its format is a target's rule). */
export const ConfirmOrderRequest = z.looseObject({ code: z.string().min(1) });
export type ConfirmOrderRequest = z.infer<typeof ConfirmOrderRequest>;

// --- envelope (§2.1, §7) -----------------------------------------------------------------------

/** §2.1 `result`, whatever the outcome. */
export const ResultMember = z.looseObject({
  codeError: z.string(),
  message: z.string().nullable(),
  status: z.string(),
  /** §7: "Every response, successful or not, is expected to carry result.x-request-id". */
  "x-request-id": z.string().min(1),
});

/** §7: on success `codeError` is `none`, `message` is null and `status` is `success`. */
export const SuccessResult = ResultMember.extend({
  codeError: z.literal(ENVELOPE_MARKERS.successCodeError),
  message: z.null(),
  status: z.literal(ENVELOPE_MARKERS.successStatus),
});

/**
 * A failure. The API description shows no failure shape (§7 gap); what follows from it is that a
 * failure cannot carry the success markers: a code other than `none`, a status other than
 * `success`. Its message is §2.1's string or null; a profile can declare more (gaps.failureMessage).
 */
export const ErrorResult = ResultMember.extend({
  codeError: z.string().regex(anythingBut(ENVELOPE_MARKERS.successCodeError), {
    message: `must be a code other than "${ENVELOPE_MARKERS.successCodeError}"`,
  }),
  status: z.string().regex(anythingBut(ENVELOPE_MARKERS.successStatus), {
    message: `must be other than "${ENVELOPE_MARKERS.successStatus}"`,
  }),
});

/** §2.1 / §7: the schema of a successful response's envelope around `data`. */
export function successEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.looseObject({ data, result: SuccessResult });
}

/**
 * A failure's envelope. §2.1 gives every response a `data` member and §7 shows none for a failure:
 * any `data` is allowed; a profile can declare it null or absent (gaps.failureData).
 */
export const ErrorEnvelope = z.looseObject({ data: z.unknown().optional(), result: ErrorResult });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

// --- the contract, built for one gap policy ----------------------------------------------------

/** The response-side schemas, which depend on how strict the gaps are. */
export function buildContract(policy: GapPolicy = LENIENT_GAPS) {
  const orderStatus =
    policy.extraStatuses === undefined
      ? z.string()
      : z.enum([...ORDER_STATUSES, ...policy.extraStatuses] as [string, ...string[]]);

  /** §2.2's dates; one schema for all of them, so the OpenAPI document names it once. */
  const date = dateTime(policy);

  /** §2.2 `paymentDetailsData`. */
  const paymentDetailsData = z.looseObject({
    methodID: integer(),
    requisiteTypeCode: oneOfOrString(policy.requisiteTypeCodes),
    mediatorName: optionalNullable(z.string()),
    bankCode: optionalNullable(z.string()),
    number: optionalNullable(z.string()),
    numberAdditional: optionalNullable(z.string()),
    link: optionalNullable(z.string()),
  });

  /** §2.2: the order record a mobile-commerce creation returns. */
  const orderRecord = z.looseObject({
    id: z.string().min(1),
    dateAdded: date,
    dateUpdated: date,
    orderType: oneOfOrString(policy.orderTypes),
    status: orderStatus,
    /** "Required: no … It can be null". */
    idTransactionMerchant: optionalNullable(z.string()),
    amount: float64(),
    amountComission: float64(),
    currency: oneOfOrString(policy.currencies),
    usdtAmount: float64(),
    usdtAmountComission: float64(),
    exchangeRate: float64(),
    merchantID: z.string().min(1),
    /**
     * "present in the response … empty in the creation response". §2.2 gap "Element shape of
     * routingAttempts: not shown": elements are unconstrained; a check asserts emptiness on creation.
     */
    routingAttempts: z.array(z.unknown()),
    paymentDetailsData,
  });

  /** §2.3: the result of both confirm operations. */
  const confirmationResult = z.looseObject({
    id: z.string().min(1),
    status: orderStatus,
    merchantOrderID: optionalNullable(z.string()),
    currency: oneOfOrString(policy.currencies),
    amount: float64(),
    /** "A timer value" (float64). Unit and meaning are a §8 gap; the reference uses seconds left. */
    timer: float64(),
  });

  /** §2.4: the result of a quasi-ecom creation. */
  const quasiEcomCreationResult = z.looseObject({
    id: z.string().min(1),
    status: orderStatus,
    merchantOrderID: optionalNullable(z.string()),
  });

  /**
   * The reference sandbox: the reference provider's callback body. §6 gap "body shape … not shown": a foreign
   * target's callback shape comes from its profile, not from this schema.
   */
  const referenceCallbackBody = z.looseObject({
    id: z.string().min(1),
    merchantOrderID: optionalNullable(z.string()),
    status: z.enum(CALLBACK_STATUSES),
    amount: float64(),
    currency: oneOfOrString(policy.currencies),
    orderType: oneOfOrString(policy.orderTypes),
    dateUpdated: date,
  });

  return {
    policy,
    date,
    orderStatus,
    paymentDetailsData,
    orderRecord,
    confirmationResult,
    quasiEcomCreationResult,
    referenceCallbackBody,
    /** Each operation's success envelope (§4): a confirmation's result, or the kind's creation result. */
    responses: {
      [OPERATION.createMobileCommerceOrder]: successEnvelopeSchema(orderRecord),
      [OPERATION.confirmMobileCommerceOrder]: successEnvelopeSchema(confirmationResult),
      [OPERATION.createQuasiEcomOrder]: successEnvelopeSchema(quasiEcomCreationResult),
      [OPERATION.confirmQuasiEcomOrder]: successEnvelopeSchema(confirmationResult),
    } satisfies Record<OperationName, z.ZodType>,
  };
}

export type Contract = ReturnType<typeof buildContract>;

/** The contract as the API description allows it, with every gap lenient. */
export const contract = buildContract(LENIENT_GAPS);

export type OrderRecord = z.infer<Contract["orderRecord"]>;
export type ConfirmationResult = z.infer<Contract["confirmationResult"]>;
export type QuasiEcomCreationResult = z.infer<Contract["quasiEcomCreationResult"]>;
export type ReferenceCallbackBody = z.infer<Contract["referenceCallbackBody"]>;
