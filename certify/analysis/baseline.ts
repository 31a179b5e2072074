/**
 * H2H_BASELINE_REPORT: a previous run's JSON report. Read and checked before the run starts;
 * after the run, certify's console and HTML report show what changed since that run.
 */
import { SettingsError } from "../../run-setup/index.ts";
import type { RunReport } from "../engine/run-model.ts";
import {
  type CheckChange,
  compareRuns,
  ReportReadError,
  type RunComparison,
  type RunResults,
  readRunResults,
  resultsOf,
} from "./compare.ts";

/** The baseline run, or undefined when H2H_BASELINE_REPORT (its resolved path) is not set. */
export async function loadBaseline(path: string | undefined): Promise<RunResults | undefined> {
  if (path === undefined) return undefined;
  try {
    return await readRunResults(path);
  } catch (error) {
    if (error instanceof ReportReadError) throw new SettingsError(`H2H_BASELINE_REPORT: ${error.message}`);
    throw error;
  }
}

export function compareWithBaseline(baseline: RunResults, report: RunReport): RunComparison {
  return compareRuns([baseline, resultsOf(report, "(this run)")]);
}

const LISTED = 15;

/** A few console lines: the counts, then the regressions and fixes by name. */
export function baselineLines(comparison: RunComparison): string[] {
  const { previous } = comparison;
  const lines = [
    `since baseline ${previous.runId} (${previous.startedAt}, ${previous.verdict}): ` +
      `${comparison.regressions.length} regression(s), ${comparison.fixes.length} fix(es), ` +
      `${comparison.added.length} new, ${comparison.removed.length} removed, ${comparison.changed.length} other change(s)`,
  ];
  const list = (mark: string, changes: CheckChange[]) => {
    for (const change of changes.slice(0, LISTED)) lines.push(`  ${mark} ${change.key}`);
    if (changes.length > LISTED) lines.push(`  … and ${changes.length - LISTED} more (see the HTML report)`);
  };
  list("regressed:", comparison.regressions);
  list("fixed:", comparison.fixes);
  return lines;
}
