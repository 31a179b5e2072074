/**
 * What the behaviour checks need to know about a request body, derived from the contract's zod
 * request schemas (never a second hand-written field list): which fields are required, and a
 * value of the wrong type for each leaf field.
 */
import * as z from "zod";

export interface RequestField {
  /** Dotted path, e.g. `requisites.cvc`. */
  path: string;
  required: boolean;
  /** JSON Schema type of the field: "integer", "number", "string", "object", ... */
  jsonType: string;
}

function unwrapOptional(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

function jsonTypeOf(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { unrepresentable: "any" }) as { type?: string; enum?: unknown[] };
  if (json.type) return json.type;
  if (json.enum) return typeof json.enum[0];
  return "unknown";
}

/** Every field of an object schema, depth first, parents before their children. */
export function requestFields(schema: z.ZodType, prefix = ""): RequestField[] {
  const inner = unwrapOptional(schema);
  if (!(inner instanceof z.ZodObject)) return [];
  const fields: RequestField[] = [];
  for (const [key, field] of Object.entries(inner.shape as Record<string, z.ZodType>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const required = !field.safeParse(undefined).success;
    fields.push({ path, required, jsonType: jsonTypeOf(unwrapOptional(field)) });
    fields.push(...requestFields(field, path));
  }
  return fields;
}

/** A value of the wrong JSON type for a field of the given type. */
export function wrongTypeValue(jsonType: string): unknown {
  switch (jsonType) {
    case "integer":
      return 1.5;
    case "number":
      return "1500";
    case "string":
      return 12345;
    case "object":
      return "not-an-object";
    case "boolean":
      return "true";
    default:
      return [];
  }
}

/** A deep copy of a body with the field at `path` removed or replaced. */
export function withField(
  body: unknown,
  path: string,
  change: { remove: true } | { value: unknown },
): Record<string, unknown> {
  const copy = structuredClone(body) as Record<string, unknown>;
  const parts = path.split(".");
  let parent: Record<string, unknown> = copy;
  for (const part of parts.slice(0, -1)) {
    const next = parent[part];
    if (typeof next !== "object" || next === null) {
      parent[part] = {};
    }
    parent = parent[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1] as string;
  if ("remove" in change) delete parent[last];
  else parent[last] = change.value;
  return copy;
}
