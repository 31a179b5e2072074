/**
 * The load run's reports: a JUnit file (thresholds, checks, callback delivery, the stress
 * capacity) for CI, and one combined report, JSON and a self-contained HTML page with inline SVG
 * plots: k6's verdict, the checks that failed by name, per-endpoint latency and throughput over
 * time, errors over time, callback delivery per final status and over time, the order → callback
 * latency distribution, the sink's own intake. Every series is bounded (per period or per
 * bucket), so the files do not grow with the run's length.
 */
import { escapeHtml, escapeXml, type TlsSummary, tlsSummaryLines } from "../../contract/kit/index.ts";
import type { TimelineSeries } from "../../webhook-sink/index.ts";
import { capacityLine, type StressOutcome } from "../lib/capacity.ts";
import {
  businessErrorCount,
  checksOf,
  failingChecks,
  type K6Summary,
  type K6SummaryCheck,
  latencyMetrics,
  ordersCreated,
  type ThresholdResult,
  thresholdsOf,
  transportErrorCount,
} from "../lib/summary.ts";
import type { DeliveryReport } from "./delivery.ts";
import type { LoadSeries } from "./k6-timeline.ts";
import { fmtSeconds, histogram, lineChart } from "./plots.ts";

export interface LoadSettings {
  rate: number;
  duration: string;
  thinkSeconds: number;
  maxVUs: number;
  mobileShare: number;
  failureShare: number;
  appealShare: number;
  p95Ms: number;
}

export interface LoadReport {
  runId: string;
  startedAt: string;
  finishedAt: string;
  target: string;
  script: string;
  scenario: string;
  /** What the scenario sent, in words, and the settings it ran with. */
  sends: string;
  settings: LoadSettings;
  runner: string;
  /** The TLS files k6 was given (paths, subjects, expiry; never a key or passphrase). */
  tls?: TlsSummary;
  k6ExitCode: number;
  thresholds: ThresholdResult[];
  checks: {
    rate: number | null;
    passes: number;
    fails: number;
    all: K6SummaryCheck[];
    failing: K6SummaryCheck[];
  };
  endpoints: {
    endpoint: string;
    p50: number | null;
    p95: number | null;
    p99: number | null;
    count: number | null;
  }[];
  iterations: number;
  droppedIterations: number;
  iterationDurationMs: { p50: number | null; p95: number | null; p99: number | null };
  businessErrors: { total: number; byCode: Record<string, number> | null };
  /** Requests that got no answer (refused, reset, timed out), by k6's error code: the transport's faults. */
  transportErrors: { total: number; byCode: Record<string, number> | null };
  delivery: DeliveryReport;
  deliveryTarget: number;
  stress: (StressOutcome & { line: string }) | undefined;
  /** k6's per-period series (absent when k6 wrote no dashboard record). */
  series: LoadSeries | undefined;
  /** The sink's series: the run's expected final callbacks and all callbacks it took. */
  sinkSeries: { delivered: TimelineSeries; intake: TimelineSeries };
  /** Where the plots' time axis starts, ms since the epoch. */
  startMs: number;
  passed: boolean;
  /** Why the run failed, in words; empty when it passed. */
  failures: string[];
  files: Record<string, string>;
}

const value = (summary: K6Summary, metric: string, stat: string): number | null =>
  summary.metrics[metric]?.values[stat] ?? null;

/** Per endpoint, the latency of answered requests with an expected status: failed ones are out. */
export function endpointsOf(summary: K6Summary): LoadReport["endpoints"] {
  return latencyMetrics(summary).map(({ endpoint, metric }) => ({
    endpoint,
    p50: metric.values.med ?? null,
    p95: metric.values["p(95)"] ?? null,
    p99: metric.values["p(99)"] ?? null,
    count: metric.values.count ?? null,
  }));
}

/** A check fails its JUnit case when it failed as often as the checks threshold tolerates no more (1 %). */
const CHECK_FAILURE_SHARE = 0.01;

