/**
 * The certify package's public surface: a certification run, the mutation self-test, the check
 * listing and run-to-run comparison. Opening a target (settings, container, sink, masker) is
 * target/'s. The contract specs (`specs/`) are not imported by anyone: Vitest runs them, and they
 * read their settings through the typed run context (`run-context.ts`).
 */
export { checkProfile } from "./check-profile.ts";
// Run-to-run comparison (npm run compare, H2H_BASELINE_REPORT).
export {
  byStart,
  type CheckChange,
  compareRuns,
  ReportReadError,
  type RunComparison,
  type RunResults,
  readRunResults,
  renderComparisonMarkdown,
  renderComparisonText,
} from "./compare.ts";
export { checksMarkdown, type ListedRule, listChecks, printListedChecks } from "./list-checks.ts";
export {
  killRate,
  type MutantResult,
  progressLine,
  renderMutationTable,
  runMutationSuite,
} from "./mutation.ts";
export { REPORT_FILES, TARGET_LOG_FILE } from "./reports/index.ts";
export type { CheckRecord, RunReport, Verdict } from "./run-model.ts";
export { phasesOf, type RunTimings } from "./run-timings.ts";
export { type CertifyOptions, type CertifyResult, runCertification } from "./runner.ts";
