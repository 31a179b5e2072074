/**
 * A check is one rule of the contract, small and named: specs run it, reports list it by the
 * same name, and the mutation self-test names it as the one that must catch a fault.
 */

import type { Finding } from "../plain-issues.ts";

export type { Finding } from "../plain-issues.ts";

export type CheckGroup = "envelope" | "fields" | "semantics" | "behaviour" | "callbacks";

export interface CheckOutcome {
  ok: boolean;
  /** What was found: on failure, exactly what is wrong and where (a field path, a value). */
  detail: string;
  /** On failure, where one is wrong: each field with what was expected and what was found. */
  findings?: Finding[];
}

// --- where a rule comes from (issue 11 §4) ------------------------------------------------------
/**
 * Where a rule comes from: a section of the API description (the seed), a convention the target
 * documents (its profile says it), or the suite's own reading where the seed is silent, with the
 * reason. A profile can make any rule informational (`informationalChecks`), a reading above all.
 */
export type RuleSource =
  | { kind: "seed"; sections: string[] }
  | { kind: "convention"; where: string }
  | { kind: "reading"; reason: string };

/** The seed sections a rule's text cites (`§4.2`), as its source; undefined when it cites none. */
export function seedSourceOf(rule: string): RuleSource | undefined {
  const sections = [...new Set(rule.match(/§\d+(?:\.\d+)?/g) ?? [])];
  return sections.length > 0 ? { kind: "seed", sections } : undefined;
}

/** A rule's source in words, for reports. */
export function describeRuleSource(source: RuleSource | undefined): string {
  if (!source) return "not stated";
  if (source.kind === "seed") return `the API description, ${source.sections.join(", ")}`;
  if (source.kind === "convention") return `a documented convention: ${source.where}`;
  return `the suite's reading: ${source.reason}`;
}
// --- end of rule sources --------------------------------------------------------------------------

export interface Check<Input> {
  /** Stable name, e.g. `envelope.request-id-present`; test titles and reports use it. */
  name: string;
  group: CheckGroup;
  /** The rule in one sentence, with the seed's section where there is one. */
  rule: string;
  /** A warning is reported like any check but never makes a target not conformant. */
  warning: boolean;
  /** Where the rule comes from: given, or the seed sections its text cites. */
  source: RuleSource | undefined;
  run(input: Input): CheckOutcome;
}

export const pass = (detail: string): CheckOutcome => ({ ok: true, detail });
export const fail = (detail: string, findings?: Finding[]): CheckOutcome =>
  findings && findings.length > 0 ? { ok: false, detail, findings } : { ok: false, detail };

/** Every check ever defined, by name, so reports and profiles can name them and be validated. */
export const CHECK_REGISTRY = new Map<string, Check<never>>();

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
    source: options.source ?? seedSourceOf(rule),
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
 * then a reason the caller knows (a manual trigger, say), then the check's own severity.
 */
export function requirementOf(
  check: Pick<Check<never>, "name" | "warning">,
  informationalChecks: Readonly<Record<string, string>>,
  callerReason?: string,
): Requirement {
  const reason =
    informationalChecks[check.name] ?? callerReason ?? (check.warning ? WARNING_REASON : undefined);
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
