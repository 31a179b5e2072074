/**
 * Failures you can reproduce: a failing generated request shrunk to a minimal example that still
 * fails, and a copy-paste `curl` command for any request.
 *
 * Shrinking is greedy and deterministic: it tries, in a fixed order, to drop each optional field,
 * to shorten each free string, to strip a URL's query, and to make the amount simpler, keeping a
 * step only when the request is still valid (schema and method) and the caller's predicate says it
 * still fails; it repeats until no step is kept or the attempt budget is spent.
 */

import { withField } from "./request-fields.ts";
import {
  asJsonSchema,
  type MaxLengthOverrides,
  narrowForMethod,
  type OrderMethod,
  type RequestSchema,
  requestViolations,
  type SchemaField,
  schemaFields,
  valueAt,
  withMaxLengths,
  withRequestRules,
} from "./request-json-schema.ts";
import type { RequestRules } from "./request-rules.ts";

export interface ShrinkOptions {
  /** The request schema every candidate must still satisfy (zod or JSON Schema). */
  schema: RequestSchema;
  /** The method the request is for: its required fields stay, its amount limits hold. */
  method?: OrderMethod | undefined;
  maxLengths?: MaxLengthOverrides | undefined;
  requestRules?: RequestRules | undefined;
  /** Most predicate calls (each may be a request to the target); default 200. */
  maxAttempts?: number | undefined;
}

export interface ShrinkResult {
  /** The smallest request found that still fails (the input itself when nothing could go). */
  body: Record<string, unknown>;
  json: string;
  /** The steps kept, in order, e.g. `removed clientMetadata`, `shortened clientID to 4 characters`. */
  steps: string[];
  /** How many times the predicate was called. */
  attempts: number;
}

/**
 * Shrinks a failing request. `stillFails` gets each candidate (a fresh object) and says whether
 * the failure is still there; when it sends the candidate to a target, it must make what has to
 * be unique (merchantOrderID) unique again, or the duplicate refusal will mask the failure.
 */
export async function shrinkRequest(
  body: Record<string, unknown>,
  stillFails: (candidate: Record<string, unknown>) => boolean | Promise<boolean>,
  options: ShrinkOptions,
): Promise<ShrinkResult> {
  const root = narrowForMethod(
    withRequestRules(withMaxLengths(asJsonSchema(options.schema), options.maxLengths), options.requestRules),
    options.method,
  );
  const maxAttempts = options.maxAttempts ?? 200;
  const keep = new Set<string>();
  for (const path of options.method?.requiredFields ?? []) {
    const parts = path.split(".");
    for (let i = 1; i <= parts.length; i++) keep.add(parts.slice(0, i).join("."));
  }
  const fields = schemaFields(root);
  let current = structuredClone(body);
  const steps: string[] = [];
  let attempts = 0;

  const valid = (candidate: Record<string, unknown>) =>
    requestViolations(root, candidate, options.method).length === 0;
  let progress = true;
  while (progress && attempts < maxAttempts) {
    progress = false;
    for (const [step, candidate] of candidatesOf(current, fields, keep)) {
      if (attempts >= maxAttempts) break;
      if (!valid(candidate)) continue;
      attempts++;
      if (await stillFails(structuredClone(candidate))) {
        current = candidate;
        steps.push(step);
        progress = true;
        break; // Restart from the smaller request: earlier steps may now apply again.
      }
    }
  }
  return { body: current, json: JSON.stringify(current), steps, attempts };
}

