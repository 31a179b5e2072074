/**
 * The request schemas of one integration's OpenAPI document: the contract's request schemas with
 * only the constraints the API description states, the profile declares, or that necessarily
 * follow. Which is which comes from contract/generation/request-rules.ts (`constraintBasis`); an advisory
 * constraint the profile does not declare is left out, so a request the target must accept is
 * never one the document refuses. The profile's methods add the methodID values, and per method
 * its amount limits and the conditional fields it requires.
 */

import {
  constraintBasis,
  type JsonSchemaNode,
  mergedRequestRules,
  type OrderMethod,
  requestJsonSchema,
  schemaField,
  withRequestRules,
} from "../generation/index.ts";
import type { Profile } from "../profile/index.ts";
import { orderMethodsOf } from "../profile/index.ts";
import { asciiPattern, ENDPOINTS, OPERATIONS_BY_KIND, type OrderKind } from "../schemas/index.ts";

/**
 * An absolute http(s) URL, the scheme in any case, a non-empty host of anything but spaces and
 * delimiters: `http://` fails, `https://Ï` passes. A pattern, not `format: uri`: 2020-12 makes
 * formats annotations, and the validators that do assert `uri` take RFC 3986's ASCII-only
 * grammar, which refuses the internationalised hosts a provider parsing URLs as WHATWG accepts.
 * "Spaces" are JavaScript's `\s`, written out (ascii-patterns.ts) so every engine reads the same.
 */
export const HTTP_URL_PATTERN = asciiPattern("^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+([/?#]\\S*)?$");

/**
 * An absolute URL, as a profile's declared `format: "uri"` means it (WHATWG's URL.canParse):
 * an http(s) one as above, or a scheme of any other name followed by ":".
 */
export const ABSOLUTE_URL_PATTERN = asciiPattern(
  "^([Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+([/?#]\\S*)?|(?![Hh][Tt][Tt][Pp][Ss]?:)[A-Za-z][A-Za-z0-9+.-]*:\\S*)$",
);

/** Keywords that shape the tree rather than constrain a value: walked, not classified. */
const STRUCTURE = new Set([
  "$schema",
  "$id",
  "properties",
  "additionalProperties",
  "anyOf",
  "title",
  "description",
  "default",
  "examples",
]);

type Declared = Parameters<typeof constraintBasis>[2];

/** The non-null node a (possibly nullable) property holds, edited in place. */
function valueNode(raw: JsonSchemaNode): JsonSchemaNode {
  return raw.anyOf?.find((branch) => branch.type !== "null") ?? raw;
}

/**
 * Drops, in place, each constraint whose basis is advisory, and turns a `format: uri` into the
 * pattern a generic validator enforces. A keyword no basis classifies throws (constraintBasis).
 */
function keepOnlyBindingConstraints(node: JsonSchemaNode, path: string, declared: Declared): void {
  for (const keyword of Object.keys(node)) {
    if (STRUCTURE.has(keyword) || keyword === "format") continue;
    const value = node[keyword];
    // zod's int() writes the safe-integer range as bounds: a representation limit, not a rule.
    if (typeof value === "number" && Math.abs(value) >= Number.MAX_SAFE_INTEGER) {
      delete node[keyword];
      continue;
    }
    if (constraintBasis(path, keyword, declared).kind === "advisory") delete node[keyword];
  }
  if (node.format !== undefined) {
    const format = node.format;
    delete node.format;
    if (constraintBasis(path, "format", declared).kind !== "advisory") {
      if (format !== "uri") throw new Error(`${path}: no pattern stands for the format "${format}"`);
      // The contract's own (necessary) URL rule is an http(s) one; a declared "uri" is any absolute URL.
      const own = constraintBasis(path, "format", { rules: {} }).kind !== "advisory";
      const pattern = own ? HTTP_URL_PATTERN : ABSOLUTE_URL_PATTERN;
      if (node.pattern === undefined) node.pattern = pattern;
      else {
        node.allOf = [{ pattern: node.pattern }, { pattern }];
        delete node.pattern;
      }
    }
  }
  if (node.type === "object") {
    for (const [key, raw] of Object.entries(node.properties ?? {})) {
      keepOnlyBindingConstraints(valueNode(raw), path ? `${path}.${key}` : key, declared);
    }
  }
}

