/**
 * One self-contained HTML page a person reads: the verdict, a conformance score per endpoint,
 * each check's result, and for each failure the rule, what was found and the request and
 * response as exchanged. No script, no external resource: it opens anywhere, offline.
 */
import { type RecordedExchange, tlsSummaryLines } from "../../contract/index.ts";
import { rateLimitWaitsLine } from "../preflight.ts";
import type { CheckRecord, RunReport } from "../run-model.ts";
import { escapeHtml } from "./escape.ts";
import { baselineSection, EXTRAS_CSS, targetContainerSection } from "./extras-html.ts";

export { escapeHtml };

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px}
.verdict{display:inline-block;padding:4px 12px;border-radius:4px;font-weight:600;color:#fff}
.conformant{background:#1f7a3a}.not-conformant{background:#b3261e}.not-run{background:#7a5b00}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e6}
th,td{text-align:left;padding:6px 8px;border-top:1px solid #e6e9ee;vertical-align:top}
th{background:#eef1f5;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.passed{color:#1f7a3a}.failed{color:#b3261e;font-weight:600}.skipped{color:#7a5b00}.info{color:#6b5b00}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f3f4f6;border:1px solid #e3e5e8;padding:8px;overflow:auto;max-height:360px;white-space:pre-wrap;word-break:break-all}
details{margin:6px 0}summary{cursor:pointer}
.meta{color:#555}.bar{background:#e9ecef;height:8px;border-radius:4px;overflow:hidden;min-width:120px}
.bar>span{display:block;height:100%;background:#1f7a3a}
.errors{background:#fff4f2;border:1px solid #f0c4bd;padding:8px 12px}
`;

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function headers(map: Record<string, string>): string {
  return Object.entries(map)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
}

/** issue 12: the 429s waited out before the answer shown. */
function rateLimitedLine(exchange: RecordedExchange): string {
  if (!exchange.rateLimited || exchange.rateLimited.length === 0) return "";
  const attempts = exchange.rateLimited.map(
    (a) => `HTTP ${a.status} at ${a.startedAt}, Retry-After ${a.retryAfter ?? "–"}, waited ${a.waitedMs} ms`,
  );
  return `<p><b>Rate limited first</b>: ${escapeHtml(attempts.join("; "))}; the answer below is to the request sent again.</p>\n`;
}

function exchangeBlock(exchange: RecordedExchange): string {
  const request = `${exchange.request.method} ${exchange.request.url}\n${headers(exchange.request.headers)}\n\n${pretty(exchange.request.body)}`;
  const response = `HTTP ${exchange.response.status}\n${headers(exchange.response.headers)}\n\n${pretty(exchange.response.body)}`;
  return `<details open><summary>Exchange <code>${escapeHtml(exchange.id)}</code> · ${escapeHtml(exchange.request.method)} ${escapeHtml(
    new URL(exchange.request.url).pathname,
  )} → HTTP ${exchange.response.status} · ${exchange.durationMs} ms · ${escapeHtml(exchange.startedAt)}</summary>
${rateLimitedLine(exchange)}<p><b>Request as sent</b></p><pre>${escapeHtml(request)}</pre>
<p><b>Response as received</b></p><pre>${escapeHtml(response)}</pre></details>`;
}

function statusCell(record: CheckRecord): string {
  if (record.status === "failed" && !record.required) return `<td class="info">✗ failed (informational)</td>`;
  const mark = { passed: "✓ passed", failed: "✗ failed", skipped: "– skipped" }[record.status];
  return `<td class="${record.status}">${mark}</td>`;
}

function checkRow(record: CheckRecord, exchanges: Map<string, RecordedExchange>): string {
  const name = `<code>${escapeHtml(record.check)}</code>${record.case ? ` › ${escapeHtml(record.case)}` : ""}`;
  const reason = record.reason
    ? `<div class="meta">${record.status === "skipped" ? "Skipped: " : "Informational: "}${escapeHtml(record.reason)}</div>`
    : "";
  let evidence = "";
  if (record.status === "failed") {
    const blocks = record.exchanges.flatMap((id) => {
      const exchange = exchanges.get(id);
      return exchange ? [exchangeBlock(exchange)] : [];
    });
    evidence = `<div class="meta">Rule: ${escapeHtml(record.rule || "(not a registered check)")}</div>${
      blocks.length > 0 ? blocks.join("") : '<div class="meta">No exchange was recorded for this check.</div>'
    }`;
  }
  return `<tr>${statusCell(record)}<td>${name}${reason}</td><td>${escapeHtml(record.detail)}${evidence}</td></tr>`;
}

function timelines(report: RunReport): string {
  const withTimeline = report.checks.filter((c) => c.timeline !== undefined);
  if (withTimeline.length === 0) return "";
  const rows = withTimeline
    .map((record) => {
      const timeline = record.timeline as NonNullable<CheckRecord["timeline"]>;
      const deliveries =
        timeline.deliveries.length === 0
          ? '<span class="failed">no callback arrived</span>'
          : timeline.deliveries
              .map(
                (d) =>
                  `#${d.delivery} <code>${escapeHtml(d.status)}</code> +${(d.arrivedAfterMs / 1000).toFixed(2)} s · answered ${d.answeredWith} · signature <span class="${
                    d.signature === "valid" ? "passed" : d.signature === "not-checked" ? "meta" : "failed"
                  }">${escapeHtml(d.signature)}</span>`,
              )
              .join("<br>");
      return `<tr>${statusCell(record)}<td>${escapeHtml(timeline.scenario)}<div class="meta">triggered ${escapeHtml(timeline.triggeredAt)}</div></td><td><code>${escapeHtml(timeline.orderId)}</code></td><td>${deliveries}</td></tr>`;
    })
    .join("\n");
  return `<h2 id="callback-timelines">Callback timelines</h2>
<p class="meta">Per order: each delivery that reached the sink, its status, its arrival after the triggering request, the sink's answer and the signature verdict.</p>
<table><thead><tr><th style="width:140px">Arrived</th><th>Scenario</th><th>Order</th><th>Deliveries</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

export function renderHtml(report: RunReport): string {
  const exchanges = new Map(report.exchanges.map((e) => [e.id, e]));
  const verdictClass = report.verdict.replace(" ", "-");
  const summaryRows = report.summary
    .map(
      (
        entry,
      ) => `<tr><td><a href="#${encodeURIComponent(entry.endpoint)}">${escapeHtml(entry.endpoint)}</a></td>
<td class="num">${entry.score === null ? "–" : `${entry.score}%`}</td><td><div class="bar"><span style="width:${entry.score ?? 0}%"></span></div></td>
<td class="num passed">${entry.passed}</td><td class="num failed">${entry.failed}</td><td class="num skipped">${entry.skipped}</td></tr>`,
    )
    .join("\n");
  const sections = report.summary
    .map((entry) => {
      // Failures first: they are what a reader came for.
      const rank = (c: CheckRecord) =>
        c.status === "failed" ? (c.required ? 0 : 1) : c.status === "skipped" ? 2 : 3;
      const rows = report.checks
        .filter((c) => c.endpoint === entry.endpoint)
        .sort((a, b) => rank(a) - rank(b))
        .map((c) => checkRow(c, exchanges))
        .join("\n");
      return `<h2 id="${encodeURIComponent(entry.endpoint)}">${escapeHtml(entry.endpoint)} <span class="meta">· ${
        entry.score === null ? "no checks judged" : `${entry.score}% conformant`
      }</span></h2>
<table><thead><tr><th style="width:140px">Result</th><th style="width:360px">Check</th><th>Finding</th></tr></thead><tbody>
${rows}
</tbody></table>`;
    })
    .join("\n");
  // A container that never got ready is the whole story of the run: its section goes first.
  const containerFailed = report.targetContainer?.readyAfterMs === null;
  const errors =
    report.errors.length > 0
      ? `<div class="errors"><b>The run could not judge everything:</b><ul>${report.errors.map((e) => `<li>${escapeHtml(e)}</li>`).join("")}</ul></div>`
      : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>h2h-certify: ${escapeHtml(report.verdict)} · ${escapeHtml(report.target.baseUrl)}</title>
<style>${CSS}${EXTRAS_CSS}</style></head><body><main>
<h1>H2H pay-in API certification</h1>
<p><span class="verdict ${verdictClass}">${escapeHtml(report.verdict.toUpperCase())}</span></p>
<p class="meta">Target <code>${escapeHtml(report.target.baseUrl)}</code>${report.target.reference ? " (bundled reference provider)" : ""}${
    report.targetContainer
      ? ` (a container of <code>${escapeHtml(report.targetContainer.imageRun)}</code>, <a href="#target-container">its log</a>)`
      : ""
  } ·
profile <code>${escapeHtml(report.target.profileName)}</code> (${escapeHtml(report.target.profilePath)}) · run <code>${escapeHtml(report.runId)}</code> ·
${escapeHtml(report.startedAt)} · ${(report.durationMs / 1000).toFixed(1)} s · ${escapeHtml(report.tool.name)} ${escapeHtml(report.tool.version)}</p>
${report.target.tls ? `<p class="meta">TLS: ${tlsSummaryLines(report.target.tls).map(escapeHtml).join(" · ")}</p>` : ""}
${report.rateLimitWaits ? `<p class="meta">${escapeHtml(rateLimitWaitsLine(report.rateLimitWaits))}</p>` : ""}
<p>${report.totals.passed} passed, ${report.totals.failed} failed (${report.totals.failedRequired} required), ${report.totals.skipped} skipped,
${report.exchanges.length} exchanges recorded. Card numbers (all but the last 4 digits), CVCs, API keys and callback secrets are masked.</p>
${errors}
${containerFailed ? targetContainerSection(report.targetContainer) : ""}
${baselineSection(report.baseline)}
<h2>Conformance by endpoint</h2>
<table><thead><tr><th>Endpoint</th><th>Score</th><th></th><th>Passed</th><th>Failed</th><th>Skipped</th></tr></thead><tbody>
${summaryRows}
</tbody></table>
${timelines(report)}
${sections}
${containerFailed ? "" : targetContainerSection(report.targetContainer)}
</main></body></html>
`;
}
