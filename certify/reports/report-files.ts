/** The names of a run's report files: what CI jobs, attestations and the writers agree on. */
export const REPORT_FILES = {
  junit: "h2h-certify.junit.xml",
  json: "h2h-certify.json",
  html: "h2h-certify.html",
  har: "h2h-certify.har",
} as const;

export type ReportKind = keyof typeof REPORT_FILES;
export const REPORT_KINDS: readonly ReportKind[] = ["junit", "json", "html", "har"];

/** Written beside the others when the target ran in a container (H2H_TARGET_IMAGE). */
export const TARGET_LOG_FILE = "h2h-certify.target-container.log";
