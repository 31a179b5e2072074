/**
 * The failures of a run grouped by rule: what the HTML report opens with and the console ends
 * with. One line per rule: its check, the endpoints it failed on, how often, and the first
 * failure as evidence. Only required checks fail; what the advisories found is grouped apart,
 * by what the target did.
 */
import { type CheckRecord, isAdvisory, isFailure } from "../engine/run-model.ts";

/**
 * How a result counts: a required check's fails the run; an advisory one (a rule the suite adds
 * and the profile does not declare) and an informational one (the profile waives it) never do.
 */
export type Standing = "required" | "advisory" | "informational";

export function standingOf(record: Pick<CheckRecord, "required" | "ruleSource">): Standing {
  if (record.required) return "required";
  return record.ruleSource?.kind === "advisory" ? "advisory" : "informational";
}

export interface RuleFailures {
  check: string;
  rule: string;
  /** Whether a failure of this rule makes the target not conformant. */
  required: boolean;
  standing: Standing;
  endpoints: string[];
  count: number;
  /** Of `count`, the failures an earlier failure of their order explains (`followsFrom`). */
  followOns: number;
  /** The rules those follow from. */
  causes: string[];
  /** The first failure, as evidence: a root cause where the rule has one. */
  first: CheckRecord;
}

export function failuresByRule(checks: readonly CheckRecord[]): RuleFailures[] {
  const byRule = new Map<string, RuleFailures>();
  for (const record of checks) {
    if (!isFailure(record)) continue;
    const key = `${record.check}\u0000${standingOf(record)}`;
    const entry =
      byRule.get(key) ??
      ({
        check: record.check,
        rule: record.rule,
        required: record.required,
        standing: standingOf(record),
        endpoints: [],
        count: 0,
        followOns: 0,
        causes: [],
        first: record,
      } satisfies RuleFailures);
    // A record may stand for several results alike (observe's failures past its list).
    entry.count += record.count ?? 1;
    if (!entry.endpoints.includes(record.endpoint)) entry.endpoints.push(record.endpoint);
    if (record.followsFrom) {
      entry.followOns += 1;
      if (!entry.causes.includes(record.followsFrom.check)) entry.causes.push(record.followsFrom.check);
    } else if (entry.first.followsFrom) entry.first = record;
    byRule.set(key, entry);
  }
  // Rules with a root cause among their failures first, by how many roots, each followed by the
  // rules whose every failure follows from it: shown under their cause, not beside it.
  const roots = (r: RuleFailures) => r.count - r.followOns;
  const sorted = [...byRule.values()].sort(
    (a, b) => roots(b) - roots(a) || b.count - a.count || a.check.localeCompare(b.check),
  );
  const followOnly = sorted.filter((r) => roots(r) === 0);
  const out: RuleFailures[] = [];
  for (const rule of sorted.filter((r) => roots(r) > 0)) {
    out.push(rule, ...followOnly.filter((f) => f.causes[0] === rule.check && !out.includes(f)));
  }
  return [...out, ...followOnly.filter((f) => !out.includes(f))];
}

/** Where a check record sits, as a reader finds it: `endpoint › check › case`. */
export function placeOf(record: CheckRecord): string {
  return `${record.endpoint} › ${record.check}${record.case ? ` › ${record.case}` : ""}`;
}

export interface RuleAdvisories {
  check: string;
  rule: string;
  standing: Standing;
  count: number;
  /** What the target did, in the words of the findings ("accepted", "refused, but HTTP 400 ..."), each counted. */
  outcomes: [string, number][];
  /** The first one, as evidence. */
  first: CheckRecord;
}

/** What the target did with a probe: a finding's words before its first colon, shortened. */
export function outcomeOf(detail: string): string {
  const head = detail.split(": ")[0] ?? detail;
  return head.length > 100 ? `${head.slice(0, 97)}...` : head;
}

/** The advisories (and informational results) not met, per rule, with what the target did, counted. */
export function advisoriesByRule(checks: readonly CheckRecord[]): RuleAdvisories[] {
  const byRule = new Map<string, RuleAdvisories & { counted: Map<string, number> }>();
  for (const record of checks) {
    if (!isAdvisory(record)) continue;
    const key = `${record.check}\u0000${standingOf(record)}`;
    const entry =
      byRule.get(key) ??
      ({
        check: record.check,
        rule: record.rule,
        standing: standingOf(record),
        count: 0,
        outcomes: [],
        first: record,
        counted: new Map(),
      } satisfies RuleAdvisories & { counted: Map<string, number> });
    entry.count += record.count ?? 1;
    const outcome = outcomeOf(record.detail);
    entry.counted.set(outcome, (entry.counted.get(outcome) ?? 0) + (record.count ?? 1));
    byRule.set(key, entry);
  }
  return [...byRule.values()]
    .map(({ counted, ...entry }) => ({
      ...entry,
      outcomes: [...counted.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    }))
    .sort((a, b) => b.count - a.count || a.check.localeCompare(b.check));
}