/** A request schema of the contract with the profile's rules, and only its binding constraints. */
function boundRequestSchema(root: JsonSchemaNode, profile: Profile): JsonSchemaNode {
  const declared: Declared = { rules: profile.requestRules, maxLengths: profile.maxLengths };
  const out = withRequestRules(root, mergedRequestRules(profile.requestRules, profile.maxLengths));
  delete out.$schema;
  keepOnlyBindingConstraints(out, "", declared);
  return out;
}

/** How a path reads in a dotted-path-to-nested-schema walk: `clientMetadata.phone` → [clientMetadata, phone]. */
function requireAt(branch: JsonSchemaNode, path: string, leaf: JsonSchemaNode): void {
  const [head, ...rest] = path.split(".") as [string, ...string[]];
  branch.required = [...new Set([...(branch.required ?? []), head])];
  branch.properties ??= {};
  if (rest.length === 0) {
    branch.properties[head] = leaf;
    return;
  }
  // An object, so null (which the contract allows for an optional parent) no longer passes.
  const child = branch.properties[head] ?? { type: "object" };
  branch.properties[head] = child;
  requireAt(child, rest.join("."), leaf);
}

/** The schema one method adds to its create request: its methodID, amount limits, required fields. */
function methodBranch(method: OrderMethod, root: JsonSchemaNode): JsonSchemaNode {
  const declared: Declared = { rules: {} };
  const branch: JsonSchemaNode = {
    title: `method ${method.methodID} (${method.currency})`,
    type: "object",
    required: ["methodID"],
    properties: { methodID: { const: method.methodID } },
  };
  const amount: JsonSchemaNode = {};
  if (method.minAmount !== undefined && constraintBasis("amount", "minimum", declared).kind !== "advisory")
    amount.minimum = method.minAmount;
  if (method.maxAmount !== undefined && constraintBasis("amount", "maximum", declared).kind !== "advisory")
    amount.maximum = method.maxAmount;
  if (Object.keys(amount).length > 0) (branch.properties as Record<string, JsonSchemaNode>).amount = amount;
  for (const path of method.requiredFields) {
    if (constraintBasis(path, "required-by-method", declared).kind === "advisory") continue;
    const field = schemaField(root, path);
    if (!field) throw new Error(`method ${method.methodID}: ${path} is not a field of its request`);
    requireAt(branch, path, field.node.type ? { type: field.node.type } : { not: { type: "null" } });
  }
  return branch;
}

/** The create request of one order kind for the profile: its methods' IDs, and one branch per method. */
export function createRequestSchema(kind: OrderKind, profile: Profile): JsonSchemaNode {
  const contractRoot = requestJsonSchema(ENDPOINTS[OPERATIONS_BY_KIND[kind].create].request);
  const out = boundRequestSchema(contractRoot, profile);
  const methods = orderMethodsOf(profile).filter((method) => method.kind === kind);
  if (constraintBasis("methodID", "method", { rules: {} }).kind !== "advisory") {
    const methodID = out.properties?.methodID as JsonSchemaNode;
    methodID.enum = methods.map((method) => method.methodID);
    // Each body matches its own method's branch only: the methodID consts tell them apart.
    const branches = methods.map((method) => methodBranch(method, contractRoot));
    // One method: its branch applies as it is (a one-schema oneOf says the same, less plainly).
    if (branches.length === 1) out.allOf = branches;
    else out.oneOf = branches;
  }
  return out;
}

/** The confirmation request for the profile: `code` with the rules the profile declares for it. */
export function confirmRequestSchema(profile: Profile): JsonSchemaNode {
  const out = boundRequestSchema(
    requestJsonSchema(ENDPOINTS[OPERATIONS_BY_KIND.mobile_commerce.confirm].request),
    profile,
  );
  const code = out.properties?.code as JsonSchemaNode;
  code.examples = [profile.confirmation.successCode];
  code.description =
    `The confirmation code. Profile ${profile.name}: ${profile.confirmation.successCode} succeeds, ` +
    `${profile.confirmation.wrongCode} is refused as wrong.`;
  return out;
}
