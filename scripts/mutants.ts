/**
 * `npm run mutants`: certify against the reference provider with each fault (in parallel,
 * bounded by the cores) and against the clean provider several times; prints the table and the
 * kill rate, writes the table to the reports folder. Exit 0 only at 100 % and no false positive.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { killRate, renderMutationTable, runMutationSuite } from "../certify/mutation.ts";
import { numberFlag, runCli, UsageError } from "./cli.ts";

await runCli(async () => {
  let values: { fault?: string[]; clean?: string; concurrency?: string };
  try {
    ({ values } = parseArgs({
      options: {
        fault: { type: "string", multiple: true },
        clean: { type: "string" },
        concurrency: { type: "string" },
      },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}
usage: npm run mutants -- [--fault NAME ...] [--clean N (default 3)] [--concurrency N (default: cores)]`);
  }
  const reportDir = resolve(process.env.H2H_REPORT_DIR ?? "reports", "mutants");
  await mkdir(reportDir, { recursive: true });
  const started = Date.now();
  const results = await runMutationSuite({
    ...(values.fault ? { faults: values.fault } : {}),
    cleanRuns: numberFlag("clean", values.clean) ?? 3,
    ...(values.concurrency ? { concurrency: numberFlag("concurrency", values.concurrency) as number } : {}),
    reportDir,
    onResult: (r) =>
      console.log(`  ${r.outcome.padEnd(14)} ${r.subject} (${(r.durationMs / 1000).toFixed(1)} s)`),
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
  return rate.killed === rate.total && !falsePositive ? 0 : 1;
});
