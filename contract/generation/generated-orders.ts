/**
 * Valid create-order requests generated from the contract: the zod request schemas as JSON Schema,
 * narrowed by one payment method of the target, fed to json-schema-faker, then shaped by a plan so
 * that every order set exercises what hand-picked examples miss:
 *
 * - fractional amounts (at most two decimals) and the method's declared minimum and maximum;
 * - strings at their declared maximum length;
 * - non-ASCII text (Cyrillic, Kazakh, emoji) in every free-text field;
 * - optional fields present, absent and null;
 * - `metadata.webHook` written as merchants write it (a query string, an explicit port,
 *   percent-encoding, a path ending in `/`), built on a callback base URL the caller gives (the sink's tagged URL);
 * - card data valid in format: a Luhn-valid test number, `MM`, a `YY` not expired, a 3–4 digit CVC.
 *
 * Seeded: the same seed, methods and options give the same requests, byte for byte (`json` is
 * exactly what is sent). Nothing here reads the clock or Math.random, except `now` (card expiry),
 * which the caller can pin.
 */
import { generateSync } from "json-schema-faker";
import type * as z from "zod";
import {
  ENDPOINTS,
  OPERATIONS_BY_KIND,
  type OperationName,
  type OrderKind,
  REQUEST_MAX_LENGTHS,
} from "../schemas/index.ts";
import {
  asJsonSchema,
  assertMaxLengthPaths,
  assertMethodFields,
  assertSupportedSchema,
  describeViolations,
  type JsonSchemaNode,
  type MaxLengthOverrides,
  narrowForMethod,
  type OrderMethod,
  type RequestSchema,
  requestViolations,
  type SchemaField,
  schemaFields,
  unwrapNullable,
  valueAt,
  withMaxLengths,
  withRequestRules,
} from "./request-json-schema.ts";
import type { RequestRules } from "./request-rules.ts";

// --- seeded randomness ---------------------------------------------------------------------------

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence on every platform. */
export class SeededRandom {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A uint32. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(0, items.length - 1)] as T;
  }
}

/** A 32-bit hash of a text (FNV-1a), to derive independent seeds from a seed and a name. */
export function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

// --- test data -----------------------------------------------------------------------------------

/**
 * Well-known public test card numbers (Visa, Mastercard, Mir, Amex, Discover, JCB; 13 to 16
 * digits), all Luhn-valid; never a real card. A profile may give its target's own test cards.
 */
export const TEST_CARD_NUMBERS: readonly string[] = [
  "4111111111111111",
  "4012888888881881",
  "4222222222222",
  "5555555555554444",
  "5105105105105100",
  "2200000000000004",
  "378282246310005",
  "6011111111111117",
  "3566002020360505",
];

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const CYRILLIC = ["Иван Петров", "Мария Ёлкина", "ООО «Ромашка»", "Санкт-Петербург", "Билайн", "Щукинская 7"];
const KAZAKH = [
  "Әлия Нұрланқызы",
  "Қайрат Өмірзақұлы",
  "Ғалым Үсенов",
  "Шығыс Қазақстан",
  "Ұлттық банк",
  "Көкшетау",
];
/** Astral characters (two UTF-16 units), a ZWJ sequence and a flag: what breaks naive length and encoding code. */
const EMOJI = ["🙂", "🛒", "👩‍💻", "🇰🇿", "💳"];
/** Latin with an apostrophe and diacritics, which shells, SQL and naive escaping trip over. */
const LATIN = ["Jane O'Brien-Müller", "José Núñez", "Zoë Ångström"];
/** Basic Multilingual Plane only, so that a string at its maximum length is the same length in
 * UTF-16 units (zod) and in characters (JSON Schema): Latin, Cyrillic and Kazakh letters. */
const MAX_LENGTH_FILL = "Әлия Иван Ғалым Мария Ұлан Zoë ";

/**
 * Paths whose values need more than their JSON Schema to be realistic. Every other string is
 * judged by its schema: a `uri` format is a URL, a string without pattern, enum or format is free
 * text, and anything else is json-schema-faker's.
 */
