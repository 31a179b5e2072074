/** Test helper: a finished run's report around the given checks, for tests of how reports render. */
import { type CheckRecord, type RunReport, summarize } from "../engine/run-model.ts";

export function runReportOf(checks: CheckRecord[], rest: Partial<RunReport> = {}): RunReport {
  const { summary, totals } = summarize(checks);
  return {
    tool: { name: "h2h-certify", version: "0.0.0" },
    runId: "run-1",
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:00:02.000Z",
    durationMs: 2_000,
    target: { baseUrl: "http://127.0.0.1:8080", reference: false, profileName: "p", profilePath: "p.json" },
    verdict: totals.failedRequired > 0 ? "not conformant" : "conformant",
    errors: [],
    warnings: [],
    summary,
    totals,
    checks,
    exchanges: [],
    callbacks: [],
    ...rest,
  };
}
