/**
 * Target profile: what the suite must know about one target that the API description leaves
 * open. A profile is JSON, validated here before any request is sent; an error names the file
 * and the bad key. Every object may carry a "$comment" string, so a profile can be annotated.
 */
import { open } from "node:fs/promises";
import * as z from "zod";
import { describeRuleSource } from "../checks/index.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../client/index.ts"; // the profile's body limit
import { constraintBasis, luhnValid, requestJsonSchema, schemaFields } from "../generation/index.ts";
import {
  byOrderKind,
  CALLBACK_STATUSES,
  type CallbackStatus,
  CLIENT_METADATA_FIELDS,
  describeFinding,
  ENDPOINTS,
  ERROR_ANSWER_NAMES,
  type ErrorAnswerName,
  LENIENT_GAPS,
  NORMALISATION_NAMES,
  type Normalisation,
  nearestName,
  OPERATION_NAMES,
  OPERATIONS,
  OPERATIONS_BY_KIND,
  type OperationName,
  ORDER_KINDS,
  type OrderKind,
} from "../schemas/index.ts";
import { type JsonSchema, jsonErrorLocation, profileFindings, profileJsonSchemaOf } from "./profile-help.ts";

/** A strict object (unknown keys are errors, so a typo is caught) that may carry a "$comment". */
function annotated<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject({ $comment: z.string().optional(), ...shape });
}

const positiveMs = z.int().positive().max(600_000);

/** The longest deadline a Node.js timer can wait for (2^31 - 1 ms); a longer one fires at once. */
export const MAX_DEADLINE_MS = 2_147_483_647;

const ClientMetadataField = z.enum(CLIENT_METADATA_FIELDS);

// --- methods, limits, lifecycle, races: what the generated and stateful probes need ---

/** A method's fields; `amount` is required where the fixed checks order with the method. */
function methodShape<Amount extends z.ZodType>(amount: Amount) {
  return {
    methodID: z.int(),
    /** The currency this method fixes (§1). */
    currency: z.string().min(1),
    /** The amount the fixed checks order with. */
    amount,
    /** Smallest amount the target accepts for this method (§8 gap); the contract's floor is amount > 0. */
    minAmount: z.number().positive().optional(),
    /** Largest amount the target accepts for this method (§8 gap); none: no ceiling is probed. */
    maxAmount: z.number().positive().optional(),
    /** The paymentDetailsData.requisiteTypeCode of this method's order records (§2.2 gap; mobile commerce). */
    requisiteTypeCode: z.string().min(1).optional(),
    /** Conditional fields this target requires for this method (§4.5 gap). */
    requires: annotated({
      clientID: z.boolean().default(false),
      clientMetadata: z.array(ClientMetadataField).default([]),
    }).default({ clientID: false, clientMetadata: [] }),
  };
}

/** The amount limits of a method hold together, and its amount lies within them. */
function checkAmountLimits(
  method: { amount?: number | undefined; minAmount?: number | undefined; maxAmount?: number | undefined },
  ctx: z.core.$RefinementCtx,
): void {
  const { amount, minAmount, maxAmount } = method;
  if (minAmount !== undefined && maxAmount !== undefined && minAmount > maxAmount)
    ctx.addIssue({
      code: "custom",
      path: ["minAmount"],
      message: `at most maxAmount (${maxAmount})`,
    });
  if (amount !== undefined && minAmount !== undefined && amount < minAmount)
    ctx.addIssue({ code: "custom", path: ["amount"], message: `at least minAmount (${minAmount})` });
  if (amount !== undefined && maxAmount !== undefined && amount > maxAmount)
    ctx.addIssue({ code: "custom", path: ["amount"], message: `at most maxAmount (${maxAmount})` });
}

const MethodProfile = annotated(methodShape(z.number().positive())).superRefine(checkAmountLimits);
/** Another method of a flow: every method gets the generated orders and the conditional-field negatives. */
const OtherMethodProfile = annotated(methodShape(z.number().positive().optional())).superRefine(
  checkAmountLimits,
);