export const FIELD_ROLES = {
  methodID: "method-id",
  amount: "amount",
  merchantOrderID: "merchant-order-id",
  "metadata.webHook": "callback-url",
  "clientMetadata.phone": "phone",
  "clientMetadata.email": "email",
  "requisites.number": "card-number",
  "requisites.lifetimeMonth": "card-expiry-month",
  "requisites.lifetimeYear": "card-expiry-year",
  "requisites.cvc": "card-cvc",
} as const;
type Role = (typeof FIELD_ROLES)[keyof typeof FIELD_ROLES] | "url" | "free-text" | "schema";

export function roleOf(field: SchemaField): Role {
  const known = (FIELD_ROLES as Record<string, Role>)[field.path];
  if (known) return known;
  const node = field.node;
  if (node.type === "string" && node.format === "uri") return "url";
  if (
    node.type === "string" &&
    node.pattern === undefined &&
    node.format === undefined &&
    node.enum === undefined &&
    !("const" in node)
  ) {
    return "free-text";
  }
  return "schema";
}

// --- plans -----------------------------------------------------------------------------------------

type Optionals = "present" | "absent" | "null-objects" | "null-leaves" | "mixed";
type TextStyle = "cyrillic" | "kazakh-emoji" | "latin" | "max-length";
type AmountStyle = "min" | "max" | "fractional" | "integer";
type WebHookStyle =
  | "plain"
  | "query"
  | "explicit-port"
  | "percent-encoded"
  | "explicit-port-max-length"
  | "trailing-slash"
  | "trailing-slash-query";

interface OrderPlan {
  label: string;
  optionals: Optionals;
  text: TextStyle;
  amount: AmountStyle;
  webHook: WebHookStyle;
  cvcDigits: 3 | 4;
}

/** The quick set: every trait at least once per method, in as few orders as that takes. */
const QUICK_PLANS: readonly OrderPlan[] = [
  {
    label: "all fields, Cyrillic, minimum amount",
    optionals: "present",
    text: "cyrillic",
    amount: "min",
    webHook: "trailing-slash-query",
    cvcDigits: 3,
  },
  {
    label: "all strings at maximum length, maximum amount",
    optionals: "present",
    text: "max-length",
    amount: "max",
    webHook: "explicit-port-max-length",
    cvcDigits: 4,
  },
  {
    label: "Kazakh and emoji, fractional amount",
    optionals: "present",
    text: "kazakh-emoji",
    amount: "fractional",
    webHook: "percent-encoded",
    cvcDigits: 3,
  },
  {
    label: "optional fields absent",
    optionals: "absent",
    text: "latin",
    amount: "fractional",
    webHook: "plain",
    cvcDigits: 3,
  },
  {
    label: "optional fields null",
    optionals: "null-objects",
    text: "kazakh-emoji",
    amount: "integer",
    webHook: "plain",
    cvcDigits: 4,
  },
  {
    label: "optional members null",
    optionals: "null-leaves",
    text: "cyrillic",
    amount: "fractional",
    webHook: "plain",
    cvcDigits: 3,
  },
];

export type GenerationDepth = "quick" | "thorough";

/** How many orders each depth generates per method: the quick set, plus random mixes. */
export const GENERATION_DEPTHS: Readonly<Record<GenerationDepth, { randomMixesPerMethod: number }>> = {
  quick: { randomMixesPerMethod: 0 },
  thorough: { randomMixesPerMethod: 24 },
};

function randomPlan(random: SeededRandom, number: number): OrderPlan {
  return {
    label: `random mix ${number}`,
    optionals: "mixed",
    text: random.pick<TextStyle>(["cyrillic", "kazakh-emoji", "latin", "max-length"]),
    amount: random.pick<AmountStyle>(["min", "max", "fractional", "fractional", "integer"]),
    webHook: random.pick<WebHookStyle>([
      "plain",
      "query",
      "explicit-port",
      "percent-encoded",
      "trailing-slash",
      "trailing-slash-query",
    ]),
    cvcDigits: random.pick<3 | 4>([3, 3, 4]),
  };
}

