/**
 * The load run's reports: a JUnit file of the thresholds (and the delivery target) for CI, and
 * one combined report (JSON and a self-contained HTML page) with k6's verdict, per-endpoint
 * latency, business errors by code, dropped iterations and callback delivery.
 */
import { escapeHtml, escapeXml } from "../../certify/index.ts";
import type { K6Summary } from "../lib/summary.ts";
import type { DeliveryReport } from "./delivery.ts";

export interface LoadReport {
  runId: string;
  startedAt: string;
  finishedAt: string;
  target: string;
  script: string;
  scenario: string;
  runner: string;
  k6ExitCode: number;
  thresholds: { metric: string; rule: string; ok: boolean }[];
  checks: { rate: number | null; passes: number; fails: number };
  endpoints: {
    endpoint: string;
    p50: number | null;
    p95: number | null;
    p99: number | null;
    count: number | null;
  }[];
  iterations: number;
  droppedIterations: number;
  flowDurationMs: { p50: number | null; p95: number | null; p99: number | null };
  businessErrors: Record<string, number>;
  delivery: DeliveryReport;
  deliveryTarget: number;
  passed: boolean;
  files: Record<string, string>;
}

const value = (summary: K6Summary, metric: string, stat: string): number | null =>
  summary.metrics[metric]?.values[stat] ?? null;

export function thresholdsOf(summary: K6Summary): LoadReport["thresholds"] {
  return Object.entries(summary.metrics).flatMap(([metric, m]) =>
    Object.entries(m.thresholds ?? {}).map(([rule, result]) => ({ metric, rule, ok: result.ok })),
  );
}

export function endpointsOf(summary: K6Summary): LoadReport["endpoints"] {
  return Object.keys(summary.metrics)
    .filter((name) => /^http_req_duration\{name:[^}]+\}$/.test(name))
    .map((name) => ({
      endpoint: name.slice("http_req_duration{name:".length, -1),
      p50: value(summary, name, "med"),
      p95: value(summary, name, "p(95)"),
      p99: value(summary, name, "p(99)"),
      count: value(summary, name, "count"),
    }));
}

