/**
 * Help for whoever writes a target profile: the JSON Schema an editor completes and
 * checks it with (generated from the zod schema, with a description of every key), and errors that
 * name the path and say the fix: what is missing and what it is for, which form of a union was
 * meant, the nearest known key for a typo, the line and column of a JSON syntax error.
 *
 * It takes the profile's zod schema as an argument (profile.ts hands it in), so the one schema
 * stays in profile.ts and this module is only help around it.
 */
import * as z from "zod";
import { type Finding, plainFindings } from "../schemas/index.ts";

// --- what each key is for: the descriptions of the JSON Schema and of "missing" errors ----------
/**
 * One line per key, by dotted path; `*` stands for any key of a map or any element of a list.
 * A test holds this table and the schema to each other: every key documented, nothing stale.
 */
export const PROFILE_KEY_DOCS: Readonly<Record<string, string>> = {
  "": "A target profile for h2h-certify: what the suite must know about one provider's sandbox that the API description leaves open.",
  $comment: "A note for people. Every object of a profile may carry one.",
  $schema: "The JSON Schema this file follows, for editors (fixtures/profiles/profile.schema.json).",
  name: "The target's name, printed in every report. \"reference\" fills in the reference provider's sandbox keys.",
  description: "What this profile describes, for people.",
  timeouts: "How long to wait, in milliseconds.",
  "timeouts.requestMs":
    "The most one HTTP request to the target may take (default 5000); plus, once, as long as this machine held the request up in that time.",
  "timeouts.callbackMs":
    "How long a callback may take to arrive after the request (or lifetime) that triggers it (default 15000).",
  limits:
    "Bounds of a run against this target: how much of each answer is kept, how long a rate limit is waited out, and the run's deadline.",
  "limits.maxBodyBytes":
    "Bytes of each answer read and kept, after decoding (default 65536, 64 KiB); a larger answer fails envelope.within-size-limit and is kept cut.",
  "limits.retryAfterMaxMs":
    "A 429 whose Retry-After is at most this many milliseconds is waited out and the request sent again (default 5000); a longer one, or none, stands.",
  "limits.rateLimitRetries":
    "How many times one request is sent again after a 429 it waited out (default 2).",
  "limits.deadlineMs":
    "The whole run's deadline in milliseconds; then the reports of what ran, verdict incomplete (default: 60 × requestMs + 10 × callbackMs + 60 s).",
  gaps: "How strict to be where the API description leaves a gap. An empty list accepts anything.",
  "gaps.dateFormat":
    '"rfc3339" holds dateAdded/dateUpdated to RFC 3339; "string" accepts any parseable date.',
  "gaps.orderTypes": "The orderType values the target documents (empty: any string).",
  "gaps.currencies": "The currency codes the target documents (empty: any string).",
  "gaps.linkRequisiteTypes":
    "The requisiteTypeCode values that are link types: an order record with one carries a non-empty paymentDetailsData.link.",
  "gaps.requisiteTypeCodes":
    "The paymentDetailsData.requisiteTypeCode values the target documents (empty: any).",
  "gaps.extraStatuses":
    "Order statuses the target documents beyond the seven the API description names ([] for none); undeclared, any status is accepted and an unknown one is an advisory.",
  usdtTolerance: "The largest accepted difference, in USDT, between usdtAmount and amount / exchangeRate.",
  methods: "Per order kind, the transfer method the fixed checks order with (communicated at integration).",
  "methods.*":
    "A transfer method: its methodID, the currency it fixes, the amount to order with, what it requires.",
  "methods.*.methodID": "The methodID the target gave for this flow.",
  "methods.*.currency": "The currency this method fixes (e.g. RUB).",
  "methods.*.amount": "The amount the fixed checks order with, in the method's currency.",
  "methods.*.minAmount": "The smallest amount the target accepts for this method (probed when given).",
  "methods.*.maxAmount": "The largest amount the target accepts for this method (probed when given).",
  "methods.*.requisiteTypeCode":
    "The paymentDetailsData.requisiteTypeCode this method's order records carry (mobile commerce); judged when given.",
  "methods.*.requires": "The conditional fields this target requires for this method.",
  "methods.*.requires.clientID": "Whether clientID is required.",
  "methods.*.requires.clientMetadata":
    "Which clientMetadata fields are required (phone, operator, name, email).",
  otherMethods:
    "Per order kind, every other method the merchant uses: each gets generated orders and negatives.",
  "otherMethods.*": "The other methods of one order kind.",
  "otherMethods.*.*": "A transfer method, as under methods (amount optional).",
  "otherMethods.*.*.methodID": "The methodID the target gave.",
  "otherMethods.*.*.currency": "The currency this method fixes.",
  "otherMethods.*.*.amount": "An amount to order with (default: chosen within the limits).",
  "otherMethods.*.*.minAmount": "The smallest amount the target accepts for this method.",
  "otherMethods.*.*.maxAmount": "The largest amount the target accepts for this method.",
  "otherMethods.*.*.requisiteTypeCode":
    "The paymentDetailsData.requisiteTypeCode of this method's order records.",
  "otherMethods.*.*.requires": "The conditional fields this target requires for this method.",
  "otherMethods.*.*.requires.clientID": "Whether clientID is required.",
  "otherMethods.*.*.requires.clientMetadata": "Which clientMetadata fields are required.",
  maxLengths:
    'Per request field (dotted path, e.g. clientID), the maximum length the target documents, or "none" (shorthand for requestRules.<field>.maxLength).',
  "maxLengths.*": 'The maximum length of this field, in characters, or "none" for no limit.',
  requestRules:
    "Per request field (dotted path, e.g. requisites.cvc, code), the rules the target documents that the API description does not state; a rule not declared is probed as an advisory that never fails the run.",
  "requestRules.*": "The rules of this field.",
  "requestRules.*.minLength": 'The smallest length the target accepts, or "none".',
  "requestRules.*.maxLength":
    'The largest length the target accepts, or "none" (a 10,000-character value is then probed as an advisory).',
  "requestRules.*.pattern": 'A regular expression every accepted value matches, or "none".',
  "requestRules.*.format": '"uri" (an absolute URL), or "none".',
  testCards:
    "Luhn-valid test card numbers the sandbox accepts for quasi-ecom orders (default: public test cards).",
  "testCards.*": "A test card number: 12 to 19 digits that pass the Luhn check.",
  lifecycle: "The order lifecycle beyond what each operation answers: outcomes per code, refusals, timer.",
  "lifecycle.outcomes":
    "What each confirmation code leads to after processing, as the full sequence of statuses.",
  "lifecycle.outcomes.*": "One code and the statuses it leads to, in order.",
  "lifecycle.outcomes.*.code": "A confirmation code.",
  "lifecycle.outcomes.*.statuses":
    "The statuses the order enters after it, in order (e.g. failed_by_terminal, succeeded_by_appeal).",
  "lifecycle.outcomes.*.statuses.*": "A status.",
  "gaps.failureData":
    '"null": a failure\'s data is null or absent; "any": anything (undeclared: null or absent is an advisory).',
  "gaps.failureMessage":
    '"string": a failure\'s result.message says what failed; "any": string or null (undeclared: a string is an advisory).',
  "gaps.nullOptionals":
    'Whether the target takes an optional request field sent as null like an absent one ("accept") or refuses it ("refuse"). The API description does not say; undeclared or "refuse", the generated orders never send null.',
  "lifecycle.otherKindConfirm":
    "Which documented error confirming through the other order kind's path answers (undeclared: an advisory).",
  "lifecycle.otherMerchantConfirm":
    "Which documented error confirming another merchant's order answers (undeclared: any refusal).",
  "lifecycle.secondConfirm":
    "Which documented error confirming an already confirmed order answers (undeclared: an advisory).",
  "lifecycle.merchantOrderIdScope":
    'Where merchantOrderID must be unique: "merchant" (the API description\'s wording) or "service".',
  "lifecycle.timerUnit":
    "The unit of timer in a confirmation result; declaring it holds timer to counting down the lifetime (undeclared: an advisory).",
  "lifecycle.timerToleranceSeconds": "How far timer may stray from the order's clock, in seconds.",
  conventions:
    "How the target writes dates and money (the API description shows neither); each key declared is checked on every date and money value, callbacks included.",
  "conventions.dates": "The target's date convention; a key left out is not checked.",
  "conventions.dates.offset": '"utc": every date in UTC (Z or +00:00); "any": any offset.',
  "conventions.dates.fractionalSeconds": 'Fractional seconds: "required", "forbidden" or "any".',
  "conventions.dates.fractionDigits":
    "Exactly this many digits of fractional seconds (3: milliseconds); implies they are required.",
  "conventions.dates.oneFormat":
    "Every date of an order, its callbacks' included, in one format (undeclared: a difference is an advisory).",
  "conventions.money": "Decimals of money values; a key left out is not checked.",
  "conventions.money.amountDecimals":
    "Most decimals of amount (order currency): record, confirmation result, callbacks.",
  "conventions.money.commissionDecimals": "Most decimals of amountComission (order currency).",
  "conventions.money.usdtAmountDecimals": "Most decimals of usdtAmount.",
  "conventions.money.usdtCommissionDecimals": "Most decimals of usdtAmountComission.",
  races: "The race probes: identical requests sent at once.",
  "races.concurrency": "How many at once (default 5); keep it within the target's rate limit.",
  expectedStatus: "The status each operation answers (default: what the API description observed).",
  "expectedStatus.createMobileCommerceOrder":
    "The status a mobile-commerce creation answers (default payment_pending).",
  "expectedStatus.confirmMobileCommerceOrder":
    "The status a mobile-commerce confirmation answers (default waiting_for_terminal).",
  "expectedStatus.createQuasiEcomOrder": "The status a quasi-ecom creation answers (default created).",
  "expectedStatus.confirmQuasiEcomOrder": "The status a quasi-ecom confirmation answers (default created).",
  confirmation: "The sandbox's confirmation codes.",
  "confirmation.successCode": "A code the sandbox accepts and that leads to succeeded.",
  "confirmation.wrongCode": "A code the sandbox refuses as wrong.",
  callbackTriggers:
    "How to make an order enter each callback status: succeeded, expired, failed_by_terminal, succeeded_by_appeal.",
  "callbackTriggers.*":
    'One of three forms: { "code": "…" } confirms with that code; { "unconfirmedForSeconds": N } leaves the order unconfirmed for N s; { "manual": "…", "waitSeconds": N } asks a person and waits.',
  "callbackTriggers.*.code": "The confirmation code that leads to this status.",
  "callbackTriggers.*.unconfirmedForSeconds":
    "The order's documented lifetime: left unconfirmed this long, it enters the status (with the sandbox clock, at once).",
  "callbackTriggers.*.manual":
    "What a person must do for the order to enter this status; printed with the order id.",
  "callbackTriggers.*.waitSeconds": "How long to wait for the person, in seconds.",
  sandboxClock:
    'Whether the target offers POST /sandbox/v1/clock/advance: false; true (if it fails, a warning, and the suite waits out the lifetime); or "required" (if it fails, a failure).',
  errors:
    "The errors the target documents. One left out accepts any refusal (a 4xx with a codeError other than none).",
  "errors.*": "The HTTP status and/or codeError this refusal must have.",
  "errors.*.httpStatus": "The HTTP status (400-599).",
  "errors.*.codeError": "The result.codeError value.",
  callbacks: "Where a callback body names the order and its status (dotted paths), and how it is signed.",
  "callbacks.idPath": "Where the order id is (default id).",
  "callbacks.statusPath": "Where the status is (default status).",
  "callbacks.amountPath": "Where the amount is, to compare with the order's.",
  "callbacks.currencyPath": "Where the currency is, to compare with the order's.",
  "callbacks.merchantOrderIdPath": "Where the merchantOrderID is, to compare with the order's.",
  "callbacks.dateUpdatedPath":
    "Where a callback says when its status was entered: orders callbacks that arrive out of order.",
  "callbacks.signature": 'The signature scheme: { "scheme": "none" } or { "scheme": "hmac-sha256", … }.',
  "callbacks.signature.scheme": '"none" or "hmac-sha256".',
  "callbacks.signature.header": "The header carrying the signature (default X-Signature).",
  "callbacks.signature.prefix": 'The text before the digest in the header (default "sha256=").',
  "callbacks.signature.encoding": 'The digest\'s encoding: "hex" (default) or "base64".',
  "callbacks.retryPolicy":
    "The documented retry policy; with one, retries are judged, without one only observed.",
  "callbacks.retryPolicy.attempts": "Deliveries in all, the first included.",
  "callbacks.retryPolicy.delaysMs": "The delay before each retry, in milliseconds.",
  "callbacks.retryPolicy.delaysMs.*": "One delay, in milliseconds.",
  "callbacks.retryPolicy.toleranceMs": "How far an observed delay may stray (default 500).",
  "callbacks.replayWindowSeconds":
    "A merchant's receiver: how old a signed callback may be (by dateUpdatedPath) before it is refused as a replay; undeclared, no replay is tried.",
  "callbacks.unknownOrder":
    'A merchant\'s receiver: what it answers a callback of an order it does not know, "refuse" (4xx) or "acknowledge" (2xx); undeclared, a 2xx is reported, not failed.',
  loadDeliveryTarget:
    "Load runs: the share of confirmed orders whose final callback must arrive (1 = every one).",
  strictInput:
    'The input normalisations the target documents it does not apply: "trim-whitespace" (a no-break space or space around a key or code), "first-token" (a word after the key), "unicode-digits" (non-ASCII digits read as ASCII), "scalar-coercion" ("1500" read as 1500). A probe only such a normalisation makes valid is an advisory when accepted; listed here, its acceptance fails the run.',
  "strictInput.*": "One normalisation the target does not apply.",
  informationalChecks:
    "Checks this target is reported on but not held to, each with the reason (e.g. a reading of the suite the target documents otherwise).",
  "informationalChecks.*": "Why this check is informational for this target.",
};
// --- end of the key descriptions ------------------------------------------------------------------

