/**
 * The basis of every constraint of the request schemas, as data: the API description states it,
 * the profile declares it, it is necessary (it follows with no number or format added), or it is
 * the suite's advisory (a limit or format the description does not state). Only an advisory
 * constraint can be declared or waived by a profile (`requestRules`); a derived negative case
 * carries its constraint's basis, and an advisory one never fails a run.
 */
import type { RuleSource } from "../checks/index.ts";

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

interface BasisRow {
  keyword: string;
  /** The field paths the row is for; absent: any field. The first matching row wins. */
  paths?: readonly string[];
  basis: RuleSource;
}

const stated = (sections: string[], what: string): RuleSource => ({ kind: "stated", sections, what });
const necessary = (reason: string): RuleSource => ({ kind: "necessary", reason });
const declared = (where: string, keys: string[]): RuleSource => ({ kind: "declared", where, keys });
const advisory = (reason: string, declaredBy: string[] = []): RuleSource => ({
  kind: "advisory",
  reason,
  declaredBy,
});

/**
 * The contract's own constraints (contract/schemas/schemas.ts) and the methods' rules, classified. A
 * keyword with no row stops the suite (a constraint must never go unclassified).
 */
export const CONTRACT_CONSTRAINT_BASES: readonly BasisRow[] = [
  {
    keyword: "required",
    basis: stated(["§4.1", "§4.2", "§4.3", "§4.4"], "the request tables' required fields"),
  },
  {
    keyword: "type",
    paths: ["metadata.successRedirectURL", "metadata.failRedirectURL"],
    basis: advisory(
      "the redirect URLs appear in a quasi-ecom sample request only: no field table lists them or gives their type, and a target may ignore them",
    ),
  },
  { keyword: "type", basis: stated(["§4"], "the request tables' types: integer, float64, string") },
  {
    keyword: "enum",
    paths: ["trafficType"],
    basis: stated(["§4.1", "§4.3"], "trafficType is one of ftd, td, mixed"),
  },
  {
    keyword: "pattern",
    paths: ["requisites.lifetimeMonth"],
    basis: stated(["§4.3"], "the card expiry month, format MM"),
  },
  {
    keyword: "pattern",
    paths: ["requisites.lifetimeYear"],
    basis: stated(["§4.3"], "the card expiry year, format YY"),
  },
  {
    keyword: "format",
    paths: ["metadata.webHook"],
    basis: necessary(
      "§4.1, §4.3 and §6: the URL that receives the callback requests, so an absolute http(s) URL",
    ),
  },
  {
    keyword: "exclusiveMinimum",
    paths: ["amount"],
    basis: necessary("§4.1, §4.3: a payment amount; one of zero or less moves no money"),
  },
  {
    keyword: "minimum",
    paths: ["amount"],
    basis: declared("the method's minAmount (§8: limits not shown)", ["methods", "otherMethods"]),
  },
  {
    keyword: "maximum",
    paths: ["amount"],
    basis: declared("the method's maxAmount (§8: limits not shown)", ["methods", "otherMethods"]),
  },
  {
    keyword: "required-by-method",
    basis: declared("the method's requires (§4.1, §4.3: 'conditional', set per integration)", [
      "methods",
      "otherMethods",
    ]),
  },
  {
    keyword: "method",
    basis: declared("the methods per flow (§4.5: methodID values are communicated at integration)", [
      "methods",
      "otherMethods",
    ]),
  },
  {
    keyword: "minLength",
    basis: advisory("the API description states no minimum length; the suite probes an empty string", [
      "requestRules",
    ]),
  },
  {
    keyword: "maxLength",
    basis: advisory(
      "the API description states no maximum length; the suite probes common limits: text 255, e-mail 254, phone 32, URL 2048",
      ["requestRules", "maxLengths"],
    ),
  },
  {
    keyword: "pattern",
    basis: advisory(
      "the API description states no format for this field (a card of 12-19 digits and a CVC of 3-4 are the suite's)",
      ["requestRules"],
    ),
  },
  {
    keyword: "format",
    basis: advisory(
      "the API description states no format for this field (the redirect URLs' semantics are not shown)",
      ["requestRules"],
    ),
  },
];

/**
 * The basis of one constraint a negative case breaks: declared where the profile gives it, else
 * the contract's row. Throws for a keyword no row classifies.
 */
export function constraintBasis(
  path: string,
  keyword: string,
  given: { rules: RequestRules; maxLengths?: Readonly<Record<string, number | "none">> | undefined },
): RuleSource {
  if (isDeclarable(keyword)) {
    const value = given.rules[path]?.[keyword];
    if (value !== undefined && value !== "none")
      return declared(`requestRules.${path}.${keyword}`, [`requestRules.${path}.${keyword}`]);
    const max = keyword === "maxLength" ? given.maxLengths?.[path] : undefined;
    if (max !== undefined && max !== "none") return declared(`maxLengths.${path}`, [`maxLengths.${path}`]);
  }
  const row = CONTRACT_CONSTRAINT_BASES.find(
    (r) => r.keyword === keyword && (r.paths === undefined || r.paths.includes(path)),
  );
  if (!row)
    throw new Error(
      `no basis classifies the constraint "${keyword}" of ${path || "(body)"}: add a row to CONTRACT_CONSTRAINT_BASES (contract/generation/request-rules.ts)`,
    );
  return row.basis;
}

/** A length the profile declares unlimited, probed as an advisory: what the target does with a long value. */
export const UNLIMITED_BASIS: RuleSource = advisory(
  `the profile declares no maximum length; ${UNLIMITED_PROBE_LENGTH} characters show what the target does with a long value`,
);

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
