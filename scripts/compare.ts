/**
 * `npm run compare -- previous.json current.json [more.json…]`: compares certification runs by
 * their JSON reports. Exit code: 0 no regression, 1 a check that passed now fails, 2 the current
 * run could not judge its target (so no comparison can pass it), 64 bad usage or a file that is
 * not a report.
 */
import { parseArgs } from "node:util";
import {
  byStart,
  compareRuns,
  ReportReadError,
  readRunResults,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../certify/compare.ts";
import { numberFlag, runCli, UsageError } from "./cli.ts";

const USAGE = `usage: npm run compare -- [--format text|markdown|json] [--last N] REPORT.json REPORT.json [REPORT.json…]
  Reports are h2h-certify.json files of certify runs, in any order: they are ordered by start time, the
  newest is the current run, the one before it the previous. Regressions, fixes, new, removed and otherwise
  changed checks compare those two; flaky checks (passed ↔ failed back and forth) look at all of them.
  --format   text (default), markdown (e.g. for a CI job summary) or json
  --last N   look at the newest N reports only`;

await runCli(async () => {
  let parsed: { values: { format?: string; last?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      options: { format: { type: "string" }, last: { type: "string" }, help: { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const format = values.format ?? "text";
  if (!["text", "markdown", "json"].includes(format))
    throw new UsageError(`--format ${format}: must be text, markdown or json`);
  const last = numberFlag("last", values.last);
  if (last !== undefined && (!Number.isInteger(last) || last < 2))
    throw new UsageError(`--last ${values.last}: must be a whole number of runs, 2 or more`);
  if (positionals.length < 2)
    throw new UsageError(`give at least two reports (previous and current)\n${USAGE}`);

  let runs: Awaited<ReturnType<typeof readRunResults>>[];
  try {
    runs = await Promise.all(positionals.map((path) => readRunResults(path)));
  } catch (error) {
    if (error instanceof ReportReadError) throw new UsageError(error.message);
    throw error;
  }
  const ordered = byStart(runs);
  const comparison = compareRuns(last === undefined ? ordered : ordered.slice(-last));

  if (format === "json") console.log(JSON.stringify(comparison, null, 2));
  else if (format === "markdown") process.stdout.write(renderComparisonMarkdown(comparison));
  else for (const line of renderComparisonText(comparison)) console.log(line);

  if (comparison.regressions.length > 0) return 1;
  if (comparison.current.verdict === "not run") {
    console.error(
      `compare: the current run (${comparison.current.runId}) could not judge its target (verdict "not run"): no comparison passes it`,
    );
    return 2;
  }
  return 0;
});
