/**
 * The end-of-test summary the scripts print (k6's handleSummary): thresholds, the checks that
 * failed by name, per-endpoint latency, the delivery denominators, and for stress each step and
 * the capacity; plus the full summary as JSON where H2H_SUMMARY_PATH says. The readers of k6's
 * summary data live here too, for the harness. k6-safe: no Node.js API.
 */

import { CONFIRMED_STATUSES, type ConfirmedStatus, ORDER_KINDS } from "../../contract/schemas/names.ts";
import { capacityLine, stressOutcome } from "./capacity.ts";
import type { LoadConfig } from "./config.ts";
import { BUSINESS_ERRORS_METRIC, CONFIRMED_METRIC_PREFIX, TRANSPORT_ERRORS_METRIC } from "./metric-names.ts";
import { endpointOfLatencyMetric, isBookkeeping, operationsOf, STEP_TAG, stepsOf } from "./scenarios.ts";
import type { K6Summary, K6SummaryCheck, K6SummaryGroup, K6SummaryMetric } from "./summary-data.ts";

export type { K6Summary, K6SummaryCheck, K6SummaryGroup, K6SummaryMetric } from "./summary-data.ts";

export interface ThresholdResult {
  metric: string;
  rule: string;
  ok: boolean;
}

/** The thresholds a reader judges a run by: not the bookkeeping ones, not the stress steps' (see capacity.ts). */
export function thresholdsOf(summary: K6Summary): ThresholdResult[] {
  return Object.entries(summary.metrics).flatMap(([metric, m]) =>
    Object.entries(m.thresholds ?? {})
      .filter(([rule]) => !isBookkeeping(rule) && !metric.includes(`${STEP_TAG}:`))
      .map(([rule, result]) => ({ metric, rule, ok: result.ok })),
  );
}

/** Every check k6 counted, from the root group down. */
export function checksOf(summary: K6Summary): K6SummaryCheck[] {
  const out: K6SummaryCheck[] = [];
  const walk = (group: K6SummaryGroup | undefined) => {
    if (!group) return;
    for (const check of group.checks ?? [])
      out.push({ name: check.name, passes: check.passes, fails: check.fails });
    for (const child of group.groups ?? []) walk(child);
  };
  walk(summary.root_group);
  return out;
}

/** The checks that failed at least once, most failures first. */
export function failingChecks(summary: K6Summary): K6SummaryCheck[] {
  return checksOf(summary)
    .filter((check) => check.fails > 0)
    .sort((a, b) => b.fails - a.fails || a.name.localeCompare(b.name));
}

/** Orders confirmed, by the final status each aims at: the callback delivery denominators. */
export function confirmedByFinal(summary: K6Summary): Record<ConfirmedStatus, number> {
  return Object.fromEntries(
    CONFIRMED_STATUSES.map((final) => [
      final,
      summary.metrics[`${CONFIRMED_METRIC_PREFIX}${final}`]?.values.count ?? 0,
    ]),
  ) as Record<ConfirmedStatus, number>;
}

export function businessErrorCount(summary: K6Summary): number {
  return summary.metrics[BUSINESS_ERRORS_METRIC]?.values.count ?? 0;
}

/** Orders the target created: successful answers to the create operations (their success checks' passes). */
export function ordersCreated(summary: K6Summary): number {
  return checksOf(summary)
    .filter((check) => /^create\w*Order: success with the expected status$/.test(check.name))
    .reduce((sum, check) => sum + check.passes, 0);
}

/** Requests that got no answer at all: the transport's faults, apart from the API's error answers. */
export function transportErrorCount(summary: K6Summary): number {
  return summary.metrics[TRANSPORT_ERRORS_METRIC]?.values.count ?? 0;
}

/**
 * Each endpoint's latency metric in the summary: over answered requests with an expected status
 * (`expected_response:true`) where k6 kept it, else (a summary of an older run) over all.
 */
