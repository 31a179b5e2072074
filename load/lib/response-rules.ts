/**
 * The contract digest's rules, compiled once per VU into the cheapest form a check can take on
 * every answer. k6 runs JavaScript in an interpreter, where JSON.parse of an order record and a
 * loop over its fields cost more than k6's HTTP request itself; so a check stays in k6's Go code:
 *
 *   1. k6's JSON selector, `response.json(selector)`, picks the values a check needs out of the
 *      body with one GJSON array multipath (the envelope markers, then each required `data`
 *      field) and hands them back as one string of JSON text (`|@tostr`);
 *   2. one regular expression, compiled from the digest (Go's own regexp runs it), says whether
 *      that text is: `"none"`, `null`, `"success"`, a request id, then each field with a type the
 *      contract accepts, and the status the profile expects; it captures the order id.
 *
 * GJSON leaves a missing value out, so a missing field fails the match too. A failed match says
 * only "not as the contract says": which part failed, and why, comes from contract-digest.ts, on
 * the failure path only (so an unusual but valid answer costs time there, never a wrong verdict).
 *
 * k6-safe: no Node.js API, no import but types and the names table.
 */
import { ENVELOPE_MARKERS } from "../../contract/names.ts";
import type { FieldRule, JsonType } from "./contract-digest.ts";

/** JSON text of one value of each type, as a regular expression (the text GJSON hands back is raw). */
const JSON_TEXT: Record<JsonType, string> = {
  string: String.raw`"(?:[^"\\]|\\.)*"`,
  number: String.raw`-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?`,
  integer: String.raw`-?\d+(?:\.0+)?(?:[eE]\+?\d+)?`,
  boolean: "(?:true|false)",
  // Objects and arrays are never selected whole (see below): these match GJSON's raw text loosely.
  object: String.raw`\{.*?\}`,
  array: String.raw`\[.*?\]`,
  null: "null",
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
/** A JSON string literal as it appears in JSON text, as a regular expression. */
const literal = (text: string) => escapeRegExp(JSON.stringify(text));

/** The envelope markers, in the order they lead the selection (§2.1, §7), and their JSON text. */
const ENVELOPE: [path: string, text: string][] = [
  ["result.codeError", literal(ENVELOPE_MARKERS.successCodeError)],
  ["result.message", "null"],
  ["result.status", literal(ENVELOPE_MARKERS.successStatus)],
  // A request id: a string, not empty.
  ["result.x-request-id", String.raw`"(?:[^"\\]|\\.)+"`],
];

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
  /** GJSON: the envelope markers and every required data field, as one string of JSON text. */
  selector: string;
  /** What that text is when the answer keeps the contract; group 1 is the order id. */
  pattern: RegExp;
}

/**
 * Compiles an operation's rules, and the status the profile expects it to answer with. Selecting
 * a whole object or array would make k6 build it in Go and hand it to JavaScript; so an object
 * whose own required fields are checked is not selected (GJSON finds them only inside an object),
 * and an array is selected as its length (`.#`, which GJSON gives only for an array).
 */
export function compileAnswerRules(rules: readonly FieldRule[], expectedStatus: string): AnswerRules {
  const paths: string[] = [];
  const texts: string[] = [];
  for (const [path, text] of ENVELOPE) {
    paths.push(path);
    texts.push(text);
  }
  let status = false;
  let id = false;
  for (const rule of rules) {
    const only = rule.types.length === 1 ? rule.types[0] : undefined;
    const path = `data.${rule.path.split(".").map(escapeGjson).join(".")}`;
    if (only === "object" && rules.some((other) => other.path.startsWith(`${rule.path}.`))) continue;
    if (rule.path === "status") {
      status = true;
      paths.push(path);
      texts.push(literal(expectedStatus));
    } else if (rule.path === "id") {
      id = true;
      paths.push(path);
      texts.push(String.raw`"((?:[^"\\]|\\.)*)"`);
    } else if (only === "array") {
      paths.push(`${path}.#`);
      texts.push(String.raw`\d+`);
    } else {
      paths.push(path);
      // "number" accepts integers too; its pattern matches them.
      const types = [...new Set(rule.types)].map((type) => JSON_TEXT[type]);
      texts.push(types.length === 1 ? (types[0] as string) : `(?:${types.join("|")})`);
    }
  }
  // The status is checked against the profile, and the id read, even where the digest does not require them.
  if (!status) {
    paths.push("data.status");
    texts.push(literal(expectedStatus));
  }
  if (!id) {
    paths.push("data.id");
    texts.push(String.raw`"((?:[^"\\]|\\.)*)"`);
  }
  return {
    selector: `[${paths.join(",")}]|@tostr`,
    pattern: new RegExp(`^\\[${texts.join(",")}\\]$`),
  };
}

/** What a check concludes from the selection. */
export interface AnswerVerdict {
  /** A success envelope; false also when it cannot be told from the selection (see `complete`). */
  envelope: boolean;
  /** Every required field present with an accepted type, and data.status as expected. */
  data: boolean;
  /** False when the selection did not match: which part failed then needs the detailed check. */
  complete: boolean;
  /** data.id, when the answer matched. */
  id: string | undefined;
}

/** Judges the text `response.json(rules.selector)` returned: one match, in Go. */
export function judgeSelection(text: unknown, rules: AnswerRules, verdict: AnswerVerdict): AnswerVerdict {
  const match = typeof text === "string" ? rules.pattern.exec(text) : null;
  const ok = match !== null;
  verdict.envelope = ok;
  verdict.data = ok;
  verdict.complete = ok;
  const id = ok ? (match[1] as string) : undefined;
  // The id as JSON text: only an id with escapes (never a UUID) needs decoding.
  verdict.id = id?.includes("\\") ? (JSON.parse(`"${id}"`) as string) : id;
  return verdict;
}
