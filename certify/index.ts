/**
 * The certify package's public surface: a certification run and its settings, the mutation
 * self-test, and the report helpers `load/` reuses. The contract specs (`specs/`) are not
 * imported by anyone: Vitest runs them, and they read their settings through the typed run
 * context (`run-context.ts`).
 */

export { checkProfile } from "./check-profile.ts";
export {
  killRate,
  type MutantResult,
  progressLine,
  renderMutationTable,
  runMutationSuite,
} from "./mutation.ts";
export { escapeHtml } from "./reports/html.ts";
export { REPORT_FILES } from "./reports/index.ts";
export { escapeXml } from "./reports/junit.ts";
export type { CheckRecord, RunReport, Verdict } from "./run-model.ts";
export { type RunSecrets, runMasker, startRunSink } from "./run-setup.ts";
export { phasesOf, type RunTimings } from "./run-timings.ts";
export { type CertifyOptions, type CertifyResult, runCertification } from "./runner.ts";
export {
  PROJECT_ROOT,
  profilePathFrom,
  readSettings,
  type Settings,
  SettingsError,
  userDirectory,
  withReferenceDefaults,
} from "./settings.ts";