// --- the generator ---------------------------------------------------------------------------------

export interface CallbackUrlContext {
  methodID: number;
  /** The order's index within its method (0-based). */
  index: number;
  name: string;
}

export interface GenerateOrdersOptions {
  /** Seed of everything random: `--seed` / `H2H_SEED`. */
  seed: number;
  /** The methods to generate for, as the profile lists them. */
  methods: readonly OrderMethod[];
  /**
   * The callback base URL the `webHook` variants are built on (an http(s) URL), or a function
   * that gives one per order, e.g. the sink's URL tagged for that order.
   */
  callbackUrl: string | ((context: CallbackUrlContext) => string);
  /** `quick` (the default) for `npm run certify`, `thorough` for nightly runs. */
  depth?: GenerationDepth | undefined;
  /**
   * Leads every merchantOrderID, so that runs against a target that keeps its orders do not
   * collide (merchantOrderID is unique per merchant). Default `h2h-s<seed>`: a second run with the
   * same seed and prefix sends the same IDs, and a target that keeps state refuses them as duplicates.
   */
  merchantOrderIdPrefix?: string | undefined;
  /** Luhn-valid test card numbers; default {@link TEST_CARD_NUMBERS}. */
  testCards?: readonly string[] | undefined;
  /** The date card expiry is counted from (default: now); pin it for byte-identical reruns across months. */
  now?: Date | undefined;
  /** A profile's per-field maximum lengths, where the target documents its own. */
  maxLengths?: MaxLengthOverrides | undefined;
  /** A profile's declared (or waived) rules per request field. */
  requestRules?: RequestRules | undefined;
  /** The request schema per order kind; default the contract's. */
  schemas?: Partial<Record<OrderKind, RequestSchema>> | undefined;
  /**
   * Whether optional fields may be sent as null (default true). The API description does not say
   * a request field may be null, so a profile that does not declare it gets none.
   */
  nullOptionals?: boolean | undefined;
}

export interface GeneratedOrder {
  /** Stable name, e.g. `quasi_ecom/201#2 Kazakh and emoji, fractional amount`. */
  name: string;
  seed: number;
  kind: OrderKind;
  /** The create operation to send it with. */
  operation: OperationName;
  method: OrderMethod;
  index: number;
  /** What this order exercises, e.g. `amount:max`, `text:kazakh-emoji`, `optionals:null-objects`. */
  exercises: readonly string[];
  body: Record<string, unknown>;
  /** The exact JSON to send (send this, not a re-serialization, to reproduce byte for byte). */
  json: string;
  /** The callback URL the order names, or null when it names none. */
  webHook: string | null;
  merchantOrderID: string | null;
}

/** The contract's create-request schema of an order kind. */
export function createRequestSchema(kind: OrderKind): z.ZodType {
  return ENDPOINTS[OPERATIONS_BY_KIND[kind].create].request;
}

/** The JSON Schema an order of this method must satisfy: the contract, the profile's lengths, the method. */
export function methodRequestSchema(
  method: OrderMethod,
  options: {
    maxLengths?: MaxLengthOverrides | undefined;
    requestRules?: RequestRules | undefined;
    schema?: RequestSchema | undefined;
  } = {},
): JsonSchemaNode {
  const contract = asJsonSchema(options.schema ?? createRequestSchema(method.kind));
  return narrowForMethod(
    withRequestRules(withMaxLengths(contract, options.maxLengths), options.requestRules),
    method,
  );
}