export function buildLoadReport(input: {
  summary: K6Summary;
  delivery: DeliveryReport;
  deliveryTarget: number;
  businessErrorsByCode: Record<string, number> | null;
  transportErrorsByCode?: Record<string, number> | null;
  stress: StressOutcome | undefined;
  series: LoadSeries | undefined;
  sinkSeries: LoadReport["sinkSeries"];
  startMs: number;
  meta: Pick<
    LoadReport,
    | "runId"
    | "startedAt"
    | "finishedAt"
    | "target"
    | "script"
    | "scenario"
    | "sends"
    | "settings"
    | "runner"
    | "tls"
    | "k6ExitCode"
    | "files"
  >;
}): LoadReport {
  const { summary, delivery } = input;
  const thresholds = thresholdsOf(summary);
  const failing = failingChecks(summary);
  const failures: string[] = [];
  const isStress = input.stress !== undefined;
  // A stress run stops itself with k6's exit code 99 once a step breaks: that is its purpose.
  if (input.meta.k6ExitCode !== 0 && !(isStress && input.meta.k6ExitCode === 99))
    failures.push(`k6 exited with code ${input.meta.k6ExitCode}`);
  for (const t of thresholds.filter((t) => !t.ok))
    failures.push(`threshold ${t.metric} ${t.rule} was crossed`);
  if (input.stress && input.stress.capacity === null)
    failures.push(capacityLine(input.stress).replace(/^capacity: /, "capacity "));
  const created = ordersCreated(summary);
  if (delivery.confirmed === 0 && delivery.uncounted === 0)
    failures.push(
      `no order was ${created === 0 ? "created" : "confirmed"} (${value(summary, "iterations", "count") ?? 0} iterations): callback delivery was not measured`,
    );
  else if (delivery.ratio < input.deliveryTarget)
    failures.push(
      `callback delivery ${(delivery.ratio * 100).toFixed(2)} % is below the target ${(input.deliveryTarget * 100).toFixed(2)} %`,
    );
  return {
    ...input.meta,
    thresholds,
    checks: {
      rate: value(summary, "checks", "rate"),
      passes: value(summary, "checks", "passes") ?? 0,
      fails: value(summary, "checks", "fails") ?? 0,
      all: checksOf(summary),
      failing,
    },
    endpoints: endpointsOf(summary),
    iterations: value(summary, "iterations", "count") ?? 0,
    droppedIterations: value(summary, "dropped_iterations", "count") ?? 0,
    iterationDurationMs: {
      p50: value(summary, "iteration_duration", "med"),
      p95: value(summary, "iteration_duration", "p(95)"),
      p99: value(summary, "iteration_duration", "p(99)"),
    },
    businessErrors: { total: businessErrorCount(summary), byCode: input.businessErrorsByCode },
    transportErrors: { total: transportErrorCount(summary), byCode: input.transportErrorsByCode ?? null },
    delivery,
    deliveryTarget: input.deliveryTarget,
    stress: input.stress ? { ...input.stress, line: capacityLine(input.stress) } : undefined,
    series: input.series,
    sinkSeries: input.sinkSeries,
    startMs: input.startMs,
    passed: failures.length === 0,
    failures,
  };
}

const pct = (n: number, digits = 2) => `${(n * 100).toFixed(digits)} %`;
const ms = (n: number | null | undefined) => (n === null || n === undefined ? "–" : `${n.toFixed(1)} ms`);

