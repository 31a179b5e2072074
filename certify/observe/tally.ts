/**
 * The results of one side's checks over a session, held in a size that does not grow with the
 * session: per check and endpoint, how many passed, failed and could not be evaluated; every
 * failure and unevaluated result with its evidence up to {@link LISTED_PER_CHECK}, then a count of
 * the rest; and the passes as one record that counts them, with the first as its example.
 */
import type { CheckRecord } from "../engine/run-model.ts";

/** Failures (and unevaluated results) of one check on one endpoint listed with their evidence. */
export const LISTED_PER_CHECK = 20;

interface CheckGroup {
  /** The results listed, in the order they were judged: failures and unevaluated, up to the cap. */
  listed: CheckRecord[];
  /** The first pass, the example its count is shown with. */
  firstPass?: CheckRecord;
  passes: number;
  passMs: number;
  /** Results past the cap, by status: counted, never dropped silently. */
  unlisted: Map<CheckRecord["status"], { count: number; ms: number; template: CheckRecord }>;
  listedByStatus: Map<CheckRecord["status"], number>;
}

export class CheckTally {
  private readonly groups = new Map<string, CheckGroup>();
  /** Every check that ran at least once, in the order first run. */
  readonly ran = new Set<string>();
  /** Required checks that failed, in the order first failed. */
  readonly failing = new Set<string>();
  /** Failed results of required checks, all of them, listed or not. */
  failedRequired = 0;

  add(record: CheckRecord): void {
    this.ran.add(record.check);
    if (record.status === "failed" && record.required) {
      this.failedRequired += 1;
      this.failing.add(record.check);
    }
    const key = `${record.endpoint}\n${record.check}`;
    let group = this.groups.get(key);
    if (group === undefined) {
      group = { listed: [], passes: 0, passMs: 0, unlisted: new Map(), listedByStatus: new Map() };
      this.groups.set(key, group);
    }
    if (record.status === "passed") {
      group.passes += 1;
      group.passMs += record.durationMs;
      group.firstPass ??= record;
      return;
    }
    const listed = group.listedByStatus.get(record.status) ?? 0;
    if (listed < LISTED_PER_CHECK) {
      group.listed.push(record);
      group.listedByStatus.set(record.status, listed + 1);
      return;
    }
    const rest = group.unlisted.get(record.status) ?? { count: 0, ms: 0, template: record };
    rest.count += 1;
    rest.ms += record.durationMs;
    group.unlisted.set(record.status, rest);
  }

  /** Records held: what the reports are given (a test's measure that the tally stays bounded). */
  get size(): number {
    let n = 0;
    for (const group of this.groups.values()) n += group.listed.length + (group.firstPass ? 1 : 0);
    return n;
  }

  /**
   * The records for the reports, per check and endpoint in the order first judged: the listed
   * failures, one record counting those past the cap, one counting the passes.
   */
  records(): CheckRecord[] {
    const out: CheckRecord[] = [];
    for (const group of this.groups.values()) {
      out.push(...group.listed);
      for (const [status, rest] of group.unlisted) {
        const { template } = rest;
        out.push({
          endpoint: template.endpoint,
          check: template.check,
          case: `${rest.count} more ${status}, not listed`,
          rule: template.rule,
          status,
          required: template.required,
          ...(template.reason !== undefined ? { reason: template.reason } : {}),
          detail: `${rest.count} more result(s) ${status} beyond the first ${LISTED_PER_CHECK} listed with their evidence`,
          durationMs: rest.ms,
          exchanges: [],
          source: template.source,
          ...(template.ruleSource ? { ruleSource: template.ruleSource } : {}),
          count: rest.count,
        });
      }
      const first = group.firstPass;
      if (first === undefined) continue;
      if (group.passes === 1) {
        out.push(first);
        continue;
      }
      out.push({
        ...first,
        case: `${group.passes} passed`,
        detail: `passed ${group.passes} times; the first${first.case ? ` (${first.case})` : ""}: ${first.detail}`,
        durationMs: group.passMs,
        count: group.passes,
      });
    }
    return out;
  }
}