/** Generates the orders of every method for a depth; see the module comment. */
export function generateOrders(options: GenerateOrdersOptions): GeneratedOrder[] {
  validateOptions(options);
  assertMaxLengthPaths(
    options.methods.map((m) => asJsonSchema(options.schemas?.[m.kind] ?? createRequestSchema(m.kind))),
    options.maxLengths,
  );
  const depth = options.depth ?? "quick";
  const out: GeneratedOrder[] = [];
  for (const method of options.methods) {
    const mixes = new SeededRandom(hashSeed(`${options.seed}|${method.methodID}|mixes`));
    const nullable = options.nullOptionals ?? true;
    const plans = QUICK_PLANS.filter((plan) => nullable || !plan.optionals.startsWith("null"));
    for (let i = 0; i < GENERATION_DEPTHS[depth].randomMixesPerMethod; i++)
      plans.push(randomPlan(mixes, i + 1));
    const schema = methodRequestSchema(method, {
      maxLengths: options.maxLengths,
      requestRules: options.requestRules,
      schema: options.schemas?.[method.kind],
    });
    assertSupportedSchema(schema);
    assertMethodFields(schema, method);
    for (const [index, plan] of plans.entries()) out.push(generateOne(options, method, schema, plan, index));
  }
  return out;
}

function validateOptions(options: GenerateOrdersOptions): void {
  if (!Number.isSafeInteger(options.seed)) throw new Error(`seed: must be an integer, got ${options.seed}`);
  if (options.methods.length === 0)
    throw new Error("methods: at least one method is needed to generate orders");
  for (const card of options.testCards ?? TEST_CARD_NUMBERS) {
    if (!/^\d{12,19}$/.test(card) || !luhnValid(card)) {
      // Never print a card number whole, even a bad one.
      throw new Error(
        `testCards: the card ending ${card.slice(-4)} is not 12-19 digits passing the Luhn check`,
      );
    }
  }
  for (const method of options.methods) {
    const { minAmount, maxAmount } = method;
    if (minAmount !== undefined && maxAmount !== undefined && minAmount > maxAmount) {
      throw new Error(`method ${method.methodID}: minAmount ${minAmount} is above maxAmount ${maxAmount}`);
    }
    if (maxAmount !== undefined && maxAmount < 0.01) {
      throw new Error(
        `method ${method.methodID}: maxAmount ${maxAmount} leaves no positive amount of whole cents`,
      );
    }
  }
}

/** The schema json-schema-faker fills: no nulls, every property present, nothing extra. */
function fakerSchema(node: JsonSchemaNode, path: string, method: OrderMethod): JsonSchemaNode {
  const { node: inner } = unwrapNullable(node, path);
  const { additionalProperties: _extra, $schema: _schema, ...rest } = inner;
  if (path === "methodID") return { ...rest, const: method.methodID };
  if (inner.type !== "object") return rest;
  const properties = Object.fromEntries(
    Object.entries(inner.properties ?? {}).map(([key, child]) => [
      key,
      fakerSchema(child, path ? `${path}.${key}` : key, method),
    ]),
  );
  return { ...rest, properties, required: Object.keys(properties) };
}

function generateOne(
  options: GenerateOrdersOptions,
  method: OrderMethod,
  schema: JsonSchemaNode,
  plan: OrderPlan,
  index: number,
): GeneratedOrder {
  const random = new SeededRandom(hashSeed(`${options.seed}|${method.methodID}|${index}`));
  const name = `${method.kind}/${method.methodID}#${index} ${plan.label}`;
  const body = generateSync(fakerSchema(schema, "", method) as never, {
    seed: random.nextUint32(),
  }) as Record<string, unknown>;
  const fields = schemaFields(schema);
  const exercises = new Set<string>([`optionals:${plan.optionals}`, `text:${plan.text}`]);
  const context: ValueContext = {
    options,
    method,
    plan,
    index,
    name,
    random,
    exercises,
    merchantOrderID: "",
  };
  context.merchantOrderID = merchantOrderId(context, fieldMax(fields, "merchantOrderID"));

  // Values by role, parents before children: every field present, then the plan's optionals.
  for (const field of fields) {
    if (field.node.type === "object") continue;
    const value = valueFor(roleOf(field), field, context);
    if (value !== undefined) setAt(body, field.path, value);
  }
  applyOptionals(body, fields, context);

  const violations = requestViolations(schema, body, method);
  if (violations.length > 0) {
    throw new Error(
      `generated order ${name} breaks its own contract (a generator bug): ${describeViolations(violations)}`,
    );
  }
  const webHook = valueAt(body, "metadata.webHook");
  const moid = valueAt(body, "merchantOrderID");
  if (typeof webHook !== "string") {
    exercises.delete(`webHook:${plan.webHook}`);
    const metadata = valueAt(body, "metadata");
    exercises.add(`webHook:${webHook === null || metadata === null ? "null" : "absent"}`);
  }
  return {
    name,
    seed: options.seed,
    kind: method.kind,
    operation: OPERATIONS_BY_KIND[method.kind].create,
    method,
    index,
    exercises: [...exercises].sort(),
    body,
    json: JSON.stringify(body),
    webHook: typeof webHook === "string" ? webHook : null,
    merchantOrderID: typeof moid === "string" ? moid : null,
  };
}

