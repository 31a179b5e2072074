/**
 * The basis of every constraint of the request schemas, as data: the API description states it,
 * the profile declares it, it is necessary (it follows with no number or format added), or it is
 * the suite's advisory (a limit or format the description does not state). Only an advisory
 * constraint can be declared or waived by a profile (`requestRules`); a derived negative case
 * carries its constraint's basis, and an advisory one never fails a run.
 */
import type { RuleKind } from "./checks/check.ts";

/** What a profile can declare of one request field; "none" says the target has no such rule. */
export interface RequestRule {
  minLength?: number | "none" | undefined;
  maxLength?: number | "none" | undefined;
  pattern?: string | "none" | undefined;
  /** `uri`: an absolute URL. */
  format?: "uri" | "none" | undefined;
}

/** Per dotted request field path (`clientID`, `requisites.cvc`, `code`), what the profile declares. */
export type RequestRules = Readonly<Record<string, RequestRule>>;

/** The keywords a profile may declare or waive: the ones the description never states a value for. */
export const DECLARABLE_KEYWORDS = ["minLength", "maxLength", "pattern", "format"] as const;
export type DeclarableKeyword = (typeof DECLARABLE_KEYWORDS)[number];

export function isDeclarable(keyword: string): keyword is DeclarableKeyword {
  return (DECLARABLE_KEYWORDS as readonly string[]).includes(keyword);
}

/** How long a value is sent where the profile declares that a field has no maximum length. */
export const UNLIMITED_PROBE_LENGTH = 10_000;

export interface ConstraintBasis {
  kind: RuleKind;
  /** Where it comes from: sections of the description, the profile key, or the reason. */
  source: string;
}

interface BasisRow {
  keyword: string;
  /** The field paths the row is for; absent: any field. The first matching row wins. */
  paths?: readonly string[];
  kind: RuleKind;
  source: string;
}

/**
 * The contract's own constraints (contract/schemas.ts) and the methods' rules, classified. A
 * keyword with no row stops the suite (a constraint must never go unclassified).
 */
export const CONTRACT_CONSTRAINT_BASES: readonly BasisRow[] = [
  { keyword: "required", kind: "stated", source: "§4.1-§4.4: the request tables' required fields" },
  {
    keyword: "type",
    paths: ["metadata.successRedirectURL", "metadata.failRedirectURL"],
    kind: "advisory",
    source:
      "the redirect URLs appear in a quasi-ecom sample request only: no field table lists them or gives their type, and a target may ignore them",
  },
  { keyword: "type", kind: "stated", source: "§4: the request tables' types (integer, float64, string)" },
  {
    keyword: "enum",
    paths: ["trafficType"],
    kind: "stated",
    source: "§4.1, §4.3: trafficType is one of ftd, td, mixed",
  },
  {
    keyword: "pattern",
    paths: ["requisites.lifetimeMonth"],
    kind: "stated",
    source: "§4.3: the card expiry month, format MM",
  },
  {
    keyword: "pattern",
    paths: ["requisites.lifetimeYear"],
    kind: "stated",
    source: "§4.3: the card expiry year, format YY",
  },
  {
    keyword: "format",
    paths: ["metadata.webHook"],
    kind: "necessary",
    source: "§4.1, §4.3 and §6: the URL that receives the callback requests, so an absolute http(s) URL",
  },
  {
    keyword: "exclusiveMinimum",
    paths: ["amount"],
    kind: "necessary",
    source: "§4.1, §4.3: a payment amount; one of zero or less moves no money",
  },
  {
    keyword: "minimum",
    paths: ["amount"],
    kind: "declared",
    source: "the profile's minAmount of the method (§8: limits not shown)",
  },
  {
    keyword: "maximum",
    paths: ["amount"],
    kind: "declared",
    source: "the profile's maxAmount of the method (§8: limits not shown)",
  },
  {
    keyword: "required-by-method",
    kind: "declared",
    source: "the profile's requires of the method (§4.1, §4.3: 'conditional', set per integration)",
  },
  {
    keyword: "method",
    kind: "declared",
    source: "the profile's methods per flow (§4.5: methodID values are communicated at integration)",
  },
  {
    keyword: "minLength",
    kind: "advisory",
    source:
      "the API description states no minimum length; the suite probes an empty string (a profile declares requestRules.<field>.minLength)",
  },
  {
    keyword: "maxLength",
    kind: "advisory",
    source:
      "the API description states no maximum length; the suite probes common limits: text 255, e-mail 254, phone 32, URL 2048 (a profile declares requestRules.<field>.maxLength or maxLengths.<field>)",
  },
  {
    keyword: "pattern",
    kind: "advisory",
    source:
      "the API description states no format for this field (a card of 12-19 digits and a CVC of 3-4 are the suite's; a profile declares requestRules.<field>.pattern)",
  },
  {
    keyword: "format",
    kind: "advisory",
    source:
      "the API description states no format for this field (the redirect URLs' semantics are not shown; a profile declares requestRules.<field>.format)",
  },
];

/** Where a profile declares a keyword of a field: its `requestRules`, or `maxLengths` for a maximum length. */
export function declaredRuleKey(path: string, keyword: string, fromMaxLengths: boolean): string {
  return fromMaxLengths ? `maxLengths.${path}` : `requestRules.${path}.${keyword}`;
}

/**
 * The basis of one constraint a negative case breaks: declared where the profile gives it, else
 * the contract's row. Throws for a keyword no row classifies.
 */
export function constraintBasis(
  path: string,
  keyword: string,
  declared: { rules: RequestRules; maxLengths?: Readonly<Record<string, number | "none">> | undefined },
): ConstraintBasis {
  if (isDeclarable(keyword)) {
    const value = declared.rules[path]?.[keyword];
    if (value !== undefined && value !== "none")
      return { kind: "declared", source: `the profile's ${declaredRuleKey(path, keyword, false)}` };
    const max = keyword === "maxLength" ? declared.maxLengths?.[path] : undefined;
    if (max !== undefined && max !== "none")
      return { kind: "declared", source: `the profile's ${declaredRuleKey(path, keyword, true)}` };
  }
  const row = CONTRACT_CONSTRAINT_BASES.find(
    (r) => r.keyword === keyword && (r.paths === undefined || r.paths.includes(path)),
  );
  if (!row)
    throw new Error(
      `no basis classifies the constraint "${keyword}" of ${path || "(body)"}: add a row to CONTRACT_CONSTRAINT_BASES (contract/request-rules.ts)`,
    );
  return { kind: row.kind, source: row.source };
}

/** The profile's rules with its `maxLengths` folded in (`requestRules` wins where both speak). */
export function mergedRequestRules(
  rules: RequestRules | undefined,
  maxLengths: Readonly<Record<string, number | "none">> | undefined,
): RequestRules {
  const out: Record<string, RequestRule> = {};
  for (const [path, maxLength] of Object.entries(maxLengths ?? {})) out[path] = { maxLength };
  for (const [path, rule] of Object.entries(rules ?? {})) out[path] = { ...out[path], ...rule };
  return out;
}