/** The refusals the lifecycle model names (contract/generation/lifecycle-model.ts `LifecycleError`). */
const LIFECYCLE_ERRORS = [
  "invalidOrderState",
  "invalidCode",
  "orderNotFound",
  "duplicateMerchantOrderId",
] as const;

const Lifecycle = annotated({
  /**
   * What each confirmation code leads to after processing, as the full sequence of statuses
   * (`3333`: failed_by_terminal, then succeeded_by_appeal). Default: each `code` trigger of
   * `callbackTriggers` leads to its status alone, and the success code to `succeeded`.
   */
  outcomes: z
    .array(annotated({ code: z.string().min(1), statuses: z.array(z.string().min(1)).min(1) }))
    .min(1)
    .optional(),
  /** What confirming through the other order kind's path answers. */
  otherKindConfirm: z.enum(LIFECYCLE_ERRORS).default("invalidOrderState"),
  /** What confirming another merchant's order answers; undeclared, any refusal. */
  otherMerchantConfirm: z.enum(LIFECYCLE_ERRORS).optional(),
  /** What confirming an already confirmed order answers; undeclared, that refusal is an advisory. */
  secondConfirm: z.enum(LIFECYCLE_ERRORS).optional(),
  /** Where merchantOrderID must be unique: per merchant account (the API description's wording) or across the service. */
  merchantOrderIdScope: z.enum(["merchant", "service"]).default("merchant"),
  /** The unit of `timer` (§2.3 gap). */
  timerUnit: z.enum(["seconds", "milliseconds"]).default("seconds"),
  /** How far `timer` may stray from the order's clock, in seconds. */
  timerToleranceSeconds: z.number().min(0).max(3_600).default(2),
});
const LIFECYCLE_DEFAULTS = {
  otherKindConfirm: "invalidOrderState",
  merchantOrderIdScope: "merchant",
  timerUnit: "seconds",
  timerToleranceSeconds: 2,
} as const;

const Races = annotated({
  /** How many identical requests the race probes send at once; keep it within the target's rate limit. */
  concurrency: z.int().min(2).max(50).default(5),
});

const lengthOrNone = z.union([z.int().min(0).max(1_000_000), z.literal("none")]);
const RequestRuleSchema = annotated({
  minLength: lengthOrNone.optional(),
  maxLength: z.union([z.int().min(1).max(1_000_000), z.literal("none")]).optional(),
  pattern: z
    .string()
    .min(1)
    .refine((source) => source === "none" || compiles(source), "a regular expression JavaScript can compile")
    .optional(),
  format: z.enum(["uri", "none"]).optional(),
});

function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** A dotted request field path (`clientMetadata.email`). */
const FieldPath = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, "must be a dotted field path");

// --- end of the issue-10 method block --------------------------------------------------------------

/** How to make an order enter a callback status. */
const Trigger = z.union([
  annotated({ code: z.string().min(1) }),
  annotated({
    /** Leave the order unconfirmed; use the sandbox clock where the target has one, else wait. */
    unconfirmedForSeconds: z.number().positive().max(86_400),
  }),
  annotated({ manual: z.string().min(1), waitSeconds: z.number().positive().max(86_400) }),
]);

const PinnedError = annotated({
  httpStatus: z.int().min(400).max(599).optional(),
  codeError: z.string().min(1).optional(),
});

const Signature = z.discriminatedUnion("scheme", [
  annotated({ scheme: z.literal("none") }),
  annotated({
    scheme: z.literal("hmac-sha256"),
    header: z.string().min(1).default("X-Signature"),
    /** Text before the digest in the header value. */
    prefix: z.string().default("sha256="),
    encoding: z.enum(["hex", "base64"]).default("hex"),
  }),
]);

