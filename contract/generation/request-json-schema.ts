/**
 * The request schemas as JSON Schema (zod 4's `toJSONSchema`), and what the generated inputs,
 * the derived negative inputs and the shrinker need from it: the fields with their constraints,
 * narrowing by one payment method of a target, per-field length overrides from a profile, and a
 * validator of exactly the keywords the contract uses.
 *
 * The validator refuses a keyword it does not know instead of ignoring it: a constraint added to
 * a request schema either gets its negative case (contract/generation/negative-cases.ts) or stops the suite
 * with a message naming the keyword, never silently goes unprobed.
 */
import * as z from "zod";
import type { OrderKind } from "../schemas/index.ts";
import { withField } from "./request-fields.ts";
import { DECLARABLE_KEYWORDS, type RequestRules, UNLIMITED_PROBE_LENGTH } from "./request-rules.ts";

/** A JSON Schema node as zod 4 emits it (draft 2020-12). */
export interface JsonSchemaNode {
  type?: string;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  additionalProperties?: JsonSchemaNode | boolean;
  anyOf?: JsonSchemaNode[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  [keyword: string]: unknown;
}

/**
 * One payment method of a target, as a profile lists it: what the generated orders are narrowed
 * by and what the conditional negative cases are derived from.
 */
export interface OrderMethod {
  kind: OrderKind;
  methodID: number;
  /** The currency this method fixes (§1). */
  currency: string;
  /** Smallest accepted amount; without it, the contract's `amount > 0` is the only floor. */
  minAmount?: number | undefined;
  /** Largest accepted amount; without it, the contract sets no ceiling. */
  maxAmount?: number | undefined;
  /** Conditional fields this method requires, non-null, as dotted paths (`clientMetadata.phone`, `clientID`). */
  requiredFields: readonly string[];
}

/** Per-field maximum lengths a profile sets where the target documents its own (dotted path → length). */
export type MaxLengthOverrides = Readonly<Record<string, number | "none">>;

/** Keywords that constrain nothing (annotations), skipped by the validator and the walker. */
const ANNOTATIONS = new Set(["$schema", "$id", "$comment", "title", "description", "default", "examples"]);

/** The constraint keywords this module validates (and contract/generation/negative-cases.ts derives cases from). */
export const SUPPORTED_KEYWORDS = [
  "type",
  "properties",
  "required",
  "additionalProperties",
  "anyOf",
  "enum",
  "const",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
] as const;
const SUPPORTED = new Set<string>(SUPPORTED_KEYWORDS);
const SUPPORTED_FORMATS = new Set(["uri"]);

export class UnsupportedSchemaError extends Error {
  override name = "UnsupportedSchemaError";
}

/**
 * Each schema converted once per thread: every spec file and the profile's parse convert the same
 * few, and zod's conversion costs far more than a copy.
 */
const converted = new WeakMap<z.ZodType, JsonSchemaNode>();

/** A request schema as JSON Schema, the input side of the contract: a copy of its own, to narrow in place. */
export function requestJsonSchema(schema: z.ZodType): JsonSchemaNode {
  let node = converted.get(schema);
  if (node === undefined) {
    node = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) as JsonSchemaNode;
    converted.set(schema, node);
  }
  return structuredClone(node);
}

/** A zod schema or an already converted JSON Schema. */
export type RequestSchema = z.ZodType | JsonSchemaNode;

export function asJsonSchema(schema: RequestSchema): JsonSchemaNode {
  return schema instanceof z.ZodType ? requestJsonSchema(schema) : schema;
}

/** zod's `.nullable()` becomes `anyOf: [X, {type: "null"}]`: the X, and whether null is allowed. */
export function unwrapNullable(
  node: JsonSchemaNode,
  path: string,
): { node: JsonSchemaNode; nullable: boolean } {
  if (node.anyOf === undefined) return { node, nullable: false };
  const nonNull = node.anyOf.filter((branch) => branch.type !== "null");
  const { anyOf: _anyOf, ...siblings } = node;
  if (nonNull.length === 1 && node.anyOf.length === 2) {
    return { node: { ...siblings, ...(nonNull[0] as JsonSchemaNode) }, nullable: true };
  }
  throw new UnsupportedSchemaError(
    `${path || "(body)"}: anyOf other than "X or null" is not supported by the request probes; ` +
      "teach contract/generation/request-json-schema.ts the new shape",
  );
}

