/** Test helper: one report of a run as its registered writer streams it, joined, unmasked. */
import { analyseRun } from "../analysis/index.ts";
import type { RunReport } from "../engine/run-model.ts";
import type { ReportKind } from "../reports/report-files.ts";
import { REPORT_WRITERS } from "../reports/writers/index.ts";

export function renderReport(kind: ReportKind, report: RunReport): string {
  const writer = REPORT_WRITERS.find((w) => w.kind === kind);
  if (!writer) throw new Error(`no report writer for ${kind}`);
  return [...writer.chunks({ report, analysis: analyseRun(report) })]
    .map((chunk) => (typeof chunk === "string" ? chunk : chunk.json))
    .join("");
}