/**
 * What the parts of a profile the probes read must agree on: a methodID listed once;
 * a maximum length only for a string field some request has; Luhn-valid test cards; outcome codes
 * that include the success code and not the wrong one.
 */
function checkProbeSettings(
  profile: {
    methods: Record<OrderKind, { methodID: number }>;
    otherMethods: Record<OrderKind, { methodID: number }[]>;
    maxLengths: Record<string, number | "none">;
    requestRules: Record<string, Record<string, unknown> | undefined>;
    testCards?: string[] | undefined;
    confirmation: { successCode: string; wrongCode: string };
    lifecycle: { outcomes?: { code: string }[] | undefined };
  },
  ctx: z.core.$RefinementCtx,
): void {
  const seen = new Map<number, string>();
  for (const kind of ORDER_KINDS) {
    const listed: [PropertyKey[], number][] = [
      [["methods", kind, "methodID"], profile.methods[kind].methodID],
      ...profile.otherMethods[kind].map((m, i): [PropertyKey[], number] => [
        ["otherMethods", kind, i, "methodID"],
        m.methodID,
      ]),
    ];
    for (const [path, methodID] of listed) {
      const first = seen.get(methodID);
      if (first !== undefined)
        ctx.addIssue({
          code: "custom",
          path,
          message: `a method not listed yet (${methodID} is at ${first})`,
        });
      else seen.set(methodID, path.join("."));
    }
  }
  const stringFields = new Map<string, string | undefined>();
  for (const kind of ORDER_KINDS) {
    for (const field of schemaFields(requestJsonSchema(ENDPOINTS[OPERATIONS_BY_KIND[kind].create].request)))
      stringFields.set(field.path, field.node.type);
  }
  for (const field of schemaFields(
    requestJsonSchema(ENDPOINTS[OPERATIONS_BY_KIND.mobile_commerce.confirm].request),
  ))
    stringFields.set(field.path, field.node.type);
  const ruled: [string, string][] = [
    ...Object.keys(profile.maxLengths).map((path): [string, string] => ["maxLengths", path]),
    ...Object.keys(profile.requestRules)
      .filter((path) => path !== "$comment")
      .map((path): [string, string] => ["requestRules", path]),
  ];
  for (const [key, path] of ruled) {
    const type = stringFields.get(path);
    if (type !== "string") {
      ctx.addIssue({
        code: "custom",
        path: [key, path],
        message:
          type === undefined
            ? `a string field of a request (${[...stringFields]
                .filter(([, t]) => t === "string")
                .map(([p]) => p)
                .join(", ")}); no create request has ${path}`
            : `a string field; ${path} is a ${type}`,
      });
    }
  }
  // A profile declares only what the API description leaves open: a stated or necessary rule stays.
  for (const [path, rule] of Object.entries(profile.requestRules)) {
    for (const keyword of Object.keys(rule ?? {})) {
      if (keyword === "$comment") continue;
      const basis = constraintBasis(path, keyword, { rules: {} });
      if (basis.kind !== "advisory")
        ctx.addIssue({
          code: "custom",
          path: ["requestRules", path, keyword],
          message: `not a rule a profile may change: it is ${describeRuleSource(basis)}; to waive its check, name the check in informationalChecks with the reason`,
        });
    }
  }
  // Never print a card number whole, even a bad one: the issue names the list, the index, the last 4 digits.
  (profile.testCards ?? []).forEach((card, i) => {
    if (!/^\d{12,19}$/.test(card) || !luhnValid(card))
      ctx.addIssue({
        code: "custom",
        path: ["testCards"],
        message: `card numbers of 12 to 19 digits passing the Luhn check; card ${i} (ending ${card.slice(-4)}) is not one`,
      });
  });
  const codes = profile.lifecycle.outcomes?.map((o) => o.code);
  if (codes !== undefined) {
    if (!codes.includes(profile.confirmation.successCode))
      ctx.addIssue({
        code: "custom",
        path: ["lifecycle", "outcomes"],
        message: `an outcome for the success code ${profile.confirmation.successCode}`,
      });
    if (codes.includes(profile.confirmation.wrongCode))
      ctx.addIssue({
        code: "custom",
        path: ["lifecycle", "outcomes"],
        message: `no outcome for the wrong code ${profile.confirmation.wrongCode}`,
      });
    if (new Set(codes).size !== codes.length)
      ctx.addIssue({ code: "custom", path: ["lifecycle", "outcomes"], message: "each code listed once" });
  }
}