export interface SchemaField {
  /** Dotted path, e.g. `requisites.cvc`. */
  path: string;
  /** The field's schema, with a nullable union unwrapped. */
  node: JsonSchemaNode;
  /** Listed in its parent's `required`. */
  required: boolean;
  /** null is an accepted value. */
  nullable: boolean;
}

/** Every field of an object schema, depth first, parents before their children. */
export function schemaFields(root: JsonSchemaNode): SchemaField[] {
  const fields: SchemaField[] = [];
  const visit = (objectNode: JsonSchemaNode, prefix: string) => {
    const required = new Set(objectNode.required ?? []);
    for (const [key, raw] of Object.entries(objectNode.properties ?? {})) {
      const path = prefix ? `${prefix}.${key}` : key;
      const { node, nullable } = unwrapNullable(raw, path);
      fields.push({ path, node, required: required.has(key), nullable });
      if (node.type === "object") visit(node, path);
    }
  };
  visit(unwrapNullable(root, "").node, "");
  return fields;
}

/** The field at a dotted path, or undefined. */
export function schemaField(root: JsonSchemaNode, path: string): SchemaField | undefined {
  return schemaFields(root).find((field) => field.path === path);
}

/** A deep copy of a schema in which `change` edits the (unwrapped) node of the field at `path`. */
function editField(
  root: JsonSchemaNode,
  path: string,
  change: (node: JsonSchemaNode) => void,
): JsonSchemaNode {
  const copy = structuredClone(root);
  if (copy.anyOf !== undefined)
    throw new UnsupportedSchemaError("(body): a nullable request body is not supported");
  let objectNode = copy;
  const parts = path.split(".");
  for (const [index, key] of parts.entries()) {
    const raw = objectNode.properties?.[key];
    if (raw === undefined) throw new UnsupportedSchemaError(`${path}: no such field in the request schema`);
    const target = raw.anyOf ? raw.anyOf.find((branch) => branch.type !== "null") : raw;
    if (target === undefined) throw new UnsupportedSchemaError(`${path}: a field that can only be null`);
    if (index === parts.length - 1) change(target);
    else objectNode = target;
  }
  return copy;
}

/**
 * The schema with a profile's declared rules (contract/generation/request-rules.ts) in place of the
 * contract's advisory ones: a declared value replaces the keyword, "none" removes it. In `probe`
 * mode a maximum length declared "none" becomes {@link UNLIMITED_PROBE_LENGTH} - 1, so that the
 * negative case shows what the target does with a value that long. Rules span both order kinds,
 * so a path this schema lacks is passed over; one no request has is an error
 * ({@link assertMaxLengthPaths}).
 */
export function withRequestRules(
  root: JsonSchemaNode,
  rules: RequestRules = {},
  mode: "generate" | "probe" = "generate",
  keyOf: (path: string) => string = (path) => `requestRules.${path}`,
): JsonSchemaNode {
  let out = root;
  const known = new Set(schemaFields(root).map((field) => field.path));
  for (const [path, rule] of Object.entries(rules)) {
    if (!known.has(path)) continue;
    out = editField(out, path, (node) => {
      if (node.type !== "string") {
        throw new UnsupportedSchemaError(`${keyOf(path)}: the field is a ${node.type}, not a string`);
      }
      for (const keyword of DECLARABLE_KEYWORDS) {
        const value = rule[keyword];
        if (value === undefined) continue;
        if (value === "none") {
          if (keyword === "maxLength" && mode === "probe") node.maxLength = UNLIMITED_PROBE_LENGTH - 1;
          else delete node[keyword];
        } else (node as Record<string, unknown>)[keyword] = value;
      }
      if (node.minLength !== undefined && node.maxLength !== undefined && node.minLength > node.maxLength) {
        throw new UnsupportedSchemaError(
          `${keyOf(path)}: ${node.maxLength} is below the minimum ${node.minLength}`,
        );
      }
    });
  }
  return out;
}