interface ValueContext {
  options: GenerateOrdersOptions;
  method: OrderMethod;
  plan: OrderPlan;
  index: number;
  name: string;
  random: SeededRandom;
  exercises: Set<string>;
  merchantOrderID: string;
}

function fieldMax(fields: readonly SchemaField[], path: string): number {
  return fields.find((f) => f.path === path)?.node.maxLength ?? REQUEST_MAX_LENGTHS.text;
}

function setAt(body: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let parent = body;
  for (const part of parts.slice(0, -1)) {
    const next = parent[part];
    if (typeof next !== "object" || next === null) parent[part] = {};
    parent = parent[part] as Record<string, unknown>;
  }
  parent[parts[parts.length - 1] as string] = value;
}

function valueFor(role: Role, field: SchemaField, context: ValueContext): unknown {
  const { method, plan, random } = context;
  switch (role) {
    case "method-id":
      return method.methodID;
    case "amount":
      return amountFor(context);
    case "merchant-order-id":
      return context.merchantOrderID;
    case "callback-url":
      return callbackUrlFor(context, field.node.maxLength ?? REQUEST_MAX_LENGTHS.url);
    case "url":
      return redirectUrlFor(context, field, field.node.maxLength ?? REQUEST_MAX_LENGTHS.url);
    case "phone":
      // A realistic number in E.164 (+7 7xx for tenge, +7 9xx otherwise): phones are not free text.
      return `+7${method.currency === "KZT" ? "70" : "91"}${String(random.int(0, 99_999_999)).padStart(8, "0")}`;
    case "email":
      return emailFor(context, field.node.maxLength ?? REQUEST_MAX_LENGTHS.email);
    case "card-number": {
      const card = random.pick(context.options.testCards ?? TEST_CARD_NUMBERS);
      context.exercises.add(`card:${card.length}-digits`);
      return card;
    }
    case "card-expiry-month":
      return String(random.int(1, 12)).padStart(2, "0");
    case "card-expiry-year": {
      // Not expired: one to five years after `now`, whatever the month.
      const year = (context.options.now ?? new Date()).getUTCFullYear() + random.int(1, 5);
      return String(year % 100).padStart(2, "0");
    }
    case "card-cvc":
      context.exercises.add(`cvc:${plan.cvcDigits}-digits`);
      return String(random.int(0, 10 ** plan.cvcDigits - 1)).padStart(plan.cvcDigits, "0");
    case "free-text":
      return textFor(context, field.node.minLength ?? 1, field.node.maxLength ?? REQUEST_MAX_LENGTHS.text);
    case "schema":
      return undefined;
  }
}

/** Whole cents, as a double that prints with at most two decimals. */
const cents = (value: number) => value / 100;

function amountFor({ method, plan, random, exercises }: ValueContext): number {
  const low = Math.max(1, Math.ceil((method.minAmount ?? 0) * 100 - 1e-6));
  const declaredHigh = method.maxAmount !== undefined ? Math.floor(method.maxAmount * 100 + 1e-6) : undefined;
  // Random amounts stay at or below 100 000 units: large enough to be real, far from any overflow.
  const high = Math.max(low, Math.min(declaredHigh ?? 10_000_000, 10_000_000));
  let style = plan.amount;
  if (style === "max" && declaredHigh === undefined) style = "fractional";
  exercises.add(`amount:${style}`);
  switch (style) {
    case "min":
      return cents(low);
    case "max":
      return cents(declaredHigh as number);
    case "integer": {
      const from = Math.ceil(low / 100);
      const to = Math.floor(high / 100);
      return from <= to ? random.int(from, to) : cents(low);
    }
    case "fractional": {
      // Half with two decimals, half with one; a whole number only where the limits leave nothing else.
      const whole = random.int(Math.floor(low / 100), Math.floor(high / 100));
      const fraction = random.next() < 0.5 ? random.int(1, 99) : random.int(1, 9) * 10;
      let value = Math.min(high, Math.max(low, whole * 100 + fraction));
      if (value % 100 === 0 && value - 1 >= low) value -= 1;
      return cents(value);
    }
  }
}