// --- conventions: how dates and money are written, where the API description shows no format ---

const decimals = z.int().min(0).max(12);

/**
 * The date and money conventions the target documents. Each key declared is required of every
 * date and money value the suite reads (the order record, the confirmation result, each callback
 * body); a key left out is not checked.
 */
const Conventions = annotated({
  dates: annotated({
    /** "utc": every date is written in UTC (`Z` or `+00:00`); "any": any offset. */
    offset: z.enum(["utc", "any"]).optional(),
    /** Whether a date carries fractional seconds: "required", "forbidden" or "any". */
    fractionalSeconds: z.enum(["required", "forbidden", "any"]).optional(),
    /** Exactly this many digits of fractional seconds (3: milliseconds); implies they are required. */
    fractionDigits: z.int().min(1).max(9).optional(),
    /** Every date, the callbacks' included, is written in one format (the same fraction digits and offset spelling). */
    oneFormat: z.boolean().optional(),
  })
    .superRefine((dates, ctx) => {
      if (dates.fractionDigits !== undefined && dates.fractionalSeconds === "forbidden")
        ctx.addIssue({
          code: "custom",
          path: ["fractionDigits"],
          message: 'no fraction digits when fractionalSeconds is "forbidden" (drop one of the two)',
        });
    })
    .optional(),
  money: annotated({
    /** Decimals of `amount` in the order currency (record, confirmation result, callbacks). */
    amountDecimals: decimals.optional(),
    /** Decimals of `amountComission`, in the order currency. */
    commissionDecimals: decimals.optional(),
    /** Decimals of `usdtAmount`. */
    usdtAmountDecimals: decimals.optional(),
    /** Decimals of `usdtAmountComission`. */
    usdtCommissionDecimals: decimals.optional(),
  }).optional(),
});

/** The status each operation answers with, as the API description observed it (§3): the profile's default. */
const OBSERVED_STATUSES = Object.fromEntries(
  OPERATION_NAMES.map((operation) => [operation, OPERATIONS[operation].observedStatus]),
) as Record<OperationName, string>;

/** The longest Retry-After waited out, unless the profile says otherwise. */
export const DEFAULT_RETRY_AFTER_MAX_MS = 5_000;
/** How many 429s one request may wait out, unless the profile says otherwise. */
export const DEFAULT_RATE_LIMIT_RETRIES = 2;

