/**
 * A check is one rule of the contract, small and named: specs run it, reports list it by the
 * same name, and the mutation self-test names it as the one that must catch a fault.
 */

import type { Finding } from "../schemas/index.ts";
import { NORMALISATIONS, type Normalisation } from "../schemas/index.ts";

export type { Finding } from "../schemas/index.ts";

export type CheckGroup =
  | "envelope"
  | "fields"
  | "semantics"
  | "behaviour"
  | "callbacks"
  | "receiver"
  | "merchant";

export interface CheckOutcome {
  ok: boolean;
  /** What was found: on failure, exactly what is wrong and where (a field path, a value). */
  detail: string;
  /** On failure, where one is wrong: each field with what was expected and what was found. */
  findings?: Finding[];
  /**
   * Set when the check could not judge (a rate-limited answer): `ok` is false so that nothing
   * reads it as a pass, and verify() records it "not evaluated", waiting on this cause.
   */
  notEvaluated?: { check: string; signature: string; reason: string };
}

// --- where a rule comes from -------------------------------------------------------------------
/**
 * The basis of a rule, and so whether it can fail a run:
 * - `stated`: the API description says it (its sections, `§4.2`);
 * - `declared`: the target's profile says it (the profile keys);
 * - `necessary`: it follows from the description with no number or format added (the reason);
 * - `advisory`: the suite adds a limit, format or number the description does not state. It is
 *   reported with what the target did and never fails a run, unless the profile declares it
 *   through one of `declaredBy` (profile key paths), which makes it `declared`.
 */
export type RuleKind = "stated" | "declared" | "necessary" | "advisory";

export const RULE_KINDS: readonly RuleKind[] = ["stated", "declared", "necessary", "advisory"];

export type RuleSource =
  | { kind: "stated"; sections: string[]; what?: string }
  | { kind: "declared"; where: string; keys: string[] }
  | { kind: "necessary"; reason: string }
  | { kind: "advisory"; reason: string; declaredBy: string[] };

/** The API description's sections a rule's text cites (`§4.2`), as its source; undefined when it cites none. */
export function statedSourceOf(rule: string): RuleSource | undefined {
  const sections = [...new Set(rule.match(/§\d+(?:\.\d+)?/g) ?? [])];
  return sections.length > 0 ? { kind: "stated", sections } : undefined;
}

/** A rule's source in words, for reports and --list-checks. */
export function describeRuleSource(source: RuleSource | undefined): string {
  if (!source) return "no basis given";
  switch (source.kind) {
    case "stated":
      return `stated: the API description, ${source.sections.join(", ")}${source.what ? ` (${source.what})` : ""}`;
    case "declared":
      return `declared: the target's profile, ${source.where}`;
    case "necessary":
      return `necessary: ${source.reason}`;
    case "advisory":
      return `advisory: ${source.reason}${source.declaredBy.length > 0 ? `; a profile declares it with ${source.declaredBy.join(" or ")}` : ""}`;
  }
}

/** What decides whether a rule is required for one target: what its profile declares and waives. */
export interface RequirementContext {
  /** Checks the profile waives, each with its reason. */
  informationalChecks: Readonly<Record<string, string>>;
  /** Dotted key paths the profile's file gives (not defaults); see contract/profile/profile.ts. */
  declaredKeys?: readonly string[] | undefined;
  /** The input normalisations the target documents it does not apply (the profile's strictInput). */
  strictInput?: readonly string[] | undefined;
}

/**
 * The basis of an accepted probe whose input a common, harmless normalisation makes valid (a key
 * with a no-break space a trimming target drops): advisory, unless the profile lists that
 * normalisation in `strictInput`. Undefined for any other answer, or a probe no normalisation
 * explains: then the check's own basis stands.
 */
export function acceptanceExplained(
  httpStatus: number,
  normalisation: Normalisation | undefined,
  context: Pick<RequirementContext, "strictInput">,
): RuleSource | undefined {
  if (normalisation === undefined || httpStatus < 200 || httpStatus >= 300) return undefined;
  if (context.strictInput?.includes(normalisation)) return undefined;
  return {
    kind: "advisory",
    reason: `accepted, which ${NORMALISATIONS[normalisation]} explains: a common, harmless normalisation (the valid value is still needed)`,
    declaredBy: [`strictInput (with "${normalisation}")`],
  };
}

/** Whether a profile's file gives `key` (a dotted path), itself or a key below it. */
export function profileDeclares(context: RequirementContext, key: string): boolean {
  return (context.declaredKeys ?? []).some((given) => given === key || given.startsWith(`${key}.`));
}