/** Simpler versions of a request, one change each, simplest-first. */
function* candidatesOf(
  body: Record<string, unknown>,
  fields: readonly SchemaField[],
  keep: ReadonlySet<string>,
): Generator<[string, Record<string, unknown>]> {
  // 1. Drop optional fields, objects before their members.
  for (const field of fields) {
    if (field.required || keep.has(field.path) || valueAt(body, field.path) === undefined) continue;
    yield [`removed ${field.path}`, withField(body, field.path, { remove: true })];
  }
  // 2. Shorten free strings (no pattern, no enum); strip a URL's query and fragment.
  for (const field of fields) {
    const value = valueAt(body, field.path);
    if (typeof value !== "string" || field.node.type !== "string") continue;
    if (field.node.format === "uri") {
      if (URL.canParse(value)) {
        const url = new URL(value);
        const bare = value.split(/[?#]/)[0] as string;
        if (bare !== value && (url.search || url.hash))
          yield [`dropped the query of ${field.path}`, withField(body, field.path, { value: bare })];
      }
      continue;
    }
    if (field.node.pattern !== undefined || field.node.enum !== undefined) continue;
    const chars = Array.from(value);
    const min = field.node.minLength ?? 0;
    for (const length of [min, Math.ceil(chars.length / 2)]) {
      if (length >= chars.length) continue;
      yield [
        `shortened ${field.path} to ${length} characters`,
        withField(body, field.path, { value: chars.slice(0, length).join("") || "" }),
      ];
    }
    const ascii = "x".repeat(value.length);
    if (ascii !== value && /[^\x20-\x7e]/.test(value)) {
      yield [`made ${field.path} plain ASCII`, withField(body, field.path, { value: ascii })];
    }
  }
  // 3. A simpler amount: fewer decimals, then fewer digits.
  const amount = valueAt(body, "amount");
  if (typeof amount === "number") {
    const minimum = fields.find((f) => f.path === "amount")?.node.minimum;
    const options = [Math.trunc(amount), 1, 10, 100, 1000, ...(minimum !== undefined ? [minimum] : [])];
    for (const option of options) {
      if (simpler(option, amount)) {
        yield [`amount ${amount} → ${option}`, withField(body, "amount", { value: option })];
      }
    }
  }
}

/** Simpler: fewer decimals, then fewer significant digits, then smaller: 1 < 10 < 1000 < 1500 < 0.5 < 1234.56. */
function simpler(a: number, b: number): boolean {
  const key = (value: number) => {
    const [whole = "", fraction = ""] = String(Math.abs(value)).split(".");
    return [
      fraction.length,
      `${whole}${fraction}`.replace(/^0+/, "").replace(/0+$/, "").length,
      Math.abs(value),
    ];
  };
  const [ka, kb] = [key(a), key(b)];
  for (let i = 0; i < ka.length; i++) {
    if ((ka[i] as number) !== (kb[i] as number)) return (ka[i] as number) < (kb[i] as number);
  }
  return false;
}

// --- curl --------------------------------------------------------------------------------------------

export interface CurlRequest {
  method: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  /** The body exactly as sent. */
  body?: string | undefined;
}

/** Headers curl sets itself, or that would be wrong when replayed. */
const SKIPPED_HEADERS = new Set([
  "content-length",
  "host",
  "connection",
  "transfer-encoding",
  "accept-encoding",
]);

/** Single-quotes a word for POSIX shells: `'` becomes `'\''`. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export interface CurlOptions {
  /**
   * The environment variable that holds the bearer token (`H2H_API_KEY`): the Authorization header
   * becomes `--oauth2-bearer "$H2H_API_KEY"`, so the command runs as pasted and carries no key.
   */
  bearerFrom?: string | undefined;
}

/**
 * A copy-paste `curl` command that sends the request again. `mask` is applied to the URL, every
 * header value and the body before quoting (pass the report's masker: no key, card number or CVC
 * may reach a report through a command line); the body is sent byte for byte with --data-binary.
 */
export function toCurl(
  request: CurlRequest,
  mask: (text: string) => string,
  options: CurlOptions = {},
): string {
  const lines = [`curl -sS -X ${request.method.toUpperCase()} ${shellQuote(mask(request.url))}`];
  for (const [name, value] of Object.entries(request.headers)) {
    if (SKIPPED_HEADERS.has(name.toLowerCase())) continue;
    if (options.bearerFrom && name.toLowerCase() === "authorization" && /^Bearer\s/i.test(value)) {
      if (!/^[A-Z_][A-Z0-9_]*$/.test(options.bearerFrom))
        throw new Error(`bearerFrom: "${options.bearerFrom}" is not an environment variable name`);
      lines.push(`--oauth2-bearer "$${options.bearerFrom}"`);
      continue;
    }
    lines.push(`-H ${shellQuote(`${name}: ${mask(value)}`)}`);
  }
  if (request.body !== undefined && request.body !== "")
    lines.push(`--data-binary ${shellQuote(mask(request.body))}`);
  return lines.join(" \\\n  ");
}