export const ProfileSchema = annotated({
  $schema: z.string().optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  timeouts: annotated({
    /** Per HTTP request to the target. */
    requestMs: positiveMs.default(5_000),
    /** How long to wait for a callback after the request that triggers it. */
    callbackMs: positiveMs.default(15_000),
  }).default({ requestMs: 5_000, callbackMs: 15_000 }),
  // Bounded evidence: how much of each answer is read and kept; a larger one fails
  // `envelope.within-size-limit` and is kept cut, with its real size.
  limits: annotated({
    /** Bytes of an answer read and kept (after decoding). */
    maxBodyBytes: z.number().int().min(1).default(DEFAULT_MAX_BODY_BYTES),
    /** The whole run's deadline (default: derived from the timeouts, certify/engine/deadline.ts). */
    deadlineMs: z.int().positive().max(MAX_DEADLINE_MS).optional(),
    // Rate limits: a 429 whose Retry-After is at most this long is waited out and the
    // request sent again, at most rateLimitRetries times per request; a longer one stands.
    retryAfterMaxMs: z.int().min(0).default(DEFAULT_RETRY_AFTER_MAX_MS),
    rateLimitRetries: z.int().min(0).max(10).default(DEFAULT_RATE_LIMIT_RETRIES),
  }).default({
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    retryAfterMaxMs: DEFAULT_RETRY_AFTER_MAX_MS,
    rateLimitRetries: DEFAULT_RATE_LIMIT_RETRIES,
  }),
  /** Strictness where the API description leaves a gap (contract/schemas/schemas.ts, GapPolicy). */
  gaps: annotated({
    dateFormat: z.enum(["string", "rfc3339"]).default(LENIENT_GAPS.dateFormat),
    orderTypes: z.array(z.string().min(1)).default([]),
    currencies: z.array(z.string().min(1)).default([]),
    requisiteTypeCodes: z.array(z.string().min(1)).default([]),
    /** The requisiteTypeCode values that are link types (§2.2: a link "when requisiteTypeCode is the link type"). */
    linkRequisiteTypes: z.array(z.string().min(1)).optional(),
    extraStatuses: z.array(z.string().min(1)).optional(),
    /** What a failure's `data` is (§7 gap): "null" (null or absent) or "any". Undeclared: an advisory. */
    failureData: z.enum(["null", "any"]).optional(),
    /** What a failure's `result.message` is (§7 gap): "string" or "any". Undeclared: an advisory. */
    failureMessage: z.enum(["string", "any"]).optional(),
    /** Whether an optional request field may be sent as null (§4 does not say). Undeclared: none is. */
    nullOptionals: z.enum(["accept", "refuse"]).optional(),
  }).default({ dateFormat: LENIENT_GAPS.dateFormat, orderTypes: [], currencies: [], requisiteTypeCodes: [] }),
  /** How the target writes dates and money (§2.2 shows no format): each key declared is checked everywhere. */
  conventions: Conventions.default({}),
  /** Largest accepted absolute difference, in USDT, for usdtAmount ≈ amount / exchangeRate. */
  usdtTolerance: z.number().min(0).default(0.01),
  /** Per order kind (the names table's order kinds), the method the fixed checks order with. */
  methods: annotated(byOrderKind(() => MethodProfile)),
  /** Per order kind, every other method the merchant uses. */
  otherMethods: annotated(byOrderKind(() => z.array(OtherMethodProfile).default([]))).default(
    byOrderKind(() => []),
  ),
  /** Per request field (dotted path), the maximum length the target documents instead of the suite's. */
  maxLengths: z.record(FieldPath, z.union([z.int().min(1).max(1_000_000), z.literal("none")])).default({}),
  /** Per request field, the rules the target documents where the API description states none. */
  requestRules: z.record(FieldPath, RequestRuleSchema).default({}),
  /** Luhn-valid test card numbers the target's sandbox accepts (default: well-known public test cards). */
  testCards: z.array(z.string()).min(1).optional(),
  /** The order lifecycle beyond what the operations answer: outcomes per code, refusals, timer. */
  lifecycle: Lifecycle.default(LIFECYCLE_DEFAULTS),
  /** The race probes (concurrent creations and confirmations). */
  races: Races.default({ concurrency: 5 }),
  /** The status each operation answers (default: what the API description observed, §3). */
  expectedStatus: annotated(
    Object.fromEntries(
      OPERATION_NAMES.map((operation) => [
        operation,
        z.string().default(OPERATIONS[operation].observedStatus),
      ]),
    ) as Record<OperationName, z.ZodDefault<z.ZodString>>,
  ).default(OBSERVED_STATUSES),
  confirmation: annotated({
    /** A code the target accepts and that leads to `succeeded`. */
    successCode: z.string().min(1),
    /** A code the target refuses as wrong. */
    wrongCode: z.string().min(1),
  }),
  /** How to provoke each callback status (§6). */
  callbackTriggers: annotated(
    Object.fromEntries(CALLBACK_STATUSES.map((status) => [status, Trigger])) as Record<
      CallbackStatus,
      typeof Trigger
    >,
  ),
  /**
   * Whether the target offers the sandbox clock extension: false; true (if it fails, a warning,
   * and the suite waits out the lifetime); or "required" (if it fails, a failure).
   */
  sandboxClock: z.union([z.boolean(), z.literal("required")]).default(false),
  /** Errors the target documents; an unset one accepts any refusal (any 4xx, a codeError other than the success marker). */
  errors: annotated(
    Object.fromEntries(ERROR_ANSWER_NAMES.map((name) => [name, PinnedError.optional()])) as Record<
      ErrorAnswerName,
      z.ZodOptional<typeof PinnedError>
    >,
  ).default({}),
  /** Where the callback body names the order and the status (dotted paths), and its signature. */
  callbacks: annotated({
    idPath: z.string().min(1).default("id"),
    statusPath: z.string().min(1).default("status"),
    amountPath: z.string().min(1).optional(),
    currencyPath: z.string().min(1).optional(),
    merchantOrderIdPath: z.string().min(1).optional(),
    /** Where a callback says when its status was entered: orders callbacks that arrive out of order. */
    dateUpdatedPath: z.string().min(1).optional(),
    signature: Signature.default({ scheme: "none" }),
    /**
     * How old a signed callback may be (by its dateUpdatedPath) before a receiver must refuse it as
     * a replay; undeclared, no replay is tried on a merchant's receiver.
     */
    replayWindowSeconds: z
      .int()
      .positive()
      .max(86_400 * 30)
      .optional(),
    /**
     * What a merchant's receiver answers a signed callback of an order it does not know: "refuse"
     * (a 4xx) or "acknowledge" (a 2xx); undeclared, a 2xx is reported, never failed.
     */
    unknownOrder: z.enum(["refuse", "acknowledge"]).optional(),
    /** A documented retry policy turns the retry observation into a check. */
    retryPolicy: annotated({
      attempts: z.int().min(1).max(50),
      delaysMs: z.array(z.int().min(0)),
      toleranceMs: z.int().min(0).default(500),
    })
      // One wait between each two attempts: a shorter list would leave attempts the check cannot time.
      .superRefine((policy, ctx) => {
        if (policy.delaysMs.length !== policy.attempts - 1)
          ctx.addIssue({
            code: "custom",
            path: ["delaysMs"],
            message: `one wait between each two attempts: ${policy.attempts} attempts need ${policy.attempts - 1} delays, not ${policy.delaysMs.length} (fix attempts or delaysMs)`,
          });
      })
      .optional(),
  }).default({ idPath: "id", statusPath: "status", signature: { scheme: "none" } }),
  /** Load runs: the share of confirmed orders whose final callback must arrive (1 = every one). */
  loadDeliveryTarget: z.number().min(0).max(1).default(1),
  /** Normalisations the target does not apply: an input only they make valid must be refused. */
  strictInput: z.array(z.enum(NORMALISATION_NAMES as [Normalisation, ...Normalisation[]])).default([]),
  /** Checks this target is not held to (reported, but not required), each with a reason. */
  informationalChecks: z
    .record(z.string().min(1), z.string().min(1))
    .default({})
    .transform(({ $comment: _comment, ...reasons }) => reasons),
}).superRefine(checkProbeSettings);