/** The schema with a profile's per-field maximum lengths: {@link withRequestRules} of `maxLength` alone. */
export function withMaxLengths(root: JsonSchemaNode, overrides: MaxLengthOverrides = {}): JsonSchemaNode {
  for (const [path, maxLength] of Object.entries(overrides)) {
    if (maxLength !== "none" && (!Number.isInteger(maxLength) || maxLength < 1)) {
      throw new UnsupportedSchemaError(`maxLengths.${path}: must be a positive integer, got ${maxLength}`);
    }
  }
  return withRequestRules(
    root,
    Object.fromEntries(Object.entries(overrides).map(([path, maxLength]) => [path, { maxLength }])),
    "generate",
    (path) => `maxLengths.${path}`,
  );
}

/** Throws unless every overridden path is a field of at least one of the request schemas. */
export function assertMaxLengthPaths(
  roots: readonly JsonSchemaNode[],
  overrides: MaxLengthOverrides = {},
): void {
  const known = new Set(roots.flatMap((root) => schemaFields(root).map((field) => field.path)));
  const unknown = Object.keys(overrides).filter((path) => !known.has(path));
  if (unknown.length > 0) {
    throw new UnsupportedSchemaError(
      unknown.map((path) => `maxLengths.${path}: no field of that path in any request`).join("; "),
    );
  }
}

/**
 * The schema narrowed to one method: its amount limits join the contract's (`amount > 0`, and
 * whatever bound the schema itself declares); the stricter bound of the two holds.
 */
export function narrowForMethod(root: JsonSchemaNode, method: OrderMethod | undefined): JsonSchemaNode {
  if (!method || (method.minAmount === undefined && method.maxAmount === undefined)) return root;
  return editField(root, "amount", (node) => {
    if (method.minAmount !== undefined) node.minimum = Math.max(method.minAmount, node.minimum ?? -Infinity);
    if (method.maxAmount !== undefined) node.maximum = Math.min(method.maxAmount, node.maximum ?? Infinity);
  });
}

// --- validation -----------------------------------------------------------------------------------

