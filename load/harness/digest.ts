/**
 * Builds the load scripts' contract digest from the zod contract (Node side, at bundle time):
 * each success answer's required `data` fields with their JSON types.
 */
import * as z from "zod";
import {
  type Contract,
  ENDPOINTS,
  contract as lenientContract,
  type OperationName,
} from "../../contract/index.ts";
import type { ContractDigest, FieldRule, JsonType } from "../lib/contract-digest.ts";

interface JsonSchema {
  type?: JsonType | JsonType[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

function typesOf(schema: JsonSchema): JsonType[] {
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap(typesOf))];
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  return [];
}

function requiredRules(schema: JsonSchema, prefix = ""): FieldRule[] {
  const rules: FieldRule[] = [];
  for (const name of schema.required ?? []) {
    const property = schema.properties?.[name];
    if (!property) continue;
    const path = prefix ? `${prefix}.${name}` : name;
    const types = typesOf(property);
    // A field without a JSON type (z.unknown()) only has to be present: any type is fine.
    rules.push({
      path,
      types: types.length > 0 ? types : ["string", "number", "integer", "boolean", "object", "array", "null"],
    });
    if (property.properties) rules.push(...requiredRules(property, path));
  }
  return rules;
}

export function buildContractDigest(contract: Contract = lenientContract): ContractDigest {
  const responses = {} as Record<OperationName, FieldRule[]>;
  for (const endpoint of Object.values(ENDPOINTS)) {
    const envelope = z.toJSONSchema(contract.responses[endpoint.operation], {
      unrepresentable: "any",
    }) as JsonSchema;
    responses[endpoint.operation] = requiredRules(envelope.properties?.data ?? {});
  }
  return { responses };
}