/**
 * A validated profile, with the dotted key paths its file gives (not the defaults): an advisory
 * rule becomes declared, and so required, only where the profile's author wrote its key.
 */
export type Profile = z.output<typeof ProfileSchema> & { declaredKeys?: readonly string[] };
export type MethodProfile = z.output<typeof MethodProfile>;
export type ProfileConventions = z.output<typeof Conventions>;
export type OtherMethodProfile = z.output<typeof OtherMethodProfile>;

/** The profile's JSON Schema, generated from the zod schema, every key described. */
export function profileJsonSchema(): JsonSchema {
  return profileJsonSchemaOf(ProfileSchema);
}

export class ProfileError extends Error {
  override name = "ProfileError";
}

/** Validates a parsed profile; `source` names where it came from in the error. */
export function parseProfile(value: unknown, source: string, knownChecks?: ReadonlySet<string>): Profile {
  const parsed = ProfileSchema.safeParse(value);
  if (!parsed.success) {
    // Plain words, the path first, and the fix: what a missing key is for, the nearest known key.
    const lines = profileFindings(parsed.error, value, ProfileSchema).map(describeFinding);
    throw new ProfileError(`invalid profile ${source}:\n  ${lines.join("\n  ")}`);
  }
  if (knownChecks) {
    const unknown = Object.keys(parsed.data.informationalChecks).filter((name) => !knownChecks.has(name));
    if (unknown.length > 0) {
      throw new ProfileError(
        `invalid profile ${source}:\n  ${unknown
          .map((name) => {
            const nearest = nearestName(name, [...knownChecks]);
            return `informationalChecks.${name}: no check has this name${nearest ? ` (did you mean "${nearest}"?)` : ""}`;
          })
          .join("\n  ")}`,
      );
    }
  }
  return { ...parsed.data, declaredKeys: keyPathsOf(value) };
}