/**
 * A source as it stands for one target: an advisory rule the profile declares is `declared`, and
 * a rule that rests on profile keys the profile's file does not give (only their defaults) is the
 * suite's guess, so `advisory`. Without `declaredKeys` (a profile not read from a file) the
 * source stands as written.
 */
export function effectiveSource(source: RuleSource, context: RequirementContext): RuleSource {
  if (source.kind === "declared") {
    if (context.declaredKeys === undefined || source.keys.some((key) => profileDeclares(context, key)))
      return source;
    return {
      kind: "advisory",
      reason: `the profile does not declare ${source.keys.join(" or ")} (${source.where}); the suite's default stands in`,
      declaredBy: source.keys,
    };
  }
  if (source.kind !== "advisory") return source;
  const keys = source.declaredBy.filter((key) => profileDeclares(context, key));
  return keys.length > 0 ? { kind: "declared", where: keys.join(", "), keys } : source;
}
// --- end of rule sources --------------------------------------------------------------------------

export interface Check<Input> {
  /** Stable name, e.g. `envelope.request-id-present`; test titles and reports use it. */
  name: string;
  group: CheckGroup;
  /** The rule in one sentence, with the API description's section where there is one. */
  rule: string;
  /** A warning is reported like any check but never makes a target not conformant. */
  warning: boolean;
  /** The rule's basis: given, or the API description's sections its text cites. */
  source: RuleSource;
  run(input: Input): CheckOutcome;
}

export const pass = (detail: string): CheckOutcome => ({ ok: true, detail });
export const fail = (detail: string, findings?: Finding[]): CheckOutcome =>
  findings && findings.length > 0 ? { ok: false, detail, findings } : { ok: false, detail };

/** The check could not judge: see CheckOutcome.notEvaluated. */
export const notEvaluated = (cause: NonNullable<CheckOutcome["notEvaluated"]>): CheckOutcome => ({
  ok: false,
  detail: `not evaluated, because ${cause.reason}`,
  notEvaluated: cause,
});

/** Every check ever defined, by name, so reports and profiles can name them and be validated. */
export const CHECK_REGISTRY = new Map<string, Check<never>>();

function missingBasis(name: string): never {
  throw new Error(
    `check "${name}" has no basis: cite the API description's section in its rule, or give a source`,
  );
}

export function defineCheck<Input>(
  name: string,
  group: CheckGroup,
  rule: string,
  run: (input: Input) => CheckOutcome,
  options: { warning?: boolean; source?: RuleSource } = {},
): Check<Input> {
  if (!/^[a-z]+\.[a-z0-9-]+$/.test(name))
    throw new Error(`check name "${name}" must look like group.kebab-name`);
  if (!name.startsWith(`${group}.`)) throw new Error(`check "${name}" must start with its group "${group}."`);
  if (CHECK_REGISTRY.has(name)) throw new Error(`check "${name}" is defined twice`);
  const check: Check<Input> = {
    name,
    group,
    rule,
    warning: options.warning ?? false,
    source: options.source ?? statedSourceOf(rule) ?? missingBasis(name),
    run,
  };
  CHECK_REGISTRY.set(name, check as Check<never>);
  return check;
}

/** Whether a check's failure makes the target not conformant; when not, why. */
export type Requirement = { required: true } | { required: false; reason: string };

export const WARNING_REASON = "a warning: reported, never required";

/**
 * The one place a check is judged required or informational, for the specs, the run-wide checks
 * and the reporter alike. First the target's profile (`informationalChecks`, with its reason),
 * then a reason the caller knows (a manual trigger, an advisory constraint), then the check's own
 * severity, then its basis: an advisory rule the profile does not declare is never required.
 */
export function requirementOf(
  check: Pick<Check<never>, "name" | "warning"> & { source?: RuleSource | undefined },
  context: RequirementContext,
  callerReason?: string,
): Requirement {
  const source = check.source ? effectiveSource(check.source, context) : undefined;
  const reason =
    context.informationalChecks[check.name] ??
    callerReason ??
    (check.warning ? WARNING_REASON : undefined) ??
    (source?.kind === "advisory" ? describeRuleSource(source) : undefined);
  return reason === undefined ? { required: true } : { required: false, reason };
}

/** A value as it reads in a detail line: JSON, shortened. */
export function show(value: unknown): string {
  if (value === undefined) return "absent";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
