/**
 * A check is one rule of the contract, small and named: specs run it, reports list it by the
 * same name, and the mutation self-test names it as the one that must catch a fault.
 */

import type { RecordedExchange } from "../client/index.ts";
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

/**
 * What one verdict of a check judges, and so who runs it: `exchange` (one answer) and `order` (an
 * order's course: its requests, answers and callbacks) are run by the specs, which make those
 * requests; `run` is run by the engine after the specs, over every exchange of the run at once
 * (its `overRun`), with no spec naming it. An `exchange` check with an `overExchange` is run by
 * the engine too, on every answer of the run, so that a new rule of one answer needs no spec.
 */
export type CheckScope = "exchange" | "order" | "run";

export const CHECK_SCOPES: readonly CheckScope[] = ["exchange", "order", "run"];

/** What the engine hands a run-scope check: every exchange the run recorded, and the profile's part checks read. */
export interface RunEvidence {
  exchanges: readonly RecordedExchange[];
  profile: RequirementContext & { limits: { maxBodyBytes: number } };
}

/** One record a run-scope check makes of a run; the engine adds the name, rule, basis and masking. */
export interface RunJudgement {
  outcome: CheckOutcome;
  /** The endpoint (operation) it is about; default "(all endpoints)". */
  endpoint?: string;
  case?: string;
  /** Ids of the exchanges it points at; default none. */
  exchanges?: string[];
  /** The exchange whose answer it judged. */
  subject?: string;
  /** Nothing to judge (a run too small): the record is skipped with this reason. */
  skipped?: string;
  /** The failure it cannot be judged without: not evaluated. */
  blockedBy?: { check: string; reason: string };
  /** Why this record cannot fail the run, over the check's own requirement (answers to waived probes). */
  notRequired?: string;
}

export interface Check<Input> {
  /** Stable name, e.g. `envelope.request-id-present`; test titles and reports use it. */
  name: string;
  group: CheckGroup;
  /** What one verdict judges, and who runs it (see CheckScope). */
  scope: CheckScope;
  /** The rule in one sentence, with the API description's section where there is one. */
  rule: string;
  /** A warning is reported like any check but never makes a target not conformant. */
  warning: boolean;
  /** The rule's basis: given, or the API description's sections its text cites. */
  source: RuleSource;
  run(input: Input): CheckOutcome;
  /** A run-scope check's records of a whole run, which the engine asks for after the specs. */
  overRun?: (run: RunEvidence) => RunJudgement[];
  /** An engine-run exchange check's record of one answer; undefined when the answer is not its kind. */
  overExchange?: (exchange: RecordedExchange, profile: RunEvidence["profile"]) => RunJudgement | undefined;
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

export interface CheckOptions {
  warning?: boolean;
  source?: RuleSource;
  /** Default: `run` with `overRun`, `order` for the callbacks group, else `exchange`. */
  scope?: CheckScope;
  /** For a run-scope check: its records of a whole run. */
  overRun?: (run: RunEvidence) => RunJudgement[];
  /**
   * For an exchange check the engine runs: its record of one answer of the run (undefined: not an
   * answer it judges). No spec names such a check.
   */
  overExchange?: (exchange: RecordedExchange, profile: RunEvidence["profile"]) => RunJudgement | undefined;
}

/**
 * Registers a check: its name, group, rule, basis, scope and function. Reports, --list-checks,
 * docs/checks.md and the engine's run-wide pass all read the registry, so this is the one place
 * a check is listed.
 */
export function defineCheck<Input>(
  name: string,
  group: CheckGroup,
  rule: string,
  run: (input: Input) => CheckOutcome,
  options: CheckOptions = {},
): Check<Input> {
  if (!/^[a-z]+\.[a-z0-9-]+$/.test(name))
    throw new Error(`check name "${name}" must look like group.kebab-name`);
  if (!name.startsWith(`${group}.`)) throw new Error(`check "${name}" must start with its group "${group}."`);
  if (CHECK_REGISTRY.has(name)) throw new Error(`check "${name}" is defined twice`);
  const scope = options.scope ?? (options.overRun ? "run" : group === "callbacks" ? "order" : "exchange");
  // The engine runs a run-scope check through its overRun, and nothing else runs it.
  if ((scope === "run") !== (options.overRun !== undefined))
    throw new Error(
      `check "${name}": a run-scope check needs overRun (its records of a whole run), and only a run-scope check has one`,
    );
  if (options.overExchange !== undefined && scope !== "exchange")
    throw new Error(`check "${name}": only an exchange check has overExchange (its record of one answer)`);
  const check: Check<Input> = {
    name,
    group,
    scope,
    rule,
    warning: options.warning ?? false,
    source: options.source ?? statedSourceOf(rule) ?? missingBasis(name),
    run,
    ...(options.overRun ? { overRun: options.overRun } : {}),
    ...(options.overExchange ? { overExchange: options.overExchange } : {}),
  };
  CHECK_REGISTRY.set(name, check as Check<never>);
  return check;
}

/** An exchange as a record names it: `POST /path (spec-3)`. */
export const exchangeWhere = (exchange: RecordedExchange): string =>
  `${exchange.request.method} ${new URL(exchange.request.url).pathname} (${exchange.id})`;

/** The checks the engine runs after the specs: every run-scope one, and the exchange ones with `overExchange`. */
export function engineRunChecks(): Check<never>[] {
  return [...CHECK_REGISTRY.values()].filter((check) => check.overRun ?? check.overExchange);
}

/** The registered checks of one scope, in the order they were defined. */
export function checksOfScope(scope: CheckScope): Check<never>[] {
  return [...CHECK_REGISTRY.values()].filter((check) => check.scope === scope);
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
