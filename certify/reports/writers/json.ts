/** The run's report as JSON: the run model as it is, each check, exchange and callback written on its own. */
import { REPORT_FILES } from "../report-files.ts";
import { jsonChunks } from "./json-chunks.ts";
import type { ReportWriter } from "./writer.ts";

export const jsonWriter: ReportWriter = {
  kind: "json",
  fileName: REPORT_FILES.json,
  format: "json",
  // The report's members, and the elements of its arrays, one at a time.
  chunks: ({ report }) => jsonChunks(report, 2),
};