/** Cut a text to at most `max` UTF-16 units without splitting a surrogate pair, never ending in a space. */
function fitText(text: string, max: number): string {
  let out = "";
  for (const char of text) {
    if (out.length + char.length > max) break;
    out += char;
  }
  return out.replace(/\s+$/u, "");
}

function textFor(context: ValueContext, min: number, max: number): string {
  const { plan, random } = context;
  let text: string;
  switch (plan.text) {
    case "cyrillic":
      text = random.pick(CYRILLIC);
      break;
    case "kazakh-emoji":
      text = `${random.pick(KAZAKH)} ${random.pick(EMOJI)}`;
      break;
    case "latin":
      text = random.pick(LATIN);
      break;
    case "max-length":
      return fillTo(max);
  }
  text = fitText(text, max);
  while (text.length < min) text += "ә";
  return text;
}

/** Exactly `length` characters of Latin, Cyrillic and Kazakh (all in the BMP), not ending in a space. */
function fillTo(length: number, prefix = ""): string {
  let text = prefix;
  while (text.length < length) text += MAX_LENGTH_FILL;
  text = text.slice(0, length);
  return text.endsWith(" ") ? `${text.slice(0, -1)}ә` : text;
}

function merchantOrderId(context: ValueContext, max: number): string {
  const { options, method, index, plan } = context;
  const unique = `${options.merchantOrderIdPrefix ?? `h2h-s${options.seed}`}-${method.methodID}-${index}`;
  if (unique.length > max) {
    throw new Error(
      `merchantOrderIdPrefix: "${unique}" is longer than the maximum length ${max} of merchantOrderID`,
    );
  }
  switch (plan.text) {
    case "max-length":
      return fillTo(max, `${unique}-`);
    case "cyrillic":
      return fitText(`${unique}-заказ`, max);
    case "kazakh-emoji":
      return fitText(`${unique}-тапсырыс-🛒`, max);
    case "latin":
      return unique;
  }
}

function emailFor({ plan, index, method }: ValueContext, max: number): string {
  if (plan.text !== "max-length") return `client.${method.methodID}.${index}+h2h@example.org`;
  // The longest valid address of the documented length: a 64-character local part (RFC 5321's
  // limit) and a domain of labels of at most 63 characters.
  const local = "l".repeat(Math.min(64, Math.max(1, max - 13)));
  let domain = "example.org";
  while (local.length + 1 + domain.length < max) {
    const room = max - (local.length + 1 + domain.length) - 1;
    if (room < 1) break;
    domain = `${"d".repeat(Math.min(63, room))}.${domain}`;
  }
  return `${local}@${domain}`;
}

function withQuery(url: string, query: string): string {
  const hash = url.indexOf("#");
  const head = hash === -1 ? url : url.slice(0, hash);
  const tail = hash === -1 ? "" : url.slice(hash);
  return `${head}${head.includes("?") ? "&" : "?"}${query}${tail}`;
}

/** The URL with its port written out (the scheme's default when it has none), as some merchants write it. */
function withExplicitPort(url: string): string {
  const parsed = new URL(url);
  const start = url.indexOf("//") + 2;
  const authorityEnd = url.indexOf("/", start);
  const end = authorityEnd === -1 ? url.length : authorityEnd;
  // A default port already written out (a sink on port 80) reads as no port to URL, but is there.
  if (parsed.port !== "" || /:\d+$/.test(url.slice(start, end))) return url;
  const port = parsed.protocol === "https:" ? "443" : "80";
  return `${url.slice(0, end)}:${port}${url.slice(end)}`;
}