/** Every dotted key path of a JSON value's objects (arrays end a path), "$comment" left out. */
export function keyPathsOf(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    if (key === "$comment") return [];
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...keyPathsOf(child, path)];
  });
}

/**
 * A profile's bounds: a real one is a few KB, a few levels deep, with some hundred keys. Past
 * them the file is refused at once, not read whole (a device such as /dev/urandom never ends).
 */
export const MAX_PROFILE_BYTES = 1024 * 1024;
export const MAX_PROFILE_DEPTH = 32;
export const MAX_PROFILE_KEYS = 10_000;

/** At most `limit + 1` bytes of a file: enough to know it is over the limit. */
async function readAtMost(path: string, limit: number): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await file.close();
  }
}

/** Where a parsed profile is deeper or has more keys than the bounds allow, or undefined. */
function overBounds(value: unknown): string | undefined {
  let keys = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: node, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof node !== "object" || node === null) continue;
    if (depth >= MAX_PROFILE_DEPTH) return `it nests deeper than ${MAX_PROFILE_DEPTH} levels`;
    const children = Array.isArray(node) ? node : Object.values(node);
    keys += children.length;
    if (keys > MAX_PROFILE_KEYS)
      return `it has more than ${MAX_PROFILE_KEYS.toLocaleString("en-US")} keys and items`;
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return undefined;
}

/** Reads, parses and validates a profile file, within the bounds above. */
export async function readProfile(path: string, knownChecks?: ReadonlySet<string>): Promise<Profile> {
  let bytes: Buffer;
  try {
    bytes = await readAtMost(path, MAX_PROFILE_BYTES);
  } catch (error) {
    const code = (error as { code?: string }).code ?? "unreadable";
    throw new ProfileError(`cannot read profile ${path}: ${code}`);
  }
  if (bytes.length > MAX_PROFILE_BYTES)
    throw new ProfileError(
      `profile ${path} is larger than ${MAX_PROFILE_BYTES.toLocaleString("en-US")} bytes (1 MiB), the most a profile may be: give the target's profile file (a few KB of JSON)`,
    );
  const text = bytes.toString("utf8");
  let json: unknown;
  try {
    // An editor's UTF-8 byte order mark is no part of the JSON.
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new ProfileError(`profile ${path} is not valid JSON: ${jsonErrorLocation(text, error)}`);
  }
  const over = overBounds(json);
  if (over !== undefined)
    throw new ProfileError(
      `profile ${path} is refused: ${over}, more than a profile has: give the target's profile file`,
    );
  return parseProfile(json, path, knownChecks);
}
