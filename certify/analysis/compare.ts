/**
 * Run-to-run comparison of certification reports (the JSON each run writes): what regressed
 * (passed, now fails), what was fixed, which checks are new or gone, what else changed, and
 * which checks flip between passing and failing across a series of runs (flaky). A check is the
 * same check in two runs when its endpoint, name and case are the same.
 */
import { readFile } from "node:fs/promises";
import * as z from "zod";
import { describeZodIssues } from "../../contract/index.ts";

/** A check's result as a comparison sees it: an informational failure is not a failure. */
/** "not evaluated": the check could not judge, because a check it depends on failed first. */
export type Outcome = "passed" | "failed" | "warned" | "not evaluated" | "skipped";

/** The part of a JSON report a comparison reads; anything else in it is ignored. */
const ComparableReport = z.object({
  runId: z.string(),
  startedAt: z.string(),
  verdict: z.string(),
  target: z.object({ baseUrl: z.string() }),
  checks: z.array(
    z.object({
      endpoint: z.string(),
      check: z.string(),
      case: z.string().optional(),
      status: z.enum(["passed", "failed", "skipped", "not evaluated"]),
      required: z.boolean(),
      detail: z.string(),
      reason: z.string().optional(),
    }),
  ),
});
type ComparableReport = z.infer<typeof ComparableReport>;

export interface RunRef {
  runId: string;
  startedAt: string;
  verdict: string;
  baseUrl: string;
  /** Where the report was read from. */
  source: string;
}

export interface CheckResult {
  outcome: Outcome;
  detail: string;
}

export interface RunResults {
  run: RunRef;
  /** By check key (see checkKey). */
  results: Map<string, CheckResult>;
}

export interface CheckChange {
  key: string;
  before?: CheckResult;
  after?: CheckResult;
}

export interface FlakyCheck {
  key: string;
  /** Outcomes in run order; undefined where the check did not run. */
  outcomes: (Outcome | undefined)[];
  /** Changes between passed and failed from one run to the next. */
  flips: number;
}

export interface RunComparison {
  previous: RunRef;
  current: RunRef;
  /** Every run looked at for flaky checks, oldest first. */
  runs: RunRef[];
  /** Passed before, failed now. */
  regressions: CheckChange[];
  /** Failed before, passed now. */
  fixes: CheckChange[];
  /** In the current run only. */
  added: CheckChange[];
  /** In the previous run only. */
  removed: CheckChange[];
  /** Any other change of outcome (passed → skipped, skipped → failed, failed → warned, ...). */
  changed: CheckChange[];
  /** Checks that went from passed to failed and back (or the other way) across the runs. */
  flaky: FlakyCheck[];
  unchangedCount: number;
}

export class ReportReadError extends Error {
  override name = "ReportReadError";
}

/**
 * The seed a generated probe's case names (`method 101, 6 generated orders (seed 42)`) is left out:
 * runs draw a fresh seed each, and a nightly comparison must still see the same check.
 */
const SEED_IN_CASE = / \(seed \d+\)/g;

export function checkKey(check: { endpoint: string; check: string; case?: string }): string {
  const caseName = check.case?.replace(SEED_IN_CASE, "");
  return [check.endpoint, check.check, ...(caseName ? [caseName] : [])].join(" › ");
}

function outcomeOf(check: ComparableReport["checks"][number]): Outcome {
  if (check.status === "failed") return check.required ? "failed" : "warned";
  return check.status;
}

const OUTCOME_RANK: Record<Outcome, number> = {
  failed: 4,
  warned: 3,
  "not evaluated": 2,
  passed: 1,
  skipped: 0,
};

/** A report's results by check; a check run on several occasions keeps its worst outcome. */
export function resultsOf(report: ComparableReport, source: string): RunResults {
  const results = new Map<string, CheckResult>();
  for (const check of report.checks) {
    const key = checkKey(check);
    const result = {
      outcome: outcomeOf(check),
      detail: check.status === "skipped" ? (check.reason ?? check.detail) : check.detail,
    };
    const known = results.get(key);
    if (!known || OUTCOME_RANK[result.outcome] > OUTCOME_RANK[known.outcome]) results.set(key, result);
  }
  return {
    run: {
      runId: report.runId,
      startedAt: report.startedAt,
      verdict: report.verdict,
      baseUrl: report.target.baseUrl,
      source,
    },
    results,
  };
}