/** The URL with its path ending in `/` (before any query), as many merchants' routes are written. */
function withTrailingSlash(url: string): string {
  const end = url.search(/[?#]/);
  const head = end === -1 ? url : url.slice(0, end);
  const tail = end === -1 ? "" : url.slice(end);
  return head.endsWith("/") ? url : `${head}/${tail}`;
}

function padQueryTo(url: string, max: number): string {
  const base = withQuery(url, "pad=");
  return base.length >= max ? url : `${base}${"p".repeat(max - base.length)}`;
}

function callbackUrlFor(context: ValueContext, max: number): string {
  const { options, method, index, name, plan, exercises } = context;
  const base =
    typeof options.callbackUrl === "function"
      ? options.callbackUrl({ methodID: method.methodID, index, name })
      : options.callbackUrl;
  if (!/^https?:\/\//i.test(base) || !URL.canParse(base)) {
    throw new Error(`callbackUrl: "${base}" is not an http(s) URL`);
  }
  exercises.add(`webHook:${plan.webHook}`);
  switch (plan.webHook) {
    case "plain":
      return base;
    case "query":
      return withQuery(
        base,
        `merchant_order=${encodeURIComponent(context.merchantOrderID)}&source=h2h-certify`,
      );
    case "explicit-port":
      return withExplicitPort(base);
    case "percent-encoded":
      return withQuery(base, `note=${encodeURIComponent("заказ №7 & co/ü")}&tag=a%2Fb%3Dc%20d`);
    case "explicit-port-max-length":
      return padQueryTo(withExplicitPort(base), max);
    case "trailing-slash":
      return withTrailingSlash(base);
    case "trailing-slash-query":
      return withQuery(withTrailingSlash(base), `ref=${encodeURIComponent(context.merchantOrderID)}&x=%2F`);
  }
}

function redirectUrlFor(context: ValueContext, field: SchemaField, max: number): string {
  const leaf = field.path.split(".").pop() ?? "url";
  const url = `https://shop.example/orders/${encodeURIComponent(context.merchantOrderID)}/${leaf}?lang=ru`;
  return context.plan.text === "max-length" ? padQueryTo(url, max) : fitText(url, max);
}

/** Paths the method requires and their ancestors: never removed nor nulled. */
function protectedPaths(method: OrderMethod): Set<string> {
  const out = new Set<string>();
  for (const path of method.requiredFields) {
    const parts = path.split(".");
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join("."));
  }
  return out;
}

function removeAt(body: Record<string, unknown>, path: string): void {
  const parts = path.split(".");
  const parent = valueAt(body, parts.slice(0, -1).join("."));
  const target = parts.length === 1 ? body : parent;
  if (typeof target === "object" && target !== null)
    delete (target as Record<string, unknown>)[parts.at(-1) as string];
}

function applyOptionals(
  body: Record<string, unknown>,
  fields: readonly SchemaField[],
  context: ValueContext,
): void {
  const keep = protectedPaths(context.method);
  const gone: string[] = [];
  const isGone = (path: string) => gone.some((g) => path.startsWith(`${g}.`));
  for (const field of fields) {
    if (field.required || keep.has(field.path) || isGone(field.path)) continue;
    const isObject = field.node.type === "object";
    let choice: "present" | "absent" | "null";
    switch (context.plan.optionals) {
      case "present":
        choice = "present";
        break;
      case "absent":
        choice = "absent";
        break;
      case "null-objects":
        choice = "null";
        break;
      case "null-leaves":
        choice = isObject ? "present" : "null";
        break;
      case "mixed": {
        const roll = context.random.next();
        choice =
          roll < 0.6 ? "present" : roll < 0.8 || context.options.nullOptionals === false ? "absent" : "null";
        break;
      }
    }
    if (choice === "present") continue;
    if (choice === "null" && !field.nullable) continue;
    if (choice === "absent") removeAt(body, field.path);
    else setAt(body, field.path, null);
    gone.push(field.path);
  }
}
