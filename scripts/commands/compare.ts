/** `npm run compare`: what changed between certification runs, by their JSON reports. */

import { resolve } from "node:path";
import {
  byStart,
  compareRuns,
  ReportReadError,
  readRunResults,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../../certify/index.ts";
import { userDirectory } from "../../run-setup/index.ts";
import { defineCommand, EXIT, UsageError } from "../cli.ts";

export const compare = defineCommand({
  name: "compare",
  summary:
    "Compares certification runs by their h2h-certify.json reports, given in any order: they are\n" +
    "ordered by start time, the newest is the current run, the one before it the previous.\n" +
    "Regressions, fixes, new, removed and otherwise changed checks compare those two; flaky checks\n" +
    "(passed and failed back and forth) look at all of them.",
  operands: { value: "REPORT.json…", min: 2, description: "two or more reports: previous and current" },
  options: {
    format: {
      type: "string",
      choices: ["text", "markdown", "json"],
      description: "text (default), markdown (e.g. for a CI job summary) or json",
    },
    last: { type: "number", description: "look at the newest N reports only (N ≥ 2)" },
  },
  exitCodes: {
    [EXIT.ok]: "no regression",
    [EXIT.failed]: "a regression: a check that passed in the previous run fails in the current one",
    [EXIT.notJudged]:
      'the current run could not judge its target (verdict "not run") or did not finish (verdict "incomplete"): no comparison passes it',
    [EXIT.partial]:
      'the current run judged only part of the contract (verdict "partial", e.g. --only): what it left out is not compared, so no comparison passes it',
    [EXIT.usage]: "bad usage, or a file that is not a certify report",
  },
  knownErrors: [[ReportReadError, EXIT.usage]],
  async run(options, reports) {
    const { last } = options;
    if (last !== undefined && (!Number.isInteger(last) || last < 2))
      throw new UsageError(`--last ${last}: must be a whole number of runs, 2 or more`);
    // Relative paths from the user's directory, as H2H_PROFILE's: npm run changes into the package root.
    const cwd = userDirectory(process.env);
    const runs = byStart(await Promise.all(reports.map((path) => readRunResults(resolve(cwd, path)))));
    const comparison = compareRuns(last === undefined ? runs : runs.slice(-last));

    const format = options.format ?? "text";
    if (format === "json") console.log(JSON.stringify(comparison, null, 2));
    else if (format === "markdown") process.stdout.write(renderComparisonMarkdown(comparison));
    else for (const line of renderComparisonText(comparison)) console.log(line);

    if (comparison.regressions.length > 0) return EXIT.failed;
    if (comparison.current.verdict === "not run") {
      console.error(
        `compare: the current run (${comparison.current.runId}) could not judge its target (verdict "not run"): no comparison passes it`,
      );
      return EXIT.notJudged;
    }
    if (comparison.current.verdict === "incomplete") {
      // Stopped by its deadline or a signal: what it did not reach is neither passed nor compared.
      console.error(
        `compare: the current run (${comparison.current.runId}) did not finish (verdict "incomplete"): the checks it did not reach are not compared, so no comparison passes it`,
      );
      return EXIT.notJudged;
    }
    if (comparison.current.verdict === "partial") {
      // --only, or required checks not evaluated: the checks it left out read as removed, not passed.
      console.error(
        `compare: the current run (${comparison.current.runId}) judged only part of the contract (verdict "partial"): the checks it left out are not compared, so no comparison passes it`,
      );
      return EXIT.partial;
    }
    return EXIT.ok;
  },
});