export function latencyMetrics(summary: K6Summary): { endpoint: string; metric: K6SummaryMetric }[] {
  const found = new Map<string, { name: string; metric: K6SummaryMetric }>();
  for (const [name, metric] of Object.entries(summary.metrics)) {
    const endpoint = endpointOfLatencyMetric(name);
    if (endpoint === undefined) continue;
    const known = found.get(endpoint);
    if (known === undefined || name.includes("expected_response")) found.set(endpoint, { name, metric });
  }
  return [...found].map(([endpoint, { metric }]) => ({ endpoint, metric }));
}

const fmt = (n: number | undefined, digits = 1) => (n === undefined ? "-" : n.toFixed(digits));

export function failingCheckLines(summary: K6Summary): string[] {
  return failingChecks(summary).map(
    (check) =>
      `  ✗ ${check.name} — ${check.fails} of ${check.passes + check.fails} failed (${fmt((check.fails / (check.passes + check.fails)) * 100, 2)} %)`,
  );
}

export function textSummary(summary: K6Summary, config?: LoadConfig): string {
  const lines: string[] = ["", "h2h-certify load summary"];
  const thresholds = thresholdsOf(summary).map((t) => `  ${t.ok ? "✓" : "✗"} ${t.metric} ${t.rule}`);
  const steps = config && stepsOf(config);
  if (steps === undefined || thresholds.length > 0)
    lines.push("thresholds:", ...(thresholds.length > 0 ? thresholds : ["  (none)"]));
  const checks = summary.metrics.checks?.values;
  if (checks)
    lines.push(
      `checks: ${fmt((checks.rate ?? 0) * 100, 2)}% passed (${checks.passes ?? 0} of ${(checks.passes ?? 0) + (checks.fails ?? 0)})`,
    );
  const failing = failingCheckLines(summary);
  if (failing.length > 0) lines.push("failing checks:", ...failing);
  for (const { endpoint, metric } of latencyMetrics(summary)) {
    // k6 keeps a threshold's submetric even when nothing was sent: no line for an endpoint never reached.
    if ((metric.values.count ?? 0) === 0) continue;
    lines.push(
      `  ${endpoint}: p50 ${fmt(metric.values.med)} ms, p95 ${fmt(metric.values["p(95)"])} ms, p99 ${fmt(metric.values["p(99)"])} ms`,
    );
  }
  const iterations = summary.metrics.iterations?.values.count ?? 0;
  const dropped = summary.metrics.dropped_iterations?.values.count ?? 0;
  const confirmed = Object.values(confirmedByFinal(summary)).reduce((a, b) => a + b, 0);
  lines.push(
    `iterations ${iterations}, dropped ${dropped}, orders confirmed ${confirmed}, business errors ${businessErrorCount(summary)}, ` +
      `no answer (refused, reset, timed out) ${transportErrorCount(summary)}`,
  );
  if (config && steps) {
    const outcome = stressOutcome(summary, steps, {
      p95Ms: config.p95Ms,
      // Every operation: a step's submetrics exist only for the ones the script calls.
      operations: operationsOf(ORDER_KINDS),
    });
    lines.push("stress steps:");
    for (const step of outcome.steps.filter((s) => s.reached)) {
      lines.push(
        `  ${step.held ? "✓" : "✗"} ${step.rate} orders/s (started ${step.achievedRate ?? "-"}/s)${step.broke.length > 0 ? `: ${step.broke.join("; ")}` : ""}`,
      );
    }
    lines.push(capacityLine(outcome));
  }
  lines.push("");
  return lines.join("\n");
}

/** handleSummary's answer: the text on stdout, and the JSON where the orchestrator asks for it. */
export function summaryOutputs(
  summary: K6Summary,
  jsonPath: string | undefined,
  config?: LoadConfig,
): Record<string, string> {
  const outputs: Record<string, string> = { stdout: textSummary(summary, config) };
  if (jsonPath) outputs[jsonPath] = JSON.stringify(summary, null, 2);
  return outputs;
}
