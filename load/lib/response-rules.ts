/**
 * The contract digest's rules, compiled once per VU into the cheapest form a check can take. k6
 * runs JavaScript in an interpreter, where JSON.parse of an order record and a loop over its
 * fields cost more than k6's HTTP request itself; so the values a check needs are picked out of
 * the body by k6's own (Go) JSON selector, `response.json(selector)`, with a GJSON array multipath
 * (GJSON leaves a missing value out, so a shorter array means something is missing):
 *
 *   basic   every answer: the envelope markers, data.status and data.id (six values, compared)
 *   fields  a sample of answers (see the flow): every required `data` field, each checked for a
 *           JSON type the contract accepts against a bit mask
 *
 * Which part of an answer failed, and why, comes from contract-digest.ts, on the failure path only.
 *
 * k6-safe: no Node.js API, no import but types and the names table.
 */
import { ENVELOPE_MARKERS } from "../../contract/schemas/names.ts";
import type { FieldRule, JsonType } from "./contract-digest.ts";

const STRING = 1;
const NUMBER = 2;
const INTEGER = 4;
const BOOLEAN = 8;
const OBJECT = 16;
const ARRAY = 32;
const NULL = 64;
const BIT: Record<JsonType, number> = {
  string: STRING,
  number: NUMBER,
  integer: INTEGER,
  boolean: BOOLEAN,
  object: OBJECT,
  array: ARRAY,
  null: NULL,
};

/** §2.1, §7: the envelope markers, then the status and the order id: what every answer is checked for. */
const BASIC_SELECTOR =
  "[result.codeError,result.message,result.status,result.x-request-id,data.status,data.id]";

/** One GJSON path component, escaped as GJSON's own Escape does. */
export function escapeGjson(component: string): string {
  let out = "";
  for (const char of component) {
    const safe = /[A-Za-z0-9_\-:]/.test(char) || char <= " " || char > "~";
    out += safe ? char : `\\${char}`;
  }
  return out;
}

export interface AnswerRules {
  /** GJSON array multipath of the basic values (the same for every operation). */
  basic: string;
  /** GJSON array multipath of every required data field. */
  fields: string;
  /** Accepted JSON types of each field, in `fields` order; "number" accepts integers too. */
  masks: number[];
}

/**
 * Compiles an operation's field rules. Selecting a whole object or array would make k6 build it
 * in Go and hand it to JavaScript: an object whose own required fields are checked is not selected
 * (GJSON finds them only inside an object), and an array is selected as its length (`.#`, which
 * GJSON gives only for an array).
 */
export function compileAnswerRules(rules: readonly FieldRule[]): AnswerRules {
  const paths: string[] = [];
  const masks: number[] = [];
  for (const rule of rules) {
    const only = rule.types.length === 1 ? rule.types[0] : undefined;
    const path = `data.${rule.path.split(".").map(escapeGjson).join(".")}`;
    if (only === "object" && rules.some((other) => other.path.startsWith(`${rule.path}.`))) continue;
    if (only === "array") {
      paths.push(`${path}.#`);
      masks.push(INTEGER);
      continue;
    }
    paths.push(path);
    masks.push(
      rule.types.reduce((mask, type) => mask | BIT[type] | (type === "number" ? BIT.integer : 0), 0),
    );
  }
  return { basic: BASIC_SELECTOR, fields: `[${paths.join(",")}]`, masks };
}

/** What the basic check concludes. */
export interface BasicVerdict {
  /** A success envelope (the markers and a request id). */
  envelope: boolean;
  /** And data.status is the one the profile expects. */
  status: boolean;
  /** False when values were missing: which part failed then needs the detailed check. */
  complete: boolean;
  /** data.id, when a string. */
  id: string | undefined;
}

/** Judges the values `response.json(rules.basic)` returned. */
export function judgeBasic(values: unknown, expectedStatus: string, verdict: BasicVerdict): BasicVerdict {
  if (!Array.isArray(values) || values.length !== 6) {
    verdict.envelope = false;
    verdict.status = false;
    verdict.complete = false;
    verdict.id = undefined;
    return verdict;
  }
  const requestId = values[3];
  const id = values[5];
  verdict.complete = true;
  verdict.envelope =
    values[0] === ENVELOPE_MARKERS.successCodeError &&
    values[1] === null &&
    values[2] === ENVELOPE_MARKERS.successStatus &&
    typeof requestId === "string" &&
    requestId !== "";
  verdict.status = verdict.envelope && values[4] === expectedStatus;
  verdict.id = typeof id === "string" ? id : undefined;
  return verdict;
}

/**
 * Whether the values `response.json(rules.fields)` returned have every field, each of a type the
 * contract accepts. Indexed loop, type tests inlined: at thousands of answers a second, a call or
 * an iterator per field is measurable.
 */
export function fieldsMatch(values: unknown, rules: AnswerRules): boolean {
  const masks = rules.masks;
  if (!Array.isArray(values) || values.length !== masks.length) return false;
  for (let i = 0; i < masks.length; i++) {
    const value = values[i];
    const kind = typeof value;
    const bit =
      kind === "string"
        ? STRING
        : kind === "number"
          ? Number.isInteger(value)
            ? INTEGER
            : NUMBER
          : kind === "boolean"
            ? BOOLEAN
            : kind === "object"
              ? value === null
                ? NULL
                : Array.isArray(value)
                  ? ARRAY
                  : OBJECT
              : 0;
    if ((bit & (masks[i] as number)) === 0) return false;
  }
  return true;
}
