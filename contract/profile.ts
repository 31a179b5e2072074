/**
 * Target profile (DESIGN §4): what the suite must know about one target that the seed leaves
 * open. A profile is JSON, validated here before any request is sent; an error names the file
 * and the bad key. Every object may carry a "$comment" string, so a profile can be annotated.
 */
import { readFile } from "node:fs/promises";
import * as z from "zod";
import {
  byOrderKind,
  CALLBACK_STATUSES,
  type CallbackStatus,
  CLIENT_METADATA_FIELDS,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
} from "./names.ts";
import { describeFinding, nearestName } from "./plain-issues.ts";
import { type JsonSchema, jsonErrorLocation, profileFindings, profileJsonSchemaOf } from "./profile-help.ts";
import { LENIENT_GAPS } from "./schemas.ts";

/** A strict object (unknown keys are errors, so a typo is caught) that may carry a "$comment". */
function annotated<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject({ $comment: z.string().optional(), ...shape });
}

const positiveMs = z.int().positive().max(600_000);

const ClientMetadataField = z.enum(CLIENT_METADATA_FIELDS);

const MethodProfile = annotated({
  methodID: z.int(),
  /** The currency this method fixes (§1). */
  currency: z.string().min(1),
  /** The amount the suite orders with. */
  amount: z.number().positive(),
  /** Conditional fields this target requires for this method (§4.5 gap). */
  requires: annotated({
    clientID: z.boolean().default(false),
    clientMetadata: z.array(ClientMetadataField).default([]),
  }).default({ clientID: false, clientMetadata: [] }),
});

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

/** The status each operation answers with, as the seed observed it (§3): the profile's default. */
const OBSERVED_STATUSES = Object.fromEntries(
  OPERATION_NAMES.map((operation) => [operation, OPERATIONS[operation].observedStatus]),
) as Record<OperationName, string>;

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
  /** Strictness where the seed leaves a gap (contract/schemas.ts, GapPolicy). */
  gaps: annotated({
    dateFormat: z.enum(["string", "rfc3339"]).default(LENIENT_GAPS.dateFormat),
    orderTypes: z.array(z.string().min(1)).default([]),
    currencies: z.array(z.string().min(1)).default([]),
    requisiteTypeCodes: z.array(z.string().min(1)).default([]),
    extraStatuses: z.array(z.string().min(1)).default([]),
  }).default({ ...LENIENT_GAPS, orderTypes: [], currencies: [], requisiteTypeCodes: [], extraStatuses: [] }),
  /** Largest accepted absolute difference, in USDT, for usdtAmount ≈ amount / exchangeRate. */
  usdtTolerance: z.number().min(0).default(0.01),
  /** Per order kind (the names table's order kinds), the method the suite orders with. */
  methods: annotated(byOrderKind(() => MethodProfile)),
  /** The status each operation answers (default: what the seed observed, §3). */
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
  errors: annotated({
    unauthorized: PinnedError.optional(),
    validation: PinnedError.optional(),
    invalidJson: PinnedError.optional(),
    orderNotFound: PinnedError.optional(),
    duplicateMerchantOrderId: PinnedError.optional(),
    invalidOrderState: PinnedError.optional(),
    invalidCode: PinnedError.optional(),
  }).default({}),
  /** Where the callback body names the order and the status (dotted paths), and its signature. */
  callbacks: annotated({
    idPath: z.string().min(1).default("id"),
    statusPath: z.string().min(1).default("status"),
    amountPath: z.string().min(1).optional(),
    currencyPath: z.string().min(1).optional(),
    merchantOrderIdPath: z.string().min(1).optional(),
    signature: Signature.default({ scheme: "none" }),
    /** A documented retry policy turns the retry observation into a check. */
    retryPolicy: annotated({
      attempts: z.int().min(1).max(50),
      delaysMs: z.array(z.int().min(0)),
      toleranceMs: z.int().min(0).default(500),
    }).optional(),
  }).default({ idPath: "id", statusPath: "status", signature: { scheme: "none" } }),
  /** Load runs: the share of confirmed orders whose final callback must arrive (1 = every one). */
  loadDeliveryTarget: z.number().min(0).max(1).default(1),
  /** Checks this target is not held to (reported, but not required), each with a reason. */
  informationalChecks: z
    .record(z.string().min(1), z.string().min(1))
    .default({})
    .transform(({ $comment: _comment, ...reasons }) => reasons),
});

export type Profile = z.output<typeof ProfileSchema>;
export type MethodProfile = z.output<typeof MethodProfile>;

/** The profile's JSON Schema, generated from the zod schema, every key described (issue 11 §7). */
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
  return parsed.data;
}

/** Reads, parses and validates a profile file. */
export async function readProfile(path: string, knownChecks?: ReadonlySet<string>): Promise<Profile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code ?? "unreadable";
    throw new ProfileError(`cannot read profile ${path}: ${code}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ProfileError(`profile ${path} is not valid JSON: ${jsonErrorLocation(text, error)}`);
  }
  return parseProfile(json, path, knownChecks);
}
