/**
 * JUnit XML for CI: one testsuite per endpoint, one testcase per check run. An informational
 * check that failed is a passing testcase with the finding in system-out, so CI goes red only
 * for what makes the target not conformant.
 */
import { escapeXml } from "../../../contract/kit/index.ts";
import { isTransportFault } from "../../analysis/root-causes.ts";
import type { CheckRecord, RunReport } from "../../engine/run-model.ts";
import { REPORT_FILES } from "../report-files.ts";
import { probeProperties, reproductionLines } from "../reproduction.ts";
import type { ReportChunk, ReportRun, ReportWriter } from "./writer.ts";

/** JUnit `time` attributes are seconds with a fraction. */
const junitTime = (ms: number) => (ms / 1000).toFixed(3);

function testcase(record: CheckRecord, report: RunReport): string {
  const name = escapeXml(record.case ? `${record.check} › ${record.case}` : record.check);
  const open = `    <testcase classname="${escapeXml(record.endpoint)}" name="${name}" time="${junitTime(record.durationMs)}"`;
  if (record.status === "skipped") {
    return `${open}>\n      <skipped message="${escapeXml(record.reason ?? "skipped")}"/>\n    </testcase>`;
  }
  if (isTransportFault(record)) {
    // No answer, broken framing, a desync: an error of the exchange, never a failure of the contract.
    return `${open}>\n      <error message="${escapeXml(record.detail)}" type="transport"/>\n    </testcase>`;
  }
  if (record.status === "not evaluated") {
    // Its cause fails once, as a testcase of its own; this one waits on it.
    return `${open}>\n      <skipped message="${escapeXml(record.detail)}"/>\n    </testcase>`;
  }
  if (record.status === "failed" && record.required) {
    const evidence = record.exchanges
      .map((id) => report.exchanges.find((e) => e.id === id))
      .filter((e) => e !== undefined)
      .map((e) => `${e.request.method} ${e.request.url} -> HTTP ${e.response.status} (exchange ${e.id})`)
      .join("\n");
    const body = [
      record.detail,
      record.rule && `rule: ${record.rule}`,
      evidence,
      ...reproductionLines(record.reproduction),
    ]
      .filter(Boolean)
      .join("\n");
    return `${open}>\n      <failure message="${escapeXml(record.detail)}" type="${escapeXml(record.check)}">${escapeXml(body)}</failure>\n    </testcase>`;
  }
  if (record.status === "failed") {
    return `${open}>\n      <system-out>${escapeXml(`informational, not required (${record.reason ?? ""}): ${record.detail}`)}</system-out>\n    </testcase>`;
  }
  return `${open}/>`;
}

function* junitChunks({ report }: ReportRun): Generator<ReportChunk> {
  const errors = report.checks.filter(isTransportFault).length;
  // Testcases, not results: a record that counts several results (observe's) is one testcase.
  const failures = report.checks.filter((c) => c.status === "failed" && c.required).length;
  // No `skipped` here: Jenkins xunit's junit-10.xsd allows it on <testsuite> only, where it stands.
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield `<testsuites name="h2h-certify ${escapeXml(report.target.baseUrl)}" tests="${report.checks.length}" failures="${failures}" errors="${errors}" time="${junitTime(report.durationMs)}">`;
  for (const entry of report.summary) {
    const records = report.checks.filter((c) => c.endpoint === entry.endpoint);
    const failures = records.filter((c) => c.status === "failed" && c.required).length;
    const suiteErrors = records.filter(isTransportFault).length;
    const time = records.reduce((sum, c) => sum + c.durationMs, 0);
    yield `\n  <testsuite name="${escapeXml(entry.endpoint)}" tests="${records.length}" failures="${failures}" errors="${suiteErrors}" skipped="${entry.skipped + entry.notEvaluated - suiteErrors}" time="${junitTime(time)}" timestamp="${report.startedAt}">`;
    for (const property of probeProperties(report, escapeXml)) yield `\n${property}`;
    // One testcase at a time: each holds its evidence, and there may be thousands.
    for (const record of records) yield `\n${testcase(record, report)}`;
    yield "\n  </testsuite>";
  }
  yield "\n</testsuites>\n";
}

export const junitWriter: ReportWriter = {
  kind: "junit",
  fileName: REPORT_FILES.junit,
  format: "markup",
  chunks: junitChunks,
};
