/**
 * Negative inputs derived from the contract, never hand-listed: the JSON Schema of a request
 * schema is walked, and for every constraint it declares (required, type, enum, const, length,
 * pattern, format, range) and every rule of the method being probed (its conditional fields, its
 * amount limits, its order kind), one request is made from a valid base request that breaks that
 * constraint and nothing else. Adding a constraint to a schema adds its case with no other change;
 * a keyword this module does not know stops it with an error naming the keyword.
 *
 * "Nothing else" is checked, not assumed: a candidate value is kept only when validating the
 * whole request against the (narrowed) schema and the method finds exactly the one violation it
 * was made for. A constraint no value can break alone is reported in `skipped`, with the reason.
 */
import { generateSync } from "json-schema-faker";
import type { RuleSource } from "../checks/index.ts";
import { type Normalisation, normalisedValues } from "../schemas/index.ts";
import { TEST_CARD_NUMBERS } from "./generated-orders.ts";
import { wrongTypeValue } from "./request-fields.ts";
import {
  asJsonSchema,
  assertMethodFields,
  assertSupportedSchema,
  bodyWith,
  describeViolations,
  type JsonSchemaNode,
  type MaxLengthOverrides,
  narrowForMethod,
  nodeViolations,
  type OrderMethod,
  type RequestSchema,
  requestViolations,
  type SchemaField,
  schemaField,
  schemaFields,
  valueAt,
  withRequestRules,
} from "./request-json-schema.ts";
import {
  constraintBasis,
  mergedRequestRules,
  type RequestRules,
  UNLIMITED_BASIS,
  UNLIMITED_PROBE_LENGTH,
} from "./request-rules.ts";

export interface NegativeConstraint {
  /** The JSON Schema keyword, or `required-by-method` / `method` for a method's own rule. */
  keyword: string;
  /** What the constraint demands: the bound, the pattern, the enum, the method... */
  expected: unknown;
  /**
   * Where it comes from: the contract's request schema, the profile's override of it (a maximum
   * length), or the method (its amount limits, its conditional fields, its order kind).
   */
  source: "contract" | "profile" | "method";
  /** Which way it is broken, where a constraint can be broken in several (a pattern, `null`). */
  variant?: string;
  /**
   * Whether the API description states it, the profile declares it, it is necessary, or it is the
   * suite's advisory (contract/generation/request-rules.ts): an advisory case never fails a run.
   */
  basis: RuleSource;
  /**
   * The common, harmless normalisation that turns the case's value into a valid one
   * (contract/schemas/near-misses.ts): a target that applies it accepts the case and gives nothing away.
   */
  normalisation?: Normalisation;
}

export interface NegativeCase {
  /** Stable name, e.g. `requisites.lifetimeMonth: pattern ^(0[1-9]|1[0-2])$ (out of range)`. */
  name: string;
  /** Dotted path of the field the case breaks; "" for the body itself. */
  path: string;
  constraint: NegativeConstraint;
  /** The violating value; undefined when the field is removed. */
  value: unknown;
  removed: boolean;
  /** The request to send. */
  body: unknown;
  /** Exactly what to send. */
  json: string;
}

export interface SkippedConstraint {
  name: string;
  reason: string;
}

export interface NegativeCases {
  cases: NegativeCase[];
  skipped: SkippedConstraint[];
}

export interface DeriveNegativeCasesOptions {
  /** The method the base request is for: its amount limits and conditional fields become cases. */
  method?: OrderMethod | undefined;
  /** Every method of the profile: one of another order kind gives the `methodID` case. */
  methods?: readonly OrderMethod[] | undefined;
  /** A profile's per-field maximum lengths. */
  maxLengths?: MaxLengthOverrides | undefined;
  /** A profile's declared (or waived) rules per request field. */
  requestRules?: RequestRules | undefined;
  /**
   * The profile's test card numbers, besides {@link TEST_CARD_NUMBERS}: no case sends one in a
   * field whose valid value does not hold it already (a phone of 1s padded past its maxLength
   * spelled `4111111111111111`: a PAN in a field a target logs in clear, and a card in a report).
   */
  testCards?: readonly string[] | undefined;
}

