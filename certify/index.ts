/**
 * The certify package's public surface: a certification run, the check listing and run-to-run
 * comparison, and what the mutation self-test (scripts/selftest/) certifies with (the reused spec runner,
 * the report kinds). Opening a target (settings, container, sink, masker) is run-setup/'s. The contract specs (`specs/`) are not imported by anyone: Vitest runs them, and they
 * read their settings through the typed run context (`run-context.ts`).
 */
// Run-to-run comparison (npm run compare, H2H_BASELINE_REPORT).
export {
  byStart,
  compareRuns,
  ReportReadError,
  readRunResults,
  renderComparisonMarkdown,
  renderComparisonText,
} from "./analysis/compare.ts";
// A signed verdict: the attestation of a run's reports (certify --attest, attest, verify).
export {
  ATTESTATION_FILE,
  AttestationInputError,
  attestReports,
  exitOfVerification,
  readSigningKey,
  readVerifyKey,
  verificationLines,
  verifyAttestation,
} from "./attestation/index.ts";
export { checkProfile } from "./engine/check-profile.ts";
// The receiver battery: a merchant's webhook receiver, on the same engine.
export { runReceiverCertification } from "./engine/receiver-run.ts";
export { type CheckRecord, EXIT_OF_VERDICT, type RunReport } from "./engine/run-model.ts";
export { phasesOf, type RunTimings } from "./engine/run-timings.ts";
export { runCertification } from "./engine/runner.ts";
// The proxy alone, and judging and reports without a proxy, for bench:observe.
export { judgeSession } from "./observe/judge.ts";
// Observe mode: a merchant's own integration through a recording proxy, both sides judged.
export { runObserve } from "./observe/observe.ts";
export { startObserveProxy } from "./observe/proxy.ts";
export { writeObserveReports } from "./observe/report.ts";
export { type ObservedExchange, ObserveSession } from "./observe/session.ts";
export { REPORT_FILES, REPORT_KINDS, type ReportKind } from "./reports/index.ts";
export { checksMarkdown, listChecks, printListedChecks, withChecksTable } from "./reports/list-checks.ts";