export function renderLoadJunit(report: LoadReport): string {
  const cases = report.thresholds.map((t) => {
    const name = escapeXml(`${t.metric} ${t.rule}`);
    return t.ok
      ? `    <testcase classname="k6 thresholds" name="${name}"/>`
      : `    <testcase classname="k6 thresholds" name="${name}">\n      <failure message="${name} was crossed" type="threshold"/>\n    </testcase>`;
  });
  const deliveryOk = report.delivery.ratio >= report.deliveryTarget;
  const deliveryName = escapeXml(`callback delivery ratio >= ${report.deliveryTarget}`);
  const deliveryDetail = escapeXml(
    `${report.delivery.delivered} of ${report.delivery.confirmed} confirmed orders got their final callback (${(report.delivery.ratio * 100).toFixed(2)} %)`,
  );
  cases.push(
    deliveryOk
      ? `    <testcase classname="callbacks" name="${deliveryName}"><system-out>${deliveryDetail}</system-out></testcase>`
      : `    <testcase classname="callbacks" name="${deliveryName}">\n      <failure message="${deliveryDetail}" type="delivery"/>\n    </testcase>`,
  );
  const failures = report.thresholds.filter((t) => !t.ok).length + (deliveryOk ? 0 : 1);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="h2h-certify load ${escapeXml(report.scenario)}" tests="${cases.length}" failures="${failures}">`,
    `  <testsuite name="${escapeXml(`${report.script} ${report.scenario}`)}" tests="${cases.length}" failures="${failures}" timestamp="${report.startedAt}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

const ms = (n: number | null) => (n === null ? "–" : `${n.toFixed(1)} ms`);

export function renderLoadHtml(report: LoadReport): string {
  const row = (cells: string[]) => `<tr>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`;
  const ok = (b: boolean) => (b ? '<span class="ok">✓ passed</span>' : '<span class="bad">✗ failed</span>');
  const d = report.delivery;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>h2h-certify load: ${escapeHtml(report.scenario)} · ${report.passed ? "PASSED" : "FAILED"}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;max-width:1000px;margin:24px auto;color:#1d2330}table{border-collapse:collapse;width:100%;margin:8px 0 20px}td,th{border-top:1px solid #e3e6ea;padding:5px 8px;text-align:left}th{background:#eef1f5}.ok{color:#1f7a3a}.bad{color:#b3261e;font-weight:600}.verdict{display:inline-block;padding:4px 12px;border-radius:4px;color:#fff;background:${report.passed ? "#1f7a3a" : "#b3261e"}}</style></head><body>
<h1>H2H pay-in API load run</h1><p><span class="verdict">${report.passed ? "PASSED" : "FAILED"}</span></p>
<p>Target <code>${escapeHtml(report.target)}</code> · script <code>${escapeHtml(report.script)}</code> · scenario <code>${escapeHtml(report.scenario)}</code> · run <code>${escapeHtml(report.runId)}</code> · ${escapeHtml(report.runner)} · k6 exit code ${report.k6ExitCode} · ${escapeHtml(report.startedAt)} → ${escapeHtml(report.finishedAt)}</p>
<h2>Thresholds</h2><table><tr><th>metric</th><th>rule</th><th>result</th></tr>${report.thresholds.map((t) => row([escapeHtml(t.metric), escapeHtml(t.rule), ok(t.ok)])).join("")}</table>
<h2>Callback delivery</h2><table>
${row(["orders confirmed", String(d.confirmed)])}${row(["final callbacks received", String(d.delivered)])}
${row(["delivery ratio", `${(d.ratio * 100).toFixed(2)} % (target ${(report.deliveryTarget * 100).toFixed(2)} %) ${ok(d.ratio >= report.deliveryTarget)}`])}
${row(["order → callback latency", `p50 ${ms(d.latencyMs.p50)}, p95 ${ms(d.latencyMs.p95)}, p99 ${ms(d.latencyMs.p99)}, max ${ms(d.latencyMs.max)}`])}
${row(["duplicate final callbacks", String(d.duplicates)])}${row(["unexpected statuses", escapeHtml(JSON.stringify(d.unexpectedStatuses))])}</table>
<h2>Endpoints</h2><table><tr><th>endpoint</th><th>requests</th><th>p50</th><th>p95</th><th>p99</th></tr>${report.endpoints.map((e) => row([escapeHtml(e.endpoint), String(e.count ?? "–"), ms(e.p50), ms(e.p95), ms(e.p99)])).join("")}</table>
<h2>Flows</h2><table>${row(["iterations", String(report.iterations)])}${row(["dropped iterations", String(report.droppedIterations)])}
${row(["flow duration (create sent → confirm answered)", `p50 ${ms(report.flowDurationMs.p50)}, p95 ${ms(report.flowDurationMs.p95)}, p99 ${ms(report.flowDurationMs.p99)}`])}
${row(["checks", report.checks.rate === null ? "–" : `${(report.checks.rate * 100).toFixed(2)} % (${report.checks.passes} passed, ${report.checks.fails} failed)`])}
${row(["business errors by code", escapeHtml(JSON.stringify(report.businessErrors))])}</table>
<h2>Files</h2><ul>${Object.entries(report.files)
    .map(([k, v]) => `<li>${escapeHtml(k)}: <code>${escapeHtml(v)}</code></li>`)
    .join("")}</ul>
</body></html>
`;
}

export function buildLoadReport(input: {
  summary: K6Summary;
  delivery: DeliveryReport;
  deliveryTarget: number;
  businessErrors: Record<string, number>;
  meta: Pick<
    LoadReport,
    | "runId"
    | "startedAt"
    | "finishedAt"
    | "target"
    | "script"
    | "scenario"
    | "runner"
    | "k6ExitCode"
    | "files"
  >;
}): LoadReport {
  const { summary } = input;
  const thresholds = thresholdsOf(summary);
  return {
    ...input.meta,
    thresholds,
    checks: {
      rate: value(summary, "checks", "rate"),
      passes: value(summary, "checks", "passes") ?? 0,
      fails: value(summary, "checks", "fails") ?? 0,
    },
    endpoints: endpointsOf(summary),
    iterations: value(summary, "iterations", "count") ?? 0,
    droppedIterations: value(summary, "dropped_iterations", "count") ?? 0,
    flowDurationMs: {
      p50: value(summary, "h2h_flow_duration", "med"),
      p95: value(summary, "h2h_flow_duration", "p(95)"),
      p99: value(summary, "h2h_flow_duration", "p(99)"),
    },
    businessErrors: input.businessErrors,
    delivery: input.delivery,
    deliveryTarget: input.deliveryTarget,
    passed:
      input.meta.k6ExitCode === 0 &&
      thresholds.every((t) => t.ok) &&
      input.delivery.ratio >= input.deliveryTarget,
  };
}