/** Amounts are money with two decimals: a bound is broken by one cent. */
const MONEY_STEP = 0.01;

/**
 * Every negative case of a request schema, from a valid base request. Throws when the base is not
 * valid (naming what is wrong), as every case must differ from a valid request by one thing only.
 */
export function deriveNegativeCases(
  schema: RequestSchema,
  base: Record<string, unknown>,
  options: DeriveNegativeCasesOptions = {},
): NegativeCases {
  const { method } = options;
  const contractRoot = asJsonSchema(schema);
  const declared = { rules: options.requestRules ?? {}, maxLengths: options.maxLengths };
  const rules = mergedRequestRules(options.requestRules, options.maxLengths);
  const profileRoot = withRequestRules(contractRoot, rules, "probe");
  const root = narrowForMethod(profileRoot, method);
  assertSupportedSchema(root);
  assertMethodFields(root, method);
  const baseViolations = requestViolations(root, base, method);
  if (baseViolations.length > 0) {
    throw new Error(
      `the base request is not valid, so no case would break one thing only: ${describeViolations(baseViolations)}`,
    );
  }
  const out: NegativeCases = { cases: [], skipped: [] };
  const testCards = [...new Set([...TEST_CARD_NUMBERS, ...(options.testCards ?? [])])];
  const builder = new CaseBuilder(root, base, method, out, testCards);

  builder.tryValues(
    "",
    { keyword: "type", expected: "object", source: "contract", basis: constraintBasis("", "type", declared) },
    "(body): type object",
    [wrongTypeValue("object")],
  );
  const declares = (within: JsonSchemaNode, path: string, keyword: string, expected: unknown) =>
    schemaField(within, path)?.node[keyword] === expected;
  const sourceOf: SourceOf = (path, keyword, expected) =>
    !["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "maxLength"].includes(keyword) ||
    declares(contractRoot, path, keyword, expected)
      ? "contract"
      : declares(profileRoot, path, keyword, expected)
        ? "profile"
        : "method";
  const basisOf: BasisOf = (path, keyword) =>
    keyword === "maxLength" && rules[path]?.maxLength === "none"
      ? UNLIMITED_BASIS
      : constraintBasis(path, keyword, declared);
  for (const field of schemaFields(root)) fieldCases(builder, field, base, sourceOf, basisOf);
  if (method) methodCases(builder, method, options.methods ?? [], basisOf);
  out.cases = out.cases.map((testCase) => withNormalisation(testCase, root, method));
  return out;
}

/** The case with the first normalisation that makes its body valid, where one does. */
function withNormalisation(
  testCase: NegativeCase,
  root: JsonSchemaNode,
  method: OrderMethod | undefined,
): NegativeCase {
  if (testCase.removed || testCase.path === "") return testCase;
  for (const [normalisation, value] of normalisedValues(testCase.value)) {
    if (requestViolations(root, bodyWith(testCase.body, testCase.path, value), method).length === 0)
      return { ...testCase, constraint: { ...testCase.constraint, normalisation } };
  }
  return testCase;
}

class CaseBuilder {
  constructor(
    private readonly root: JsonSchemaNode,
    private readonly base: Record<string, unknown>,
    private readonly method: OrderMethod | undefined,
    private readonly out: NegativeCases,
    private readonly testCards: readonly string[],
  ) {}

  /** Whether `value` spells a test card that the base's valid value at `path` does not hold. */
  private spellsNewCard(path: string, value: unknown): boolean {
    if (typeof value !== "string" && typeof value !== "number") return false;
    const written = String(value);
    const valid = valueAt(this.base, path);
    const before = typeof valid === "string" || typeof valid === "number" ? String(valid) : "";
    return this.testCards.some((card) => written.includes(card) && !before.includes(card));
  }

  /**
   * Adds the first candidate that breaks exactly this constraint, or records why none does. With
   * `optional`, a way of breaking that none of the candidates achieves at all (a month pattern has
   * an "out of range", a two-digit year has none) is left out instead of reported.
   */
  tryValues(
    path: string,
    constraint: NegativeConstraint,
    name: string,
    candidates: readonly unknown[],
    optional = false,
  ): void {
    /** Candidates that break it, but break another constraint too, or would send a test card. */
    let alsoBreaksAnother = false;
    let spellsCard = false;
    for (const candidate of candidates) {
      const removed = candidate === REMOVE;
      const value = removed ? undefined : candidate;
      const body = path === "" ? value : bodyWith(this.base, path, value);
      const violations = this.violations(body, path);
      const hits = violations.filter((v) => v.path === path && v.keyword === constraint.keyword);
      if (hits.length === 0) continue;
      if (this.spellsNewCard(path, value)) spellsCard = true;
      else if (violations.length > 1) alsoBreaksAnother = true;
      else {
        this.out.cases.push({ name, path, constraint, value, removed, body, json: JSON.stringify(body) });
        return;
      }
    }
    if (optional && !alsoBreaksAnother && !spellsCard) return;
    const reasons = [
      ...(alsoBreaksAnother ? ["breaks another constraint too"] : []),
      ...(spellsCard ? ["would send a test card number in a field that is not the card's"] : []),
    ];
    this.out.skipped.push({
      name,
      reason:
        reasons.length > 0
          ? `every candidate value that breaks it ${reasons.join(", or ")}`
          : "no candidate value breaks it",
    });
  }

  skip(name: string, reason: string): void {
    this.out.skipped.push({ name, reason });
  }

  private violations(body: unknown, path: string) {
    // The body itself replaced: the method's rules need an object to apply to.
    return path === ""
      ? nodeViolations(this.root, body, "")
      : requestViolations(this.root, body, this.method);
  }
}

/** Marks "remove the field" among candidate values. */
const REMOVE = Symbol("remove");

/** Which layer declared a bound: the contract, the profile's override, or the method's narrowing. */
type SourceOf = (path: string, keyword: string, expected: unknown) => NegativeConstraint["source"];
/** The basis of the constraint `keyword` of the field at `path`. */
type BasisOf = (path: string, keyword: string) => RuleSource;

function fieldCases(
  builder: CaseBuilder,
  field: SchemaField,
  base: Record<string, unknown>,
  sourceOf: SourceOf,
  basisOf: BasisOf,
): void {
  const { path, node } = field;
  const type = node.type ?? "unknown";
  const contract = (keyword: string, expected: unknown, variant?: string): NegativeConstraint => ({
    keyword,
    expected,
    source: sourceOf(path, keyword, expected),
    ...(variant !== undefined ? { variant } : {}),
    basis: basisOf(path, keyword),
  });

  if (field.required) builder.tryValues(path, contract("required", true), `${path}: required`, [REMOVE]);
  builder.tryValues(path, contract("type", type), `${path}: type ${type}`, [wrongTypeValue(type)]);
  if (!field.nullable) {
    builder.tryValues(path, contract("type", type, "null"), `${path}: type ${type} (null)`, [null]);
  }
  if (node.enum !== undefined) {
    const listed = node.enum;
    builder.tryValues(
      path,
      contract("enum", listed),
      `${path}: enum ${listed.map(String).join("|")}`,
      outsideOf(listed, type),
    );
  }
  if ("const" in node) {
    builder.tryValues(path, contract("const", node.const), `${path}: const ${JSON.stringify(node.const)}`, [
      typeof node.const === "number" ? node.const + 1 : `${String(node.const)}-other`,
    ]);
  }
  if (type === "string") stringCases(builder, field, sampleString(field, base), contract);
  if (type === "number" || type === "integer") numberCases(builder, field, contract);
}

/** Values of the same JSON type outside a list. */
function outsideOf(listed: readonly unknown[], type: string): unknown[] {
  if (type === "string") {
    return ["unlisted", "unlisted-value", `${listed.map(String).join("")}x`].filter(
      (v) => !listed.includes(v),
    );
  }
  const numbers = listed.filter((v): v is number => typeof v === "number");
  return numbers.length > 0 ? [Math.max(...numbers) + 1] : [];
}

/** A valid value of a string field to break one constraint of: the base's, else a generated one. */
function sampleString(field: SchemaField, base: Record<string, unknown>): string {
  const fromBase = valueAt(base, field.path);
  if (typeof fromBase === "string") return fromBase;
  const generated = generateSync(field.node as never, { seed: 1 });
  if (typeof generated === "string" && nodeViolations(field.node, generated, field.path).length === 0) {
    return generated;
  }
  return "x".repeat(Math.max(1, field.node.minLength ?? 1));
}

type ConstraintOf = (keyword: string, expected: unknown, variant?: string) => NegativeConstraint;

function stringCases(builder: CaseBuilder, field: SchemaField, sample: string, contract: ConstraintOf): void {
  const { path, node } = field;
  if (node.minLength !== undefined && node.minLength > 0) {
    builder.tryValues(path, contract("minLength", node.minLength), `${path}: minLength ${node.minLength}`, [
      Array.from(sample)
        .slice(0, node.minLength - 1)
        .join(""),
      "x".repeat(node.minLength - 1),
    ]);
  }
  if (node.maxLength !== undefined) {
    const max = node.maxLength;
    const padWith = (char: string) => (sample + char.repeat(max + 1)).slice(0, max + 1);
    // A length the profile declares unlimited is probed past the suite's own bound, and named so.
    const name =
      max === UNLIMITED_PROBE_LENGTH - 1
        ? `${path}: maxLength none (${UNLIMITED_PROBE_LENGTH} characters)`
        : `${path}: maxLength ${max}`;
    builder.tryValues(path, contract("maxLength", max), name, [
      padWith(sample.at(-1) ?? "x"),
      padWith("x"),
      padWith("1"),
      padWith("0"),
    ]);
  }
  if (node.pattern !== undefined) {
    for (const [variant, candidates] of patternBreakers(sample)) {
      builder.tryValues(
        path,
        contract("pattern", node.pattern, variant),
        `${path}: pattern ${node.pattern} (${variant})`,
        candidates,
        true,
      );
    }
  }
  if (node.format !== undefined) {
    builder.tryValues(
      path,
      contract("format", node.format),
      `${path}: format ${node.format}`,
      formatBreakers(sample),
    );
  }
}

/**
 * Ways to break a pattern, each from a valid sample so that only the pattern is wrong: a number
 * of the same length out of range (a month 00 or 13), a letter, a non-ASCII letter, a non-ASCII
 * digit (which `\d` accepts in many regex engines), a symbol or space (a card number written in
 * groups), one character too many, one too few. A way that cannot break a given pattern is left out.
 */
function patternBreakers(sample: string): [string, string[]][] {
  const chars = Array.from(sample);
  const replaceLast = (char: string) => [...chars.slice(0, -1), char].join("");
  const middle = Math.floor(chars.length / 2);
  const replaceMiddle = (char: string) =>
    [...chars.slice(0, middle), char, ...chars.slice(middle + 1)].join("");
  const outOfRange: string[] = [];
  if (/^\d+$/.test(sample)) {
    const width = sample.length;
    const asNumber = Number(sample);
    for (const n of [
      asNumber + 1,
      asNumber - 1,
      0,
      10 ** width - 1,
      10 ** (width - 1),
      asNumber + 10,
      asNumber - 10,
    ]) {
      if (n >= 0 && n < 10 ** width) outOfRange.push(String(n).padStart(width, "0"));
    }
  }
  const longer: string[] = [];
  const shorter: string[] = [];
  for (let extra = 1; extra <= 24; extra++) longer.push(sample + (chars.at(-1) ?? "1").repeat(extra));
  for (let keep = chars.length - 1; keep >= 1; keep--) shorter.push(chars.slice(0, keep).join(""));
  return [
    ["out of range", outOfRange],
    ["letter", [replaceLast("x"), replaceLast("A")]],
    ["non-ASCII letter", [replaceLast("ж"), replaceLast("é")]],
    ["non-ASCII digit", [replaceLast("٣"), replaceLast("３")]],
    ["symbol", [replaceMiddle(" "), replaceMiddle("-"), replaceMiddle("%"), replaceMiddle("<")]],
    ["too long", longer],
    ["too short", shorter],
  ];
}

function formatBreakers(sample: string): string[] {
  // A path without scheme and host, a host without scheme, and plain words: what merchants get wrong.
  let relative = "/callbacks";
  let schemeless = "callbacks.example.invalid/h2h";
  if (URL.canParse(sample)) {
    const url = new URL(sample);
    relative = `${url.pathname}${url.search}`;
    schemeless = sample.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  }
  return [relative, schemeless, "not a url"];
}

function numberCases(builder: CaseBuilder, field: SchemaField, contract: ConstraintOf): void {
  const { path, node } = field;
  const step = node.type === "integer" ? 1 : MONEY_STEP;
  const bounds: [keyword: string, bound: number | undefined, value: (bound: number) => number][] = [
    ["minimum", node.minimum, (b) => roundTo(b - step)],
    ["exclusiveMinimum", node.exclusiveMinimum, (b) => b],
    ["maximum", node.maximum, (b) => roundTo(b + step)],
    ["exclusiveMaximum", node.exclusiveMaximum, (b) => b],
  ];
  for (const [keyword, bound, value] of bounds) {
    if (bound === undefined) continue;
    const name = `${path}: ${keyword} ${bound}`;
    if (Math.abs(bound) >= Number.MAX_SAFE_INTEGER) {
      // zod's int() writes the safe-integer range as bounds: a representation limit, not a rule.
      builder.skip(name, "the safe-integer range of an integer, not a limit of the API");
      continue;
    }
    builder.tryValues(path, contract(keyword, bound), name, [value(bound)]);
  }
}

/** Rounds away float noise (1000000 + 0.01), keeping cents. */
function roundTo(value: number): number {
  return Math.round(value * 100) / 100;
}

function methodCases(
  builder: CaseBuilder,
  method: OrderMethod,
  methods: readonly OrderMethod[],
  basisOf: BasisOf,
): void {
  const rule = (keyword: string, expected: unknown, variant?: string): NegativeConstraint => ({
    keyword,
    expected,
    source: "method",
    ...(variant !== undefined ? { variant } : {}),
    basis: basisOf("", keyword),
  });
  for (const path of method.requiredFields) {
    const name = `${path}: required by method ${method.methodID}`;
    builder.tryValues(path, rule("required-by-method", method.methodID), name, [REMOVE]);
    builder.tryValues(path, rule("required-by-method", method.methodID, "null"), `${name} (null)`, [null]);
  }
  // A method of the other order kind, one requiring the fewest conditional fields, so that the
  // kind is what the target has to object to.
  const other = [...methods]
    .filter((m) => m.kind !== method.kind)
    .sort((a, b) => a.requiredFields.length - b.requiredFields.length || a.methodID - b.methodID)[0];
  const name = `methodID: a ${method.kind} method`;
  if (other) {
    builder.tryValues(
      "methodID",
      rule("method", method.kind),
      `${name} (${other.methodID} is ${other.kind})`,
      [other.methodID],
    );
  } else {
    builder.skip(name, "the profile lists no method of another order kind");
  }
}
