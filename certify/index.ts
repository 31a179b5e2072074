/**
 * The certify package's public surface: a certification run and its settings, the mutation
 * self-test, and the report helpers `load/` reuses. The contract specs (`specs/`) are not
 * imported by anyone: Vitest runs them, and they read their settings through the typed run
 * context (`run-context.ts`).
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
// The container engine (testcontainers) as the target container and load's k6 container use it.
export {
  ContainerEngineError,
  effectiveImageName,
  engineClient,
  ensureImage,
  ensureReaper,
  reasonOf,
  stopAndRemove,
  watchedContainer,
} from "./container-engine.ts";
export { checksMarkdown, type ListedRule, listChecks, printListedChecks } from "./list-checks.ts";
export {
  killRate,
  type MutantResult,
  progressLine,
  renderMutationTable,
  runMutationSuite,
} from "./mutation.ts";
export { escapeHtml } from "./reports/html.ts";
export { REPORT_FILES, TARGET_LOG_FILE } from "./reports/index.ts";
export { escapeXml } from "./reports/junit.ts";
export type { CheckRecord, RunReport, Verdict } from "./run-model.ts";
export { type RunSecrets, runMasker, startRunSink } from "./run-setup.ts";
export { phasesOf, type RunTimings } from "./run-timings.ts";
export { type CertifyOptions, type CertifyResult, runCertification } from "./runner.ts";
export {
  PROJECT_ROOT,
  profilePathFrom,
  readSettings,
  readTlsSettings,
  type Settings,
  SettingsError,
  userDirectory,
  withReferenceDefaults,
} from "./settings.ts";
// A provider image as the target (H2H_TARGET_IMAGE).
export {
  type RunningTargetContainer,
  readTargetContainerSettings,
  secretEnvValues,
  startTargetContainer,
  TargetContainerError,
  type TargetContainerRecord,
} from "./target-container.ts";