/** Reads and checks one JSON report; the error names the file and what is wrong with it. */
export async function readRunResults(path: string): Promise<RunResults> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReportReadError(`${path}: cannot be read (${code ?? String(error)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ReportReadError(`${path}: is not JSON (${(error as Error).message})`);
  }
  const parsed = ComparableReport.safeParse(json);
  if (!parsed.success) {
    const problems = describeZodIssues(parsed.error, "(report)");
    throw new ReportReadError(
      `${path}: is not an h2h-certify JSON report (h2h-certify.json): ${problems.slice(0, 3).join("; ")}${
        problems.length > 3 ? `; and ${problems.length - 3} more` : ""
      }`,
    );
  }
  return resultsOf(parsed.data, path);
}

function flipsOf(outcomes: (Outcome | undefined)[]): number {
  const judged = outcomes.filter((o): o is "passed" | "failed" => o === "passed" || o === "failed");
  let flips = 0;
  for (let i = 1; i < judged.length; i++) if (judged[i] !== judged[i - 1]) flips += 1;
  return flips;
}

/** Puts runs in the order they started. */
export function byStart(runs: readonly RunResults[]): RunResults[] {
  return [...runs].sort((a, b) => a.run.startedAt.localeCompare(b.run.startedAt));
}

/**
 * Compares runs given oldest first: the last one is the current run, the one before it the
 * previous. At least two runs.
 */
export function compareRuns(runs: readonly RunResults[]): RunComparison {
  if (runs.length < 2) throw new Error("a comparison needs at least two runs");
  const previous = runs[runs.length - 2] as RunResults;
  const current = runs[runs.length - 1] as RunResults;
  const comparison: RunComparison = {
    previous: previous.run,
    current: current.run,
    runs: runs.map((r) => r.run),
    regressions: [],
    fixes: [],
    added: [],
    removed: [],
    changed: [],
    flaky: [],
    unchangedCount: 0,
  };
  for (const [key, after] of current.results) {
    const before = previous.results.get(key);
    if (!before) comparison.added.push({ key, after });
    else if (before.outcome === after.outcome) comparison.unchangedCount += 1;
    else if (before.outcome === "passed" && after.outcome === "failed")
      comparison.regressions.push({ key, before, after });
    else if (before.outcome === "failed" && after.outcome === "passed")
      comparison.fixes.push({ key, before, after });
    else comparison.changed.push({ key, before, after });
  }
  for (const [key, before] of previous.results) {
    if (!current.results.has(key)) comparison.removed.push({ key, before });
  }
  const keys = new Set(runs.flatMap((r) => [...r.results.keys()]));
  for (const key of keys) {
    const outcomes = runs.map((r) => r.results.get(key)?.outcome);
    const flips = flipsOf(outcomes);
    // One change is a regression or a fix; flaky is back and forth.
    if (flips >= 2) comparison.flaky.push({ key, outcomes, flips });
  }
  comparison.flaky.sort((a, b) => b.flips - a.flips || a.key.localeCompare(b.key));
  return comparison;
}

function describeRun(run: RunRef): string {
  return `${run.runId} (${run.startedAt}, ${run.verdict}, ${run.baseUrl})`;
}

function outcomeText(result: CheckResult | undefined): string {
  return result === undefined ? "absent" : result.outcome;
}

function firstLine(text: string, max = 240): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The comparison as plain text lines, for a console. */
export function renderComparisonText(comparison: RunComparison): string[] {
  const lines = [
    `previous: ${describeRun(comparison.previous)}`,
    `current:  ${describeRun(comparison.current)}`,
  ];
  const section = (title: string, changes: CheckChange[], line: (c: CheckChange) => string) => {
    lines.push(`${title}: ${changes.length}`);
    for (const change of changes) lines.push(`  ${line(change)}`);
  };
  section(
    "regressions (passed → failed)",
    comparison.regressions,
    (c) => `✗ ${c.key}: ${firstLine(c.after?.detail ?? "")}`,
  );
  section("fixes (failed → passed)", comparison.fixes, (c) => `✓ ${c.key}`);
  section("new checks", comparison.added, (c) => `+ ${c.key} (${outcomeText(c.after)})`);
  section("removed checks", comparison.removed, (c) => `- ${c.key} (was ${outcomeText(c.before)})`);
  section(
    "other changes",
    comparison.changed,
    (c) => `~ ${c.key}: ${outcomeText(c.before)} → ${outcomeText(c.after)}`,
  );
  lines.push(
    `flaky across the last ${comparison.runs.length} runs: ${comparison.runs.length < 3 ? "needs 3 runs or more" : comparison.flaky.length}`,
  );
  for (const flaky of comparison.flaky) {
    lines.push(
      `  ? ${flaky.key}: ${flaky.outcomes.map((o) => o ?? "–").join(", ")} (${flaky.flips} changes)`,
    );
  }
  lines.push(
    `${comparison.regressions.length} regression(s), ${comparison.fixes.length} fix(es), ${comparison.added.length} new, ` +
      `${comparison.removed.length} removed, ${comparison.changed.length} other change(s), ${comparison.flaky.length} flaky, ` +
      `${comparison.unchangedCount} unchanged`,
  );
  return lines;
}

function markdownCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** The comparison as Markdown, e.g. for a CI job summary. */
export function renderComparisonMarkdown(comparison: RunComparison): string {
  const out = [
    "## h2h-certify: changes since the previous run",
    "",
    `Previous: \`${comparison.previous.runId}\` (${comparison.previous.startedAt}, ${comparison.previous.verdict}) · ` +
      `current: \`${comparison.current.runId}\` (${comparison.current.startedAt}, ${comparison.current.verdict})`,
    "",
    `**${comparison.regressions.length} regression(s)**, ${comparison.fixes.length} fix(es), ${comparison.added.length} new, ` +
      `${comparison.removed.length} removed, ${comparison.changed.length} other change(s), ${comparison.flaky.length} flaky ` +
      `(across ${comparison.runs.length} runs), ${comparison.unchangedCount} unchanged.`,
    "",
  ];
  const table = (title: string, changes: CheckChange[]) => {
    if (changes.length === 0) return;
    out.push(`### ${title}`, "", "| check | before | now | finding |", "|---|---|---|---|");
    for (const c of changes)
      out.push(
        `| ${markdownCell(c.key)} | ${outcomeText(c.before)} | ${outcomeText(c.after)} | ${markdownCell(firstLine(c.after?.detail ?? c.before?.detail ?? ""))} |`,
      );
    out.push("");
  };
  table("Regressions", comparison.regressions);
  table("Fixes", comparison.fixes);
  table("New checks", comparison.added);
  table("Removed checks", comparison.removed);
  table("Other changes", comparison.changed);
  if (comparison.flaky.length > 0) {
    out.push("### Flaky", "", "| check | outcomes, oldest first | changes |", "|---|---|---|");
    for (const f of comparison.flaky)
      out.push(`| ${markdownCell(f.key)} | ${f.outcomes.map((o) => o ?? "–").join(", ")} | ${f.flips} |`);
    out.push("");
  }
  return `${out.join("\n")}\n`;
}
