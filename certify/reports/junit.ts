/**
 * JUnit XML for CI: one testsuite per endpoint, one testcase per check run. An informational
 * check that failed is a passing testcase with the finding in system-out, so CI goes red only
 * for what makes the target not conformant.
 */
import { escapeXml } from "../../contract/kit/index.ts";
import type { CheckRecord, RunReport } from "../engine/run-model.ts";
import { probeProperties, reproductionLines } from "./reproduction.ts";
import { isTransportFault } from "./root-causes.ts";

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

export function renderJunit(report: RunReport): string {
  const suites = report.summary.map((entry) => {
    const records = report.checks.filter((c) => c.endpoint === entry.endpoint);
    const failures = records.filter((c) => c.status === "failed" && c.required).length;
    const errors = records.filter(isTransportFault).length;
    const time = records.reduce((sum, c) => sum + c.durationMs, 0);
    return [
      `  <testsuite name="${escapeXml(entry.endpoint)}" tests="${records.length}" failures="${failures}" errors="${errors}" skipped="${entry.skipped + entry.notEvaluated - errors}" time="${junitTime(time)}" timestamp="${report.startedAt}">`,
      ...probeProperties(report, escapeXml),
      ...records.map((r) => testcase(r, report)),
      "  </testsuite>",
    ].join("\n");
  });
  const { totals } = report;
  const errors = report.checks.filter(isTransportFault).length;
  // No `skipped` here: Jenkins xunit's junit-10.xsd allows it on <testsuite> only, where it stands.
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="h2h-certify ${escapeXml(report.target.baseUrl)}" tests="${report.checks.length}" failures="${totals.failedRequired}" errors="${errors}" time="${junitTime(report.durationMs)}">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}
