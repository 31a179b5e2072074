/**
 * Test helper: `npm run certify` limited to some contract spec files, which the programmatic API
 * offers (specFiles) and the command line does not: for a test that needs part of the contract
 * run as a user runs it, in a process of its own (e.g. measured by GNU time).
 * `node --import ./scripts/tsx.mjs certify/testing/certify-spec-files.ts [--reports=json,…] certify/specs/X.spec.ts…`,
 * settings from H2H_*; the exit codes are the command's: 0 conformant, 1 not conformant,
 * 4 partial, 2 otherwise (reports not written too).
 */
import { parseSettings } from "../../run-setup/index.ts";
import { EXIT_OF_VERDICT, REPORT_KINDS, type ReportKind, runCertification } from "../index.ts";

const REPORTS_FLAG = "--reports=";
const args = process.argv.slice(2);
const reportsFlag = args.find((arg) => arg.startsWith(REPORTS_FLAG));
const reports = reportsFlag?.slice(REPORTS_FLAG.length).split(",") as ReportKind[] | undefined;
const unknownReport = reports?.find((kind) => !REPORT_KINDS.includes(kind));
if (unknownReport !== undefined) {
  console.error(`certify-spec-files.ts: no report kind "${unknownReport}" (${REPORT_KINDS.join(", ")})`);
  process.exit(64);
}
const specFiles = args.filter((arg) => arg !== reportsFlag);
if (specFiles.length === 0) {
  console.error("certify-spec-files.ts: name the spec files to run, e.g. certify/specs/callbacks.spec.ts");
  process.exit(64);
}
try {
  const { report, reportsError } = await runCertification({
    settings: parseSettings(process.env, { command: "certify" }),
    specFiles,
    ...(reports ? { reports } : {}),
  });
  // As the command: a verdict whose reports are missing is no pass.
  process.exitCode = reportsError !== undefined ? 2 : EXIT_OF_VERDICT[report.verdict];
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
