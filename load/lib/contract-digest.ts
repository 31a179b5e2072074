/**
 * The contract, boiled down to what a load run checks on every response: the envelope markers,
 * and each required `data` field with the JSON types it may take. Built at bundle time from the
 * zod contract (load/harness/digest.ts), so the k6 scripts carry no second field list and no
 * validator library; the checks here are a few property reads per response.
 *
 * k6-safe: no Node.js API, no import but the schema-free names table.
 */
import { ENVELOPE_MARKERS, type OperationName, readPath } from "../../contract/schemas/names.ts";

export type JsonType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null";

export interface FieldRule {
  /** Dotted path under `data`. */
  path: string;
  types: JsonType[];
}

export interface ContractDigest {
  responses: Record<OperationName, FieldRule[]>;
}

function jsonTypeOf(value: unknown): JsonType | "undefined" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonType | "undefined";
}

function accepts(types: JsonType[], actual: JsonType | "undefined"): boolean {
  if (actual === "undefined") return false;
  return types.includes(actual) || (actual === "integer" && types.includes("number"));
}

export interface ParsedResponse {
  /** Problems with the envelope: empty when it is a well-formed success. */
  problems: string[];
  /** The parsed body, when it is JSON. */
  json: Record<string, unknown> | undefined;
  /** result.codeError, when present (for counting business errors). */
  codeError: string | undefined;
}

/** Parses a response body and checks the success envelope (§2.1, §7). */
export function checkSuccessEnvelope(status: number, body: string | null): ParsedResponse {
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = body ? JSON.parse(body) : undefined;
    json =
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined;
  } catch {
    json = undefined;
  }
  if (!json)
    return { problems: [`HTTP ${status}: body is not a JSON object`], json: undefined, codeError: undefined };
  const result = json.result as Record<string, unknown> | undefined;
  const codeError = typeof result?.codeError === "string" ? result.codeError : undefined;
  const problems: string[] = [];
  if (status !== 200) problems.push(`HTTP ${status}`);
  if (!result) problems.push("result is absent");
  else {
    if (result.codeError !== ENVELOPE_MARKERS.successCodeError)
      problems.push(`result.codeError ${String(result.codeError)}`);
    if (result.message !== null) problems.push("result.message is not null");
    if (result.status !== ENVELOPE_MARKERS.successStatus)
      problems.push(`result.status ${String(result.status)}`);
    if (typeof result["x-request-id"] !== "string" || result["x-request-id"] === "")
      problems.push("no result.x-request-id");
  }
  return { problems, json, codeError };
}

/** Checks the required `data` fields of an operation's answer and their types. */
export function checkDataFields(data: unknown, rules: FieldRule[]): string[] {
  if (typeof data !== "object" || data === null) return ["data is not an object"];
  const problems: string[] = [];
  for (const rule of rules) {
    const actual = jsonTypeOf(readPath(data, rule.path));
    if (!accepts(rule.types, actual))
      problems.push(`data.${rule.path} is ${actual}, expected ${rule.types.join("|")}`);
  }
  return problems;
}