export type JsonSchema = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  required?: string[];
  [keyword: string]: unknown;
};

/** The nodes a JSON Schema has at a node, through its unions. */
function alternatives(node: JsonSchema): JsonSchema[] {
  return [node, ...(node.anyOf ?? []).flatMap(alternatives), ...(node.oneOf ?? []).flatMap(alternatives)];
}

/** Every node at a path of values (a key, an index), through unions, maps and lists. */
export function schemasAt(root: JsonSchema, path: readonly PropertyKey[]): JsonSchema[] {
  let nodes = alternatives(root);
  for (const key of path) {
    nodes = nodes.flatMap((node) => {
      const named = node.properties?.[String(key)];
      if (named) return alternatives(named);
      if (typeof node.additionalProperties === "object") return alternatives(node.additionalProperties);
      if (node.items && !Array.isArray(node.items) && typeof key === "number")
        return alternatives(node.items);
      return [];
    });
  }
  return nodes;
}

const docPattern = (path: readonly string[]) => path.join(".");

function matches(pattern: string, path: readonly string[]): boolean {
  const parts = pattern === "" ? [] : pattern.split(".");
  return parts.length === path.length && parts.every((part, i) => part === "*" || part === path[i]);
}

/** The description of the key at a path of the profile, if the table has one. */
export function profileKeyDoc(path: readonly PropertyKey[]): string | undefined {
  const keys = path.map(String);
  // Every object may carry a note: one description serves them all.
  if (keys.at(-1) === "$comment") return PROFILE_KEY_DOCS.$comment;
  const exact = PROFILE_KEY_DOCS[docPattern(keys)];
  if (exact !== undefined) return exact;
  const pattern = Object.keys(PROFILE_KEY_DOCS).find((candidate) => matches(candidate, keys));
  return pattern === undefined ? undefined : PROFILE_KEY_DOCS[pattern];
}

