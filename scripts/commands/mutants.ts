/**
 * `npm run mutants`: certify against the reference provider with each fault and against the clean
 * provider several times; prints the table and the kill rate, writes the table to the reports folder.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { commandSettings, defineCommand, EXIT } from "../cli.ts";
import { killRate, progressLine, renderMutationTable, runMutationSuite } from "../selftest/index.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

export const mutants = defineCommand({
  name: "mutants",
  summary:
    "Certifies the reference provider switched into each fault of the catalogue (in parallel, bounded\n" +
    "by the cores) and the clean provider several times; prints the table and the kill rate and writes\n" +
    "it to <H2H_REPORT_DIR>/mutants/. Every mutant runs every spec file, unless --targeted.",
  options: {
    fault: {
      type: "string",
      multiple: true,
      value: "NAME",
      description: "only this fault (repeatable; default: every fault)",
    },
    clean: { type: "number", description: "certifications of the clean provider (default: 3)" },
    concurrency: { type: "number", description: "certifications at once (default: the cores)" },
    targeted: {
      type: "boolean",
      description:
        "each mutant runs only the tests of the checks its fault names, in the spec files the first\n" +
        "clean run's records show them in (a fault one probe alone must kill: those files whole);\n" +
        "what npm test does, writing each run's JSON report alone; faster, as strict on those checks",
    },
  },
  settings: "mutants",
  exitCodes: {
    [EXIT.ok]: "every fault killed and no clean run failed",
    [EXIT.failed]: "a fault survived or a clean run failed",
    ...BAD_SETTINGS_EXIT,
  },
  knownErrors: BAD_SETTINGS,
  async run(options) {
    const reportDir = join(commandSettings("mutants").reportDir, "mutants");
    await mkdir(reportDir, { recursive: true });
    const started = Date.now();
    const results = await runMutationSuite({
      ...(options.fault ? { faults: options.fault } : {}),
      cleanRuns: options.clean ?? 3,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      targeted: options.targeted ?? false,
      reportDir,
      onResult: (result, progress) => console.log(`  ${progressLine(result, progress)}`),
    });
    const table = renderMutationTable(results);
    console.log(`\n${table}\n`);
    console.log(
      `${results.length} certifications in ${((Date.now() - started) / 1000).toFixed(0)} s; per-run reports in ${reportDir}`,
    );
    await writeFile(join(reportDir, "mutants.txt"), `${table}\n`);
    await writeFile(
      join(reportDir, "mutants.json"),
      `${JSON.stringify(
        results.map(({ fault: _fault, ...r }) => r),
        null,
        2,
      )}\n`,
    );
    const rate = killRate(results);
    const falsePositive = results.some((r) => r.fault === undefined && r.outcome !== "clean-pass");
    return rate.killed === rate.total && !falsePositive ? EXIT.ok : EXIT.failed;
  },
});
