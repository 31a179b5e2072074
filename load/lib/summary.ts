/**
 * The end-of-test summary the scripts print (k6's handleSummary): thresholds, checks and
 * per-endpoint latency in a few lines, plus the full summary as JSON where H2H_SUMMARY_PATH says.
 * k6-safe: no Node.js API.
 */

export interface K6SummaryMetric {
  type: "counter" | "gauge" | "rate" | "trend";
  contains?: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface K6Summary {
  metrics: Record<string, K6SummaryMetric>;
  state?: { testRunDurationMs?: number };
}

const fmt = (n: number | undefined, digits = 1) => (n === undefined ? "-" : n.toFixed(digits));

export function textSummary(summary: K6Summary): string {
  const lines: string[] = ["", "h2h-certify load summary"];
  const thresholds = Object.entries(summary.metrics).flatMap(([name, metric]) =>
    Object.entries(metric.thresholds ?? {}).map(
      ([rule, result]) => `  ${result.ok ? "✓" : "✗"} ${name} ${rule}`,
    ),
  );
  lines.push("thresholds:", ...(thresholds.length > 0 ? thresholds : ["  (none)"]));
  const checks = summary.metrics.checks?.values;
  if (checks)
    lines.push(
      `checks: ${fmt((checks.rate ?? 0) * 100, 2)}% passed (${checks.passes ?? 0} of ${(checks.passes ?? 0) + (checks.fails ?? 0)})`,
    );
  const endpoints = Object.entries(summary.metrics).filter(([name]) =>
    /^http_req_duration\{name:/.test(name),
  );
  for (const [name, metric] of endpoints) {
    const endpoint = name.slice("http_req_duration{name:".length, -1);
    lines.push(
      `  ${endpoint}: p50 ${fmt(metric.values.med)} ms, p95 ${fmt(metric.values["p(95)"])} ms, p99 ${fmt(metric.values["p(99)"])} ms`,
    );
  }
  const iterations = summary.metrics.iterations?.values.count ?? 0;
  const dropped = summary.metrics.dropped_iterations?.values.count ?? 0;
  const confirmed = summary.metrics.h2h_orders_confirmed?.values.count ?? 0;
  const errors = summary.metrics.h2h_business_errors?.values.count ?? 0;
  lines.push(
    `iterations ${iterations}, dropped ${dropped}, orders confirmed ${confirmed}, business errors ${errors}`,
    "",
  );
  return lines.join("\n");
}

/** handleSummary's answer: the text on stdout, and the JSON where the orchestrator asks for it. */
export function summaryOutputs(summary: K6Summary, jsonPath: string | undefined): Record<string, string> {
  const outputs: Record<string, string> = { stdout: textSummary(summary) };
  if (jsonPath) outputs[jsonPath] = JSON.stringify(summary, null, 2);
  return outputs;
}
