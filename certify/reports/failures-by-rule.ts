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
  /** The first failure, as evidence. */
  first: CheckRecord;
}

export function failuresByRule(checks: readonly CheckRecord[]): RuleFailures[] {
  const byRule = new Map<string, RuleFailures>();
  for (const record of checks) {
    if (!isFailure(record)) continue;
    const key = `${record.check}\u0000${standingOf(record)}`;
    const entry = byRule.get(key);
    if (entry) {
      entry.count += 1;
      if (!entry.endpoints.includes(record.endpoint)) entry.endpoints.push(record.endpoint);
    } else {
      byRule.set(key, {
        check: record.check,
        rule: record.rule,
        required: record.required,
        standing: standingOf(record),
        endpoints: [record.endpoint],
        count: 1,
        first: record,
      });
    }
  }
  return [...byRule.values()].sort(
    (a, b) => Number(b.required) - Number(a.required) || b.count - a.count || a.check.localeCompare(b.check),
  );
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
    entry.count += 1;
    const outcome = outcomeOf(record.detail);
    entry.counted.set(outcome, (entry.counted.get(outcome) ?? 0) + 1);
    byRule.set(key, entry);
  }
  return [...byRule.values()]
    .map(({ counted, ...entry }) => ({
      ...entry,
      outcomes: [...counted.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    }))
    .sort((a, b) => b.count - a.count || a.check.localeCompare(b.check));
}
