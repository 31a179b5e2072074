/**
 * The OpenAPI document as generic tools read it (fuzzers, validators, mock servers): patterns in
 * classes every regex engine reads alike, open objects left open without an empty schema some
 * tools take for "closed", and what the profile declares of dates and money written where such a
 * tool finds it. Nothing here adds a rule: each piece says what the suite's checks already judge.
 */

import type { DateConvention, MoneyConvention } from "../checks/index.ts";
import { asciiPattern } from "../schemas/index.ts";

/** Keywords whose value maps names to schemas: walked as schemas, their keys never read as keywords. */
const SCHEMA_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "schemas",
  "dependentSchemas",
]);
/** Keywords whose value is data, not schema: never walked. */
const DATA = new Set(["const", "enum", "default", "examples", "example"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isEmptySchema = (value: unknown) => isPlainObject(value) && Object.keys(value).length === 0;

/**
 * Rewrites, in place, every schema below `node`: each `pattern` spelled in ASCII classes
 * (ascii-patterns.ts), and each `additionalProperties: {}` dropped: it allows anything, as leaving
 * it out does, but some tools read the empty schema as `false`. An `anyOf` with an empty branch
 * (a field whose every constraint is advisory, or null) allows anything too, and goes the same way.
 */
export function spellForGenericTools(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) spellForGenericTools(item);
    return;
  }
  if (!isPlainObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (DATA.has(key)) continue;
    if (key === "pattern" && typeof value === "string") node.pattern = asciiPattern(value);
    else if (key === "additionalProperties" && isEmptySchema(value)) delete node.additionalProperties;
    else if (key === "anyOf" && Array.isArray(value) && value.some(isEmptySchema)) {
      // A branch that allows anything makes the whole anyOf allow anything: say so by leaving it out.
      delete node.anyOf;
    } else if (SCHEMA_MAPS.has(key) && isPlainObject(value))
      for (const schema of Object.values(value)) spellForGenericTools(schema);
    else spellForGenericTools(value);
  }
}

/** Any one character, line terminators included, in every engine (`.` alone stops at them). */
const ANY = "(?:.|[\\n\\r\\u2028\\u2029])";

/**
 * The profile's date convention (`conventions.dates`: offset and fractional seconds) as one
 * pattern, or undefined where it declares neither. A date matches it exactly when it passes
 * fields.date-offset and fields.date-fraction (contract/checks/conventions.ts), case and all.
 */
export function dateConventionPattern(convention: DateConvention | undefined): string | undefined {
  const digits = convention?.fractionDigits;
  const fraction =
    digits !== undefined
      ? `[.,][0-9]{${digits}}`
      : convention?.fractionalSeconds === "required"
        ? "[.,][0-9]+"
        : convention?.fractionalSeconds === "forbidden"
          ? ""
          : undefined;
  const utc = convention?.offset === "utc";
  if (!utc && fraction === undefined) return undefined;
  const offset = utc ? "(?:[Zz]|[+-]00:?00)" : "(?:[Zz]|[+-][0-9]{2}:?[0-9]{2})?";
  // Anchored, with anything before the time (as the checks read it): tools that merge an allOf's
  // patterns into lookaheads at the start (Prism) read an unanchored one as starting there.
  return `^${ANY}*[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}${fraction ?? "(?:[.,][0-9]+)?"}${offset}$`;
}

/** `schema` (a string schema, edited in place) also held to `pattern`, beside any pattern it has. */
export function addPattern(
  schema: Record<string, unknown>,
  pattern: string | undefined,
): Record<string, unknown> {
  if (pattern === undefined) return schema;
  if (schema.pattern === undefined) schema.pattern = pattern;
  else schema.allOf = [...((schema.allOf as unknown[] | undefined) ?? []), { pattern }];
  return schema;
}

/** Each money field of an order record or confirmation result, with the key that declares its decimals. */
export const MONEY_DECIMALS_KEYS = {
  amount: "amountDecimals",
  amountComission: "commissionDecimals",
  usdtAmount: "usdtAmountDecimals",
  usdtAmountComission: "usdtCommissionDecimals",
} as const satisfies Record<string, keyof MoneyConvention>;

/**
 * A money value's schema (edited in place) with the decimals the profile declares, as the vendor
 * keyword `x-decimals` and in words. Not `multipleOf`: validators divide in binary floating point,
 * so `multipleOf: 0.01` refuses 4.02 and 136.67, amounts the suite (and the provider) take as
 * written with 2 decimals.
 */
export function withDecimals(
  schema: Record<string, unknown>,
  decimals: number | undefined,
  where: string,
): Record<string, unknown> {
  if (decimals === undefined) return schema;
  schema["x-decimals"] = decimals;
  schema.description = `At most ${decimals} decimal(s): profile ${where}.`;
  return schema;
}
