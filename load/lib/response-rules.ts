/**
 * The contract digest's rules, compiled once per VU into the cheapest form a check can take on
 * every answer. k6 runs JavaScript in an interpreter, where JSON.parse of an order record and a
 * loop over its fields cost more than k6's HTTP request itself; so the values a check needs are
 * picked out of the body by k6's own (Go) JSON selector, `response.json(selector)`, in one call
 * with a GJSON array multipath: the envelope markers first, then each required `data` field. A
 * check is then a length comparison and one `typeof` per field against a bit mask of the JSON
 * types the contract accepts. The wording of a failure (which field, which type) comes from
 * contract-digest.ts, on the failure path only.
 *
 * k6-safe: no Node.js API, no import but types.
 */
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

/** The envelope markers, in the order they lead the selection (§2.1, §7). */
const ENVELOPE_PATHS = ["result.codeError", "result.message", "result.status", "result.x-request-id"];
const ENVELOPE_COUNT = ENVELOPE_PATHS.length;

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
  /** GJSON array multipath: the envelope markers, then every required data field. */
  selector: string;
  /** Accepted JSON types of each data field, in selector order; "number" accepts integers too. */
  masks: number[];
  /** Index of data.status and data.id among the selected values. */
  statusIndex: number;
  idIndex: number;
  /** How many values a conforming answer yields (GJSON leaves missing ones out). */
  count: number;
}

export function compileAnswerRules(rules: readonly FieldRule[]): AnswerRules {
  const paths = [...ENVELOPE_PATHS];
  const masks: number[] = [];
  let statusIndex = -1;
  let idIndex = -1;
  for (const rule of rules) {
    const only = rule.types.length === 1 ? rule.types[0] : undefined;
    const path = `data.${rule.path.split(".").map(escapeGjson).join(".")}`;
    // Selecting a whole object or array makes k6 build it in Go and hand it to JavaScript, the
    // dearest part of a check. An object whose own required fields are checked needs no selection
    // (GJSON finds them only inside an object); an array is selected as its length (`.#`, which
    // GJSON gives only for an array).
    if (only === "object" && rules.some((other) => other.path.startsWith(`${rule.path}.`))) continue;
    if (rule.path === "status") statusIndex = paths.length;
    if (rule.path === "id") idIndex = paths.length;
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
  // The status is checked against the profile's expectation, and the id read, even where the
  // digest does not require them.
  if (statusIndex === -1) {
    statusIndex = paths.length;
    paths.push("data.status");
    masks.push(BIT.string);
  }
  if (idIndex === -1) {
    idIndex = paths.length;
    paths.push("data.id");
    masks.push(BIT.string);
  }
  return { selector: `[${paths.join(",")}]`, masks, statusIndex, idIndex, count: paths.length };
}

/** What a check concludes from the selected values. */
export interface AnswerVerdict {
  /** A success envelope; false also when it cannot be told from the selection (see `complete`). */
  envelope: boolean;
  /** Every required field present with an accepted type, and data.status as expected. */
  data: boolean;
  /** False when values are missing: which part failed then needs the detailed check. */
  complete: boolean;
  /** data.id, when the selection had it as a string. */
  id: string | undefined;
}

/**
 * Judges the values `response.json(rules.selector)` returned. Indexed loops only: an iterator
 * per loop is measurable at thousands of answers a second.
 */
export function judgeSelection(
  values: unknown,
  rules: AnswerRules,
  expectedStatus: string,
  verdict: AnswerVerdict,
): AnswerVerdict {
  if (!Array.isArray(values) || values.length !== rules.count) {
    verdict.envelope = false;
    verdict.data = false;
    verdict.complete = false;
    verdict.id = undefined;
    return verdict;
  }
  const requestId = values[3];
  const id = values[rules.idIndex];
  verdict.id = typeof id === "string" ? id : undefined;
  verdict.complete = true;
  verdict.envelope =
    values[0] === "none" &&
    values[1] === null &&
    values[2] === "success" &&
    typeof requestId === "string" &&
    requestId !== "";
  let data = verdict.envelope && values[rules.statusIndex] === expectedStatus;
  const masks = rules.masks;
  // typeBit inlined: a call per field is measurable in k6's interpreter.
  for (let i = 0; data && i < masks.length; i++) {
    const value = values[ENVELOPE_COUNT + i];
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
    if ((bit & (masks[i] as number)) === 0) data = false;
  }
  verdict.data = data;
  return verdict;
}