export interface Violation {
  /** Dotted path of the field, "" for the body itself. */
  path: string;
  /** The JSON Schema keyword broken, or `required-by-method` / `method-kind` for a method's rule. */
  keyword: string;
  message: string;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(type: string, value: unknown): boolean {
  const actual = jsonTypeOf(value);
  if (type === "number") return actual === "number" || actual === "integer";
  return actual === type;
}

function isUri(value: string): boolean {
  return URL.canParse(value);
}

/** Throws on a keyword outside {@link SUPPORTED_KEYWORDS}, naming it and where it is. */
export function assertSupported(node: JsonSchemaNode, path: string): void {
  for (const keyword of Object.keys(node)) {
    if (!SUPPORTED.has(keyword) && !ANNOTATIONS.has(keyword)) {
      throw new UnsupportedSchemaError(
        `${path || "(body)"}: the JSON Schema keyword "${keyword}" is not supported by the request probes; ` +
          "teach contract/generation/request-json-schema.ts (validation) and contract/generation/negative-cases.ts (its negative case)",
      );
    }
  }
}

/** Throws on the first unsupported keyword anywhere in a request schema. */
export function assertSupportedSchema(root: JsonSchemaNode): void {
  assertSupported(unwrapNullable(root, "").node, "");
  for (const field of schemaFields(root)) assertSupported(field.node, field.path);
}

/**
 * Every way `value` breaks `node`. Lengths count UTF-16 code units, as zod (the contract) does.
 * A keyword outside {@link SUPPORTED_KEYWORDS} throws, naming it.
 */
export function nodeViolations(node: JsonSchemaNode, value: unknown, path: string): Violation[] {
  const { node: inner, nullable } = unwrapNullable(node, path);
  assertSupported(inner, path);
  if (value === null && nullable) return [];
  const at = (keyword: string, message: string): Violation => ({ path, keyword, message });
  if (inner.type !== undefined && !matchesType(inner.type, value)) {
    return [at("type", `must be ${inner.type}${nullable ? " or null" : ""}, got ${jsonTypeOf(value)}`)];
  }
  const out: Violation[] = [];
  if (inner.enum !== undefined && !inner.enum.includes(value)) {
    out.push(at("enum", `must be one of ${inner.enum.map((v) => JSON.stringify(v)).join(", ")}`));
  }
  if ("const" in inner && inner.const !== value)
    out.push(at("const", `must be ${JSON.stringify(inner.const)}`));
  if (typeof value === "string") {
    if (inner.minLength !== undefined && value.length < inner.minLength) {
      out.push(at("minLength", `must be at least ${inner.minLength} characters, got ${value.length}`));
    }
    if (inner.maxLength !== undefined && value.length > inner.maxLength) {
      out.push(at("maxLength", `must be at most ${inner.maxLength} characters, got ${value.length}`));
    }
    if (inner.pattern !== undefined && !new RegExp(inner.pattern).test(value)) {
      out.push(at("pattern", `must match ${inner.pattern}`));
    }
    if (inner.format !== undefined) {
      if (!SUPPORTED_FORMATS.has(inner.format)) {
        throw new UnsupportedSchemaError(
          `${path}: the format "${inner.format}" is not supported by the request probes`,
        );
      }
      if (!isUri(value)) out.push(at("format", `must be a ${inner.format}`));
    }
  }
  if (typeof value === "number") {
    if (inner.minimum !== undefined && value < inner.minimum)
      out.push(at("minimum", `must be ≥ ${inner.minimum}`));
    if (inner.maximum !== undefined && value > inner.maximum)
      out.push(at("maximum", `must be ≤ ${inner.maximum}`));
    if (inner.exclusiveMinimum !== undefined && value <= inner.exclusiveMinimum) {
      out.push(at("exclusiveMinimum", `must be > ${inner.exclusiveMinimum}`));
    }
    if (inner.exclusiveMaximum !== undefined && value >= inner.exclusiveMaximum) {
      out.push(at("exclusiveMaximum", `must be < ${inner.exclusiveMaximum}`));
    }
  }
  if (inner.type === "object" && typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    if (inner.additionalProperties === false) {
      throw new UnsupportedSchemaError(
        `${path || "(body)"}: additionalProperties false is not supported yet`,
      );
    }
    for (const key of inner.required ?? []) {
      if (!(key in record) || record[key] === undefined) {
        out.push({ path: path ? `${path}.${key}` : key, keyword: "required", message: "is required" });
      }
    }
    for (const [key, child] of Object.entries(inner.properties ?? {})) {
      const childValue = record[key];
      if (childValue === undefined) continue;
      out.push(...nodeViolations(child, childValue, path ? `${path}.${key}` : key));
    }
  }
  return out;
}

/** The value at a dotted path, or undefined when a step is missing. */
export function valueAt(body: unknown, path: string): unknown {
  let current = body;
  for (const part of path.split(".")) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * How a body breaks a method's own rules: a conditional field the method requires that is absent
 * or null, and a methodID other than the method's.
 */
export function methodViolations(body: unknown, method: OrderMethod | undefined): Violation[] {
  if (!method) return [];
  const out: Violation[] = [];
  const methodID = valueAt(body, "methodID");
  // A methodID of the wrong type is the schema's finding, not the method's.
  if (Number.isInteger(methodID) && methodID !== method.methodID) {
    out.push({ path: "methodID", keyword: "method", message: `must be ${method.methodID}` });
  }
  for (const path of method.requiredFields) {
    const value = valueAt(body, path);
    if (value === undefined || value === null) {
      out.push({ path, keyword: "required-by-method", message: `is required for method ${method.methodID}` });
    }
  }
  return out;
}

/** Throws unless every conditional field the method requires is a field of the request schema. */
export function assertMethodFields(root: JsonSchemaNode, method: OrderMethod | undefined): void {
  if (!method) return;
  const known = new Set(schemaFields(root).map((field) => field.path));
  const unknown = method.requiredFields.filter((path) => !known.has(path));
  if (unknown.length > 0) {
    throw new UnsupportedSchemaError(
      `method ${method.methodID}: required field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} ` +
        `not in the ${method.kind} request (known: ${[...known].join(", ")})`,
    );
  }
}

/** Every violation of a request body against a (narrowed) request schema and a method. */
export function requestViolations(root: JsonSchemaNode, body: unknown, method?: OrderMethod): Violation[] {
  return [...nodeViolations(root, body, ""), ...methodViolations(body, method)];
}

/** A copy of a body with the field at `path` removed (`value` undefined) or replaced. */
export function bodyWith(body: unknown, path: string, value: unknown): Record<string, unknown> {
  return withField(body, path, value === undefined ? { remove: true } : { value });
}

/** One line per violation, led by its path, for an error message. */
export function describeViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.path || "(body)"}: ${v.message} (${v.keyword})`).join("; ");
}
