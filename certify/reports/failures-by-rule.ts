/**
 * The failures of a run grouped by rule: what the HTML report opens with and the console ends
 * with. One line per rule: its check, the endpoints it failed on, how often, and the first
 * failure as evidence. Required rules first, then by how often they failed.
 */
import type { CheckRecord } from "../engine/run-model.ts";

/**
 * How a result counts: a required check's fails the run; an advisory one (a rule the suite adds
 * and the profile does not declare) and an informational one (the profile waives it) never do.
 */
export type Standing = "required" | "advisory" | "informational";

export function standingOf(record: Pick<CheckRecord, "required" | "ruleSource">): Standing {
  if (record.required) return "required";
  return record.ruleSource?.kind === "advisory" ? "advisory" : "informational";
}

/** " (advisory)" or " (informational)" after a result that cannot fail the run; "" otherwise. */
export function standingNote(record: Pick<CheckRecord, "required" | "ruleSource">): string {
  const standing = standingOf(record);
  return standing === "required" ? "" : ` (${standing})`;
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
    if (record.status !== "failed") continue;
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