/** How a walk reached a node: a named key, any key of a map, an element of a list, a union's form. */
export type SchemaStep = "root" | "key" | "map" | "item" | "form";

/** Walks every node of a schema with the path of keys that leads to it (`*` for map keys and items). */
export function walkSchema(
  node: JsonSchema,
  visit: (node: JsonSchema, path: readonly string[], step: SchemaStep) => void,
  path: readonly string[] = [],
  step: SchemaStep = "root",
): void {
  visit(node, path, step);
  for (const [key, child] of Object.entries(node.properties ?? {}))
    walkSchema(child, visit, [...path, key], "key");
  if (typeof node.additionalProperties === "object")
    walkSchema(node.additionalProperties, visit, [...path, "*"], "map");
  if (node.items && !Array.isArray(node.items)) walkSchema(node.items, visit, [...path, "*"], "item");
  for (const alternative of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
    walkSchema(alternative, visit, path, "form");
}

const generated = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON Schema of a profile schema as a file accepts it (defaults make keys optional), every
 * key described from the table above. Memoised per schema.
 */
export function profileJsonSchemaOf(schema: z.ZodType): JsonSchema {
  const known = generated.get(schema);
  if (known) return known;
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  walkSchema(json, (node, path, step) => {
    // A union's forms share their key's description: the union carries it, not each form.
    const doc = step === "form" ? undefined : profileKeyDoc(path);
    if (doc !== undefined && node.description === undefined) node.description = doc;
  });
  const described: JsonSchema = {
    $schema: json.$schema,
    title: "h2h-certify target profile",
    ...json,
  };
  generated.set(schema, described);
  return described;
}

/** The keys an object at a path may have, for "did you mean". */
function keysAt(root: JsonSchema, path: readonly PropertyKey[]): string[] {
  return [...new Set(schemasAt(root, path).flatMap((node) => Object.keys(node.properties ?? {})))];
}

/** A profile's problems as findings: path, expected (with what the key is for), found, the fix. */
export function profileFindings(error: z.ZodError, input: unknown, schema: z.ZodType): Finding[] {
  const root = profileJsonSchemaOf(schema);
  return plainFindings(error, input, {
    rootName: "(profile)",
    keysAt: (path) => keysAt(root, path),
    describe: (path) => profileKeyDoc(path),
  });
}

/**
 * The offset of the first JSON syntax error in a text, found by a small parser of its own: Node's
 * messages do not always carry a position (`Unexpected token '}', ..."methods": }" is not valid
 * JSON`), and a person needs the line and column to find it.
 */
export function jsonSyntaxErrorOffset(text: string): number | undefined {
  let at = 0;
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at] as string)) at += 1;
  };
  const fail = (): never => {
    throw at;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, at)) at += word.length;
    else fail();
  };
  const string = () => {
    if (text[at] !== '"') fail();
    at += 1;
    while (at < text.length && text[at] !== '"') {
      const char = text[at] as string;
      if (char < " ") fail();
      if (char === "\\") {
        at += 1;
        if (text[at] === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) at += 5;
        else if (text[at] !== undefined && '"\\/bfnrt'.includes(text[at] as string)) at += 1;
        else fail();
      } else at += 1;
    }
    if (text[at] !== '"') fail();
    at += 1;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (!match) fail();
    at += (match as RegExpExecArray)[0].length;
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === "{") {
      at += 1;
      space();
      if (text[at] === "}") {
        at += 1;
        return;
      }
      for (;;) {
        space();
        string();
        space();
        if (text[at] !== ":") fail();
        at += 1;
        value();
        space();
        if (text[at] === ",") at += 1;
        else if (text[at] === "}") {
          at += 1;
          return;
        } else fail();
      }
    }
    if (char === "[") {
      at += 1;
      space();
      if (text[at] === "]") {
        at += 1;
        return;
      }
      for (;;) {
        value();
        space();
        if (text[at] === ",") at += 1;
        else if (text[at] === "]") {
          at += 1;
          return;
        } else fail();
      }
    }
    if (char === '"') string();
    else if (char === "t") literal("true");
    else if (char === "f") literal("false");
    else if (char === "n") literal("null");
    else number();
  };
  try {
    value();
    space();
    return at < text.length ? at : undefined;
  } catch (offset) {
    return offset as number;
  }
}

/** Where a JSON syntax error is, as "line L, column C", with the line and a caret under the spot. */
export function jsonErrorLocation(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const offset = jsonSyntaxErrorOffset(text);
  const reason = message
    .replace(/ in JSON at position \d+.*$/, "")
    .replace(/\s*\(line \d+ column \d+\)$/, "")
    .replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, "");
  if (offset === undefined) return reason;
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  const source = text.split("\n")[line - 1] ?? "";
  const shown = source.length > 100 ? `${source.slice(0, 100)}...` : source;
  return `line ${line}, column ${column}: ${reason}\n    ${shown}\n    ${" ".repeat(Math.max(0, Math.min(column - 1, 100)))}^`;
}
