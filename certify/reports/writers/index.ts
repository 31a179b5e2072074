/**
 * The registered report writers, in the order the set is written. A new report is a writer
 * (writer.ts) added here with its file name in ../report-files.ts; the set's writer runs each.
 */
import { harWriter } from "./har.ts";
import { htmlWriter } from "./html.ts";
import { jsonWriter } from "./json.ts";
import { junitWriter } from "./junit.ts";
import type { ReportWriter } from "./writer.ts";

export const REPORT_WRITERS: readonly ReportWriter[] = [junitWriter, jsonWriter, htmlWriter, harWriter];

export { type JsonPiece, maskChunk, type ReportChunk, type ReportRun, type ReportWriter } from "./writer.ts";