export function renderLoadJunit(report: LoadReport): string {
  const cases: string[] = [];
  let failures = 0;
  let errors = 0;
  const testcase = (
    classname: string,
    name: string,
    failure: string | undefined,
    out?: string,
    error?: string,
  ) => {
    const attrs = `classname="${escapeXml(classname)}" name="${escapeXml(name)}"`;
    if (error !== undefined) {
      errors += 1;
      cases.push(
        `    <testcase ${attrs}>\n      <error message="${escapeXml(error)}" type="${escapeXml(classname)}"/>\n    </testcase>`,
      );
    } else if (failure !== undefined) {
      failures += 1;
      cases.push(
        `    <testcase ${attrs}>\n      <failure message="${escapeXml(failure)}" type="${escapeXml(classname)}"/>\n    </testcase>`,
      );
    } else if (out !== undefined)
      cases.push(`    <testcase ${attrs}><system-out>${escapeXml(out)}</system-out></testcase>`);
    else cases.push(`    <testcase ${attrs}/>`);
  };
  for (const t of report.thresholds)
    testcase(
      "k6 thresholds",
      `${t.metric} ${t.rule}`,
      t.ok ? undefined : `${t.metric} ${t.rule} was crossed`,
    );
  for (const check of report.checks.all) {
    const total = check.passes + check.fails;
    const detail = `${check.fails} of ${total} failed (${pct(total === 0 ? 0 : check.fails / total)})`;
    const share = total === 0 ? 0 : check.fails / total;
    testcase(
      "checks",
      check.name,
      share >= CHECK_FAILURE_SHARE ? detail : undefined,
      check.fails > 0 ? `${detail}, within the 1 % the checks threshold allows` : undefined,
    );
  }
  // Requests with no answer are the connection's faults: JUnit errors, not failures of the API.
  const transport = report.transportErrors.total;
  testcase(
    "transport",
    "every request got an answer",
    undefined,
    undefined,
    transport > 0 ? `${transport} requests got no answer (refused, reset or timed out)` : undefined,
  );
  const d = report.delivery;
  const measured = d.confirmed > 0 || d.uncounted > 0;
  testcase(
    "callbacks",
    `callback delivery ratio >= ${report.deliveryTarget}`,
    measured && d.ratio >= report.deliveryTarget ? undefined : deliverySentence(d),
    deliverySentence(d),
  );
  for (const f of d.byFinal.filter((f) => f.confirmed > 0 || f.delivered > 0)) {
    const detail = `${f.delivered - f.late} of ${f.confirmed} on time, ${f.late} late, ${f.missing} missing, ${f.duplicates} duplicates, ${f.outOfOrder} out of order`;
    testcase("callbacks", `${f.final} callbacks`, undefined, detail);
  }
  if (report.stress)
    testcase(
      "stress",
      "capacity",
      report.stress.capacity === null ? report.stress.line : undefined,
      report.stress.line,
    );
  // `errors` is required on <testsuite> by Jenkins xunit's junit-10.xsd.
  const counts = `tests="${cases.length}" failures="${failures}" errors="${errors}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="h2h-certify load ${escapeXml(report.scenario)}" ${counts}>`,
    `  <testsuite name="${escapeXml(`${report.script} ${report.scenario}`)}" ${counts} timestamp="${report.startedAt}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

export function deliverySentence(d: DeliveryReport): string {
  // A share of no order is no measurement: never "0 of 0 (100 %)".
  if (d.confirmed === 0 && d.uncounted === 0)
    return "no order was confirmed, so no callback delivery was measured";
  return (
    `${d.onTime} of ${d.confirmed} confirmed orders got their final callback within ${fmtSeconds(d.windowMs / 1000)} of its trigger ` +
    `(${pct(d.ratio)})${d.late > 0 ? `, ${d.late} more later` : ""}${d.missing > 0 ? `, ${d.missing} never` : ""}` +
    (d.uncounted > 0
      ? `; ${d.uncounted} more for orders k6 did not count as confirmed (iterations cut short when k6 stopped)`
      : "")
  );
}

const CSS = `body{font:14px/1.45 system-ui,sans-serif;max-width:1000px;margin:24px auto;padding:0 12px;color:#1d2330}
table{border-collapse:collapse;width:100%;margin:8px 0 20px}td,th{border-top:1px solid #e3e6ea;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5}td.num{text-align:right;font-variant-numeric:tabular-nums}.ok{color:#1f7a3a}.bad{color:#b3261e;font-weight:600}
.verdict{display:inline-block;padding:4px 12px;border-radius:4px;color:#fff}.passed{background:#1f7a3a}.failed{background:#b3261e}
.plot{display:block;margin:8px 0 18px;border:1px solid #e3e6ea;border-radius:4px;background:#fff}.note{color:#555}
code,pre{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}pre{background:#f3f4f6;padding:8px;overflow:auto;white-space:pre-wrap;word-break:break-all}`;

/**
 * Per bucket, the seconds since the run's start of its middle and its count per second of its real
 * width: the last bucket ends when the series was taken; one shorter than half a bucket is folded
 * into the one before, so a callback or two in its few ms are not drawn as a spike.
 */
export function bucketPoints(series: TimelineSeries, startMs: number): [number, number | null][] {
  const spans = series.counts.map((count, i) => {
    const from = series.startMs + i * series.bucketMs;
    const last = i === series.counts.length - 1 && series.endMs !== undefined;
    const width = last
      ? Math.min(series.bucketMs, Math.max(0, (series.endMs as number) - from))
      : series.bucketMs;
    return { from, width, count };
  });
  const tail = spans.at(-1);
  const before = spans.at(-2);
  if (tail && before && tail.width < series.bucketMs / 2) {
    before.width += tail.width;
    before.count += tail.count;
    spans.pop();
  }
  return spans
    .filter((span) => span.width > 0)
    .map((span) => [(span.from + span.width / 2 - startMs) / 1000, span.count / (span.width / 1000)]);
}

function plotsOf(report: LoadReport): string {
  const s = report.series;
  const noK6 = "no k6 timeline (k6 wrote no web dashboard record)";
  const at = (t: number) => (t - report.startMs) / 1000;
  // A period's value belongs to its middle: the record stamps each period's end.
  const mid = (i: number) => at(s?.timeMs[i] as number) - (s?.durationMs[i] ?? 0) / 2000;
  const perSecond = (v: number, i: number) => v / ((s?.durationMs[i] ?? 1000) / 1000 || 1);
  const endpoints = Object.entries(s?.endpoints ?? {});
  const perSecondTotal = (i: number) => endpoints.reduce((sum, [, e]) => sum + (e.perSecond[i] ?? 0), 0);
  const xMax = Math.max(
    s && s.timeMs.length > 0 ? at(s.timeMs[s.timeMs.length - 1] as number) : 0,
    ...[report.sinkSeries.delivered, report.sinkSeries.intake].map(
      (t) => (t.startMs + t.counts.length * t.bucketMs - report.startMs) / 1000,
    ),
  );
  const plots = [
    lineChart(
      {
        id: "p95",
        title: "p95 latency per endpoint over time",
        yLabel: "ms",
        xMax,
        series: endpoints.map(([name, e]) => ({
          name,
          points: e.p95Ms.map((v, i) => [mid(i), v] as [number, number | null]),
        })),
        reference: { y: report.settings.p95Ms, label: `threshold ${report.settings.p95Ms} ms` },
      },
      noK6,
    ),
    lineChart(
      {
        id: "throughput",
        title: "Throughput per endpoint over time",
        yLabel: "requests/s",
        xMax,
        series: endpoints.map(([name, e]) => ({
          name,
          points: e.perSecond.map((v, i) => [mid(i), v] as [number, number | null]),
        })),
      },
      noK6,
    ),
    lineChart(
      {
        id: "errors",
        title: "Errors over time",
        yLabel: "per second",
        xMax,
        series: s
          ? [
              {
                name: "failed HTTP requests/s",
                points: s.failedShare.map(
                  (v, i) => [mid(i), v === null ? null : v * perSecondTotal(i)] as [number, number | null],
                ),
              },
              {
                name: "business errors/s",
                points: s.businessErrors.map((v, i) => [mid(i), perSecond(v, i)] as [number, number]),
              },
              {
                name: "dropped iterations/s",
                points: s.droppedIterations.map((v, i) => [mid(i), perSecond(v, i)] as [number, number]),
                dashed: true,
              },
            ]
          : [],
      },
      noK6,
    ),
    lineChart({
      id: "delivery",
      title: "Callback delivery over time",
      yLabel: "per second",
      xMax,
      series: [
        ...(s
          ? [
              {
                name: "orders confirmed/s (k6)",
                points: s.confirmed.map((v, i) => [mid(i), perSecond(v, i)] as [number, number]),
              },
            ]
          : []),
        {
          name: "final callbacks/s (sink)",
          points: bucketPoints(report.sinkSeries.delivered, report.startMs),
        },
        {
          name: "all callbacks/s (sink intake)",
          points: bucketPoints(report.sinkSeries.intake, report.startMs),
          dashed: true,
        },
      ],
    }),
    histogram(
      {
        id: "latency",
        title: "Order → final callback latency",
        upper: report.delivery.latencyHistogram.upperMs,
        counts: report.delivery.latencyHistogram.counts,
        log: report.delivery.latencyHistogram.log,
        unit: "ms",
        markers: [
          { at: report.delivery.latencyMs.p50 ?? Number.NaN, label: "p50" },
          { at: report.delivery.latencyMs.p95 ?? Number.NaN, label: "p95" },
          { at: report.delivery.latencyMs.p99 ?? Number.NaN, label: "p99" },
        ].filter((m) => Number.isFinite(m.at)),
      },
      "no callback arrived",
    ),
  ];
  return plots.join("\n");
}

export function renderLoadHtml(report: LoadReport): string {
  const row = (cells: string[], numeric: boolean[] = []) =>
    `<tr>${cells.map((c, i) => `<td${numeric[i] ? ' class="num"' : ""}>${c}</td>`).join("")}</tr>`;
  const head = (cells: string[]) => `<tr>${cells.map((c) => `<th>${c}</th>`).join("")}</tr>`;
  const ok = (b: boolean) => (b ? '<span class="ok">✓ held</span>' : '<span class="bad">✗ crossed</span>');
  const d = report.delivery;
  const verdict = report.passed ? "PASSED" : "FAILED";
  const sections: string[] = [];
  sections.push(
    `<h1>H2H pay-in API load run</h1><p><span class="verdict ${report.passed ? "passed" : "failed"}">${verdict}</span></p>`,
    report.failures.length > 0
      ? `<ul>${report.failures.map((f) => `<li class="bad">${escapeHtml(f)}</li>`).join("")}</ul>`
      : "",
    `<p>Target <code>${escapeHtml(report.target)}</code> · script <code>${escapeHtml(report.script)}</code> · scenario <code>${escapeHtml(report.scenario)}</code> · run <code>${escapeHtml(report.runId)}</code> · ${escapeHtml(report.runner)} · k6 exit code ${report.k6ExitCode} · ${escapeHtml(report.startedAt)} → ${escapeHtml(report.finishedAt)}</p>`,
    report.tls ? `<p>TLS: ${tlsSummaryLines(report.tls).map(escapeHtml).join(" · ")}</p>` : "",
    `<p class="note">Sent: ${escapeHtml(report.sends)}</p>`,
  );
  if (report.stress) {
    const st = report.stress;
    sections.push(
      `<h2>Stress steps</h2><p><strong>${escapeHtml(st.line)}</strong></p><table>${head(["rate asked", "rate started", "p95 per endpoint", "failed requests", "checks passed", "verdict"])}${st.steps
        .filter((step) => step.reached)
        .map((step) =>
          row(
            [
              `${step.rate} orders/s`,
              step.achievedRate === null ? "–" : `${step.achievedRate}/s`,
              escapeHtml(
                Object.entries(step.p95Ms)
                  .map(([op, v]) => `${op} ${(v as number).toFixed(1)} ms`)
                  .join(", "),
              ),
              step.failedRate === null ? "–" : pct(step.failedRate),
              step.checksRate === null ? "–" : pct(step.checksRate),
              step.held
                ? '<span class="ok">✓ held</span>'
                : `<span class="bad">✗ ${escapeHtml(step.broke.join("; "))}</span>`,
            ],
            [true, true, false, true, true, false],
          ),
        )
        .join("")}</table>`,
    );
  }
  if (report.thresholds.length > 0)
    sections.push(
      `<h2>Thresholds</h2><table>${head(["metric", "rule", "result"])}${report.thresholds.map((t) => row([escapeHtml(t.metric), escapeHtml(t.rule), ok(t.ok)])).join("")}</table>`,
    );
  sections.push(
    `<h2>Checks</h2><p>${report.checks.rate === null ? "–" : pct(report.checks.rate)} passed (${report.checks.passes} passed, ${report.checks.fails} failed)</p>`,
    report.checks.failing.length > 0
      ? `<table>${head(["failing check", "failed", "of"])}${report.checks.failing.map((c) => row([`<span class="bad">✗ ${escapeHtml(c.name)}</span>`, String(c.fails), String(c.passes + c.fails)], [false, true, true])).join("")}</table><p class="note">k6's log (stderr) names the first problems each VU met: which field, which type.</p>`
      : '<p class="ok">No check failed.</p>',
  );
  sections.push(
    `<h2>Callback delivery</h2><p>${escapeHtml(deliverySentence(d))}; target ${pct(report.deliveryTarget)} ${(d.confirmed > 0 || d.uncounted > 0) && d.ratio >= report.deliveryTarget ? '<span class="ok">✓</span>' : '<span class="bad">✗</span>'}. Trigger → final callback p50 ${ms(d.triggerLatencyMs.p50)}, p95 ${ms(d.triggerLatencyMs.p95)}, p99 ${ms(d.triggerLatencyMs.p99)}, max ${ms(d.triggerLatencyMs.max)}; order → final callback p50 ${ms(d.latencyMs.p50)}, p95 ${ms(d.latencyMs.p95)}, p99 ${ms(d.latencyMs.p99)}, max ${ms(d.latencyMs.max)}.</p>`,
    `<table>${head(["final status", "orders confirmed", "on time", "late", "missing", "duplicates", "out of order", "other final status", "trigger → callback p50 / p95 / p99", "order → callback p50 / p95 / p99"])}${d.byFinal
      .map((f) =>
        row(
          [
            escapeHtml(f.final),
            String(f.confirmed),
            String(f.delivered - f.late),
            String(f.late),
            f.missing > 0 ? `<span class="bad">${f.missing}</span>` : "0",
            String(f.duplicates),
            f.outOfOrder > 0 ? `<span class="bad">${f.outOfOrder}</span>` : "0",
            escapeHtml(
              Object.entries(f.otherFinal)
                .map(([k, v]) => `${k} ${v}`)
                .join(", ") || "–",
            ),
            `${ms(f.triggerLatencyMs.p50)} / ${ms(f.triggerLatencyMs.p95)} / ${ms(f.triggerLatencyMs.p99)}`,
            `${ms(f.latencyMs.p50)} / ${ms(f.latencyMs.p95)} / ${ms(f.latencyMs.p99)}`,
          ],
          [false, true, true, true, true, true, true, false, false, false],
        ),
      )
      .join("")}</table>`,
    `<p class="note">Late: more than ${fmtSeconds(d.windowMs / 1000)} (the profile's callback timeout) after its trigger: the confirmation's answer, as k6 told the sink${d.withoutTrigger > 0 ? `; ${d.withoutTrigger} orders whose trigger note never came are judged from their creation` : ""}. Out of order: an appeal's callback before the failure it appeals. ${d.unmatched} callbacks named no order or status the sink could match; signatures: ${escapeHtml(
      Object.entries(d.signatures)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ") || "none",
    )}.</p>`,
    `<p>The sink took ${d.sink.callbacks} callbacks, at most ${d.sink.peakPerSecond} in one second, and answered each in p50 ${ms(d.sink.answerMs.p50)}, p99 ${ms(d.sink.answerMs.p99)}, max ${ms(d.sink.answerMs.max)}: it was not the bottleneck when its answer time stays far below the provider's callback timeout.</p>`,
  );
  sections.push(`<h2>Over time</h2>`, plotsOf(report));
  sections.push(
    `<h2>Endpoints</h2><table>${head(["endpoint", "requests", "p50", "p95", "p99"])}${report.endpoints.map((e) => row([escapeHtml(e.endpoint), String(e.count ?? "–"), ms(e.p50), ms(e.p95), ms(e.p99)], [false, true, true, true, true])).join("")}</table>`,
    `<h2>Flows</h2><table>${row(["iterations (orders started)", String(report.iterations)])}${row(["dropped iterations", String(report.droppedIterations)])}${row(["iteration duration", `p50 ${ms(report.iterationDurationMs.p50)}, p95 ${ms(report.iterationDurationMs.p95)}, p99 ${ms(report.iterationDurationMs.p99)}`])}${row(
      [
        "business errors by code",
        `${report.businessErrors.total} in all${
          report.businessErrors.byCode === null
            ? " (by code: k6 wrote no dashboard record)"
            : Object.keys(report.businessErrors.byCode).length > 0
              ? `: ${escapeHtml(
                  Object.entries(report.businessErrors.byCode)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(", "),
                )}`
              : ""
        }`,
      ],
    )}${row([
      "no answer (refused, reset, timed out)",
      `${report.transportErrors.total} in all${
        report.transportErrors.total > 0 && report.transportErrors.byCode
          ? `, by k6 error code: ${escapeHtml(
              Object.entries(report.transportErrors.byCode)
                .map(([k, v]) => `${k} ${v}`)
                .join(", "),
            )}`
          : ""
      }: faults of the connection, not answers of the API; out of the latency figures`,
    ])}</table>`,
  );
  if (d.samples.length > 0)
    sections.push(
      `<h2>Odd callbacks (first ${d.samples.length}, in full)</h2>${d.samples
        .map(
          (sample) =>
            `<details><summary>${escapeHtml(sample.reason)} · order <code>${escapeHtml(sample.callback.orderId ?? "?")}</code> · ${escapeHtml(sample.callback.receivedAt)}</summary><pre>${escapeHtml(JSON.stringify({ ...sample.callback, body: Buffer.from(sample.callback.bodyBase64, "base64").toString("utf8"), bodyBase64: undefined, json: undefined }, null, 2))}</pre></details>`,
        )
        .join("")}`,
    );
  sections.push(
    `<h2>Files</h2><ul>${Object.entries(report.files)
      .map(([k, v]) => `<li>${escapeHtml(k)}: <code>${escapeHtml(v)}</code></li>`)
      .join("")}</ul>`,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>h2h-certify load: ${escapeHtml(report.scenario)} · ${verdict}</title><style>${CSS}</style></head><body>
${sections.filter(Boolean).join("\n")}
</body></html>
`;
}
