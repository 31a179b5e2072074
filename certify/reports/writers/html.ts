/**
 * One self-contained HTML page a person reads: the verdict, a conformance score per endpoint,
 * each check's result, and for each failure the rule, what was found and the request and
 * response as exchanged. No script, no external resource: it opens anywhere, offline.
 */
import { describeRuleSource, type RecordedExchange } from "../../../contract/index.ts";
import { escapeHtml, tlsSummaryLines } from "../../../contract/kit/index.ts";
import {
  placeOf,
  type RuleAdvisories,
  type RuleFailures,
  standingOf,
} from "../../analysis/failures-by-rule.ts";
import { describeRef } from "../../analysis/follow-on-failures.ts";
import { rateLimitWaitsLine } from "../../engine/preflight.ts";
import { reconnectedNote, reconnectsLine } from "../../engine/reconnects.ts";
import {
  type CheckRecord,
  isAdvisory,
  isFailure,
  partialLine,
  type RunReport,
} from "../../engine/run-model.ts";
import { type CallbackEvidence, relativeToTrigger } from "../callback-evidence.ts";
import { REPORT_FILES } from "../report-files.ts";
import { probeSettingsLine, reproductionHtml } from "../reproduction.ts";
import { baselineSection, EXTRAS_CSS, targetContainerSection } from "./extras-html.ts";
import type { ReportChunk, ReportRun, ReportWriter } from "./writer.ts";

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px}
.verdict{display:inline-block;padding:4px 12px;border-radius:4px;font-weight:600;color:#fff}
.conformant{background:#1f7a3a}.not-conformant{background:#b3261e}.not-run{background:#7a5b00}.incomplete{background:#7a5b00}.partial{background:#7a5b00}
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
.alarm{background:#b00020;color:#fff;font-size:1.15em;padding:14px 18px;border-radius:6px;margin:0 0 12px}
.errors{background:#fff4f2;border:1px solid #f0c4bd;padding:8px 12px}
.warnings{background:#fff8e1;border:1px solid #f0dca0;padding:8px 12px;margin:8px 0}
.noteval{color:#5a6270}.advisory{color:#33558a}tr.follow-on td:first-child{padding-left:28px}
table.findings{margin:6px 0;width:auto}table.findings td,table.findings th{padding:2px 8px}
a{color:#1a5fb4}
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

/** The 429s waited out before the answer shown. */
function rateLimitedLine(exchange: RecordedExchange): string {
  if (!exchange.rateLimited || exchange.rateLimited.length === 0) return "";
  const attempts = exchange.rateLimited.map(
    (a) => `HTTP ${a.status} at ${a.startedAt}, Retry-After ${a.retryAfter ?? "–"}, waited ${a.waitedMs} ms`,
  );
  return `<p><b>Rate limited first</b>: ${escapeHtml(attempts.join("; "))}; the answer below is to the request sent again.</p>\n`;
}

/** A request sent again on a new connection after losing the keep-alive race. */
function reconnectedLine(exchange: RecordedExchange): string {
  const note = reconnectedNote(exchange);
  return note ? `<p><b>Sent twice</b>: ${escapeHtml(note)}.</p>\n` : "";
}

function exchangeBlock(exchange: RecordedExchange, open = true): string {
  const request = `${exchange.request.method} ${exchange.request.url}\n${headers(exchange.request.headers)}\n\n${pretty(exchange.request.body)}`;
  const response = `HTTP ${exchange.response.status}\n${headers(exchange.response.headers)}\n\n${pretty(exchange.response.body)}`;
  return `<details${open ? " open" : ""}><summary>Exchange <code>${escapeHtml(exchange.id)}</code> · ${escapeHtml(exchange.request.method)} ${escapeHtml(
    new URL(exchange.request.url).pathname,
  )} → HTTP ${exchange.response.status} · ${exchange.durationMs} ms · ${escapeHtml(exchange.startedAt)}</summary>
${rateLimitedLine(exchange)}${reconnectedLine(exchange)}<p><b>Request as sent</b></p><pre>${escapeHtml(request)}</pre>
<p><b>Response as received</b></p><pre>${escapeHtml(response)}</pre></details>`;
}

function statusCell(record: CheckRecord): string {
  // Not met, but it cannot fail the run: no failure mark, no failure colour.
  if (isAdvisory(record)) return `<td class="advisory">◇ ${escapeHtml(standingOf(record))}</td>`;
  if (record.status === "not evaluated") return `<td class="noteval">○ not evaluated</td>`;
  const mark = { passed: "✓ passed", failed: "✗ failed", skipped: "– skipped" }[record.status];
  return `<td class="${record.status}">${mark}</td>`;
}

/** Anchors: each check record, and each callback, can be linked to. */
const recordAnchor = (index: number) => `check-${index}`;

function findingsTable(record: CheckRecord): string {
  if (!record.findings || record.findings.length === 0) return "";
  const rows = record.findings
    .map(
      (f) =>
        `<tr><td><code>${escapeHtml(f.path)}</code></td><td>${escapeHtml(f.expected)}</td><td>${escapeHtml(f.actual)}</td><td>${escapeHtml(f.hint ?? "")}</td></tr>`,
    )
    .join("");
  return `<table class="findings"><thead><tr><th>Field</th><th>Expected</th><th>Found</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** One callback as received: request line, headers and raw body, openable. */
function callbackBlock(callback: CallbackEvidence, open = false): string {
  const when = callback.trigger ? relativeToTrigger(callback.trigger.arrivedAfterMs) : callback.receivedAt;
  const raw = `${callback.method} ${callback.url}\n${headers(callback.headers)}\n\n${
    callback.bodyEncoding === "base64" ? `(not UTF-8; base64)\n${callback.body}` : callback.body
  }`;
  return `<details id="${escapeHtml(callback.id)}"${open ? " open" : ""}><summary>Callback <code>${escapeHtml(callback.id)}</code> · delivery #${callback.delivery} · <code>${escapeHtml(
    callback.status ?? "(no status)",
  )}</code> · ${escapeHtml(when)} · answered ${callback.answeredWith} · signature <span class="${
    callback.signature === "valid" ? "passed" : callback.signature === "not-checked" ? "meta" : "failed"
  }">${escapeHtml(callback.signature)}</span></summary>
<p class="meta">Received ${escapeHtml(callback.receivedAt)}${callback.trigger ? ` for ${escapeHtml(callback.trigger.scenario)}, triggered ${escapeHtml(callback.trigger.triggeredAt)}` : ""} · ${callback.bodyBytes} bytes${callback.contentEncoding ? ` · Content-Encoding <code>${escapeHtml(callback.contentEncoding)}</code> (the body below is as sent, encoded)` : ""} · the sink answered HTTP ${callback.answeredWith}${callback.bodyProblem ? ` · unreadable: ${escapeHtml(callback.bodyProblem)}` : ""}</p>
${signatureTable(callback)}<p><b>Callback as received</b></p><pre>${escapeHtml(raw)}</pre></details>`;
}

/** A failed signature, explained: what the profile declares, what came, what the suite computed. */
function signatureTable(callback: CallbackEvidence): string {
  const explained = callback.signatureExplained;
  if (!explained) return "";
  const rows: [string, string][] = [
    ["Scheme (the profile's callbacks.signature)", explained.scheme],
    [`Received ${explained.header}`, explained.received === null ? "(no such header)" : explained.received],
    [`Computed ${explained.header}`, explained.computed],
    ["Signed bytes", explained.signedOver],
    ["Signed with the secret", explained.signedWith],
  ];
  return `<p><b class="failed">Signature ${escapeHtml(explained.verdict)}</b></p><table class="findings"><tbody>${rows
    .map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td><code>${escapeHtml(value)}</code></td></tr>`)
    .join("")}</tbody></table>`;
}

/**
 * A timeline's result: never "passed" beside a delivery that failed a check, its signature or any
 * other (an amount a hundred times the order's).
 */
function timelineStatusCell(
  record: CheckRecord,
  callbacks: readonly CallbackEvidence[],
  failedOn: ReadonlyMap<string, CheckRecord[]>,
): string {
  if (record.status !== "passed") return statusCell(record);
  const bad = callbacks.filter((c) => c.signature !== "valid" && c.signature !== "not-checked");
  if (bad.length > 0)
    return `<td class="failed">✗ signature ${escapeHtml(bad[0]?.signature ?? "")}<div class="meta">${bad.length} of ${callbacks.length} deliveries; <code>${escapeHtml(record.check)}</code> itself passed</div></td>`;
  const failures = [...new Set(callbacks.flatMap((c) => failedOn.get(c.id) ?? []))];
  const [first] = failures;
  if (!first) return statusCell(record);
  return `<td class="failed">✗ ${escapeHtml(first.check)}<div class="meta">${failures.length} failed check(s) on these callbacks; <code>${escapeHtml(record.check)}</code> itself passed</div></td>`;
}

interface Lookups {
  exchanges: Map<string, RecordedExchange>;
  callbacks: Map<string, CallbackEvidence>;
  /** Where each failure sits, so a check that was not evaluated can link to its cause. */
  anchors: Map<string, number>;
}

const causeKey = (endpoint: string, check: string, label?: string) =>
  `${endpoint}\u0000${check}\u0000${label ?? ""}`;

function checkRow(record: CheckRecord, index: number, lookups: Lookups): string {
  const name = `<code>${escapeHtml(record.check)}</code>${record.case ? ` › ${escapeHtml(record.case)}` : ""}`;
  const reason = record.reason
    ? `<div class="meta">${record.status === "skipped" ? "Skipped: " : isAdvisory(record) ? "Why it cannot fail the run: " : "Informational: "}${escapeHtml(record.reason)}</div>`
    : "";
  let evidence = "";
  if (record.status === "failed") {
    // A callback check judges callbacks: they come first and open; the requests that made the
    // order are there, closed, for context.
    const callbacks = (record.callbacks ?? []).flatMap((id) => {
      const callback = lookups.callbacks.get(id);
      return callback ? [callbackBlock(callback, true)] : [];
    });
    const blocks = record.exchanges.flatMap((id) => {
      const exchange = lookups.exchanges.get(id);
      return exchange ? [exchangeBlock(exchange, callbacks.length === 0)] : [];
    });
    const source = record.ruleSource
      ? `<div class="meta">Source: ${escapeHtml(describeRuleSource(record.ruleSource))}</div>`
      : "";
    const cause = record.followsFrom
      ? lookups.anchors.get(
          causeKey(record.followsFrom.endpoint, record.followsFrom.check, record.followsFrom.case),
        )
      : undefined;
    const follows = record.followsFrom
      ? `<div class="meta"><b>Follows from</b> an earlier failure of the same order: ${
          cause === undefined
            ? escapeHtml(describeRef(record.followsFrom))
            : `<a href="#${recordAnchor(cause)}">${escapeHtml(describeRef(record.followsFrom))}</a>`
        }</div>`
      : "";
    evidence = `${follows}<div class="meta">Rule: ${escapeHtml(record.rule || "(not a registered check)")}</div>${source}${findingsTable(record)}${reproductionHtml(record, escapeHtml)}${
      blocks.length + callbacks.length > 0
        ? [...callbacks, ...blocks].join("")
        : '<div class="meta">No exchange was recorded for this check.</div>'
    }`;
  } else if (record.status === "not evaluated" && record.blockedBy) {
    const cause = lookups.anchors.get(
      causeKey(record.endpoint, record.blockedBy.check, record.blockedBy.case),
    );
    const link =
      cause === undefined
        ? ""
        : ` <a href="#${recordAnchor(cause)}"><code>${escapeHtml(record.blockedBy.check)}</code>${record.blockedBy.case ? ` › ${escapeHtml(record.blockedBy.case)}` : ""}</a>`;
    evidence = `<div class="meta">${link ? `The cause, reported once:${link}` : "The cause is reported once, on this endpoint."}</div>`;
  }
  return `<tr id="${recordAnchor(index)}">${statusCell(record)}<td>${name}${reason}</td><td>${escapeHtml(record.detail)}${evidence}</td></tr>`;
}

/** What the page opens with: each rule that failed, on which endpoints, how often, the first evidence. */
function failuresSection(failures: readonly RuleFailures[], indexOf: Map<CheckRecord, number>): string {
  if (failures.length === 0) return "";
  const followOns = failures.reduce((sum, f) => sum + f.followOns, 0);
  const rows = failures
    .map((failure) => {
      const index = indexOf.get(failure.first);
      const first = `<a href="#${index === undefined ? "" : recordAnchor(index)}">${escapeHtml(placeOf(failure.first))}</a>`;
      // A rule whose every failure follows from another's sits under its cause, indented.
      const follows = failure.followOns === failure.count;
      const note =
        failure.followOns > 0
          ? `<div class="meta">${follows ? "Every one" : `${failure.followOns} of them`} following from an earlier failure of the same order: ${failure.causes
              .map((cause) => `<code>${escapeHtml(cause)}</code>`)
              .join(", ")}</div>`
          : "";
      return `<tr${follows ? ' class="follow-on"' : ""}><td>${follows ? "↳ " : ""}<code>${escapeHtml(failure.check)}</code><div class="meta">${escapeHtml(failure.rule)}</div>${
        failure.first.ruleSource
          ? `<div class="meta">Source: ${escapeHtml(describeRuleSource(failure.first.ruleSource))}</div>`
          : ""
      }${note}</td><td>${failure.endpoints.map(escapeHtml).join("<br>")}</td><td class="num">${failure.count}</td><td>${first}<div>${escapeHtml(failure.first.detail)}</div></td></tr>`;
    })
    .join("\n");
  return `<h2 id="failures-by-rule">Failures by rule</h2>
<p class="meta">Each rule that failed, once: the endpoints it failed on, how often, and the first failure as evidence. The rules that caused others come first${
    followOns > 0
      ? `: <b>${followOns} failure(s) follow from an earlier failure of their order</b>, and a rule all of whose failures follow is shown under its cause`
      : ""
  }. A check that depends on a failure (an answer that is not JSON, an order that could not be created) is "not evaluated" and points at it, so each cause is counted once.</p>
<table><thead><tr><th style="width:340px">Rule</th><th style="width:220px">Endpoints</th><th>Count</th><th>First evidence</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

/** What the advisories found, per rule: what the target did with each probe, counted. Never a failure. */
function advisoriesSection(advisories: readonly RuleAdvisories[], indexOf: Map<CheckRecord, number>): string {
  if (advisories.length === 0) return "";
  const rows = advisories
    .map((advisory) => {
      const index = indexOf.get(advisory.first);
      const did = advisory.outcomes
        .map(([outcome, count]) => `${escapeHtml(outcome)} <span class="meta">×${count}</span>`)
        .join("<br>");
      return `<tr><td><code>${escapeHtml(advisory.check)}</code> <span class="advisory">(${advisory.standing})</span><div class="meta">${escapeHtml(advisory.rule)}</div>${
        advisory.first.reason ? `<div class="meta">${escapeHtml(advisory.first.reason)}</div>` : ""
      }</td><td class="num">${advisory.count}</td><td>${did}</td><td><a href="#${index === undefined ? "" : recordAnchor(index)}">${escapeHtml(placeOf(advisory.first))}</a></td></tr>`;
    })
    .join("\n");
  return `<h2 id="advisories">Advisories</h2>
<p class="meta">What the target did with each probe whose rule it is not held to: a limit or format the API description does not state and the profile does not declare, a reading a common, harmless normalisation explains, or a check the profile waives. They never fail the run; the profile can declare them.</p>
<table><thead><tr><th style="width:340px">Rule</th><th>Probes</th><th>What the target did</th><th>First</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

/** The callbacks of one scenario: by the ids its timeline names, else by the scenario they were tied to. */
function callbacksOf(timeline: NonNullable<CheckRecord["timeline"]>, lookups: Lookups): CallbackEvidence[] {
  const named = timeline.deliveries.flatMap((d) => (d.callback ? [lookups.callbacks.get(d.callback)] : []));
  if (named.length > 0) return named.filter((c): c is CallbackEvidence => c !== undefined);
  return [...lookups.callbacks.values()].filter((c) => c.trigger?.scenario === timeline.scenario);
}

function* timelines(report: RunReport, lookups: Lookups): Generator<string> {
  const withTimeline = report.checks.filter((c) => c.timeline !== undefined);
  /** The required failures that looked at each callback. */
  const failedOn = new Map<string, CheckRecord[]>();
  for (const record of report.checks)
    if (isFailure(record))
      for (const id of record.callbacks ?? []) failedOn.set(id, [...(failedOn.get(id) ?? []), record]);
  const shown = new Set<string>();
  for (const record of withTimeline)
    for (const callback of callbacksOf(record.timeline as NonNullable<CheckRecord["timeline"]>, lookups))
      shown.add(callback.id);
  const others = report.callbacks.filter((callback) => !shown.has(callback.id));
  if (withTimeline.length === 0 && others.length === 0) return;
  yield `<h2 id="callback-timelines">Callback timelines</h2>
<p class="meta">Per order: each delivery that reached the sink, its status, its arrival relative to the triggering request (a negative time is a callback that came before it), the sink's answer and the signature verdict. Open one for its headers and raw body as received.</p>
`;
  if (withTimeline.length > 0) {
    yield `<table><thead><tr><th style="width:140px">Result</th><th>Scenario</th><th>Order</th><th>Deliveries</th></tr></thead><tbody>
`;
    let first = true;
    for (const record of withTimeline) {
      const timeline = record.timeline as NonNullable<CheckRecord["timeline"]>;
      const callbacks = callbacksOf(timeline, lookups);
      const deliveries =
        callbacks.length > 0
          ? callbacks.map((callback) => callbackBlock(callback)).join("")
          : timeline.deliveries.length === 0
            ? '<span class="failed">no callback arrived</span>'
            : timeline.deliveries
                .map(
                  (d) =>
                    `#${d.delivery} <code>${escapeHtml(d.status)}</code> ${escapeHtml(relativeToTrigger(d.arrivedAfterMs))} · answered ${d.answeredWith} · signature ${escapeHtml(d.signature)}`,
                )
                .join("<br>");
      yield `${first ? "" : "\n"}<tr>${timelineStatusCell(record, callbacks, failedOn)}<td>${escapeHtml(timeline.scenario)}<div class="meta">triggered ${escapeHtml(timeline.triggeredAt)}</div></td><td><code>${escapeHtml(timeline.orderId)}</code></td><td>${deliveries}</td></tr>`;
      first = false;
    }
    yield "\n</tbody></table>";
  }
  yield "\n";
  if (others.length === 0) return;
  yield `<h3>Other callbacks received</h3>
<p class="meta">Callbacks the sink received that belong to no scenario above (other probes' orders, or none the suite made).</p>
`;
  let first = true;
  for (const callback of others) {
    yield `${first ? "" : "\n"}${callbackBlock(callback)}`;
    first = false;
  }
}

/** Per endpoint (or group), its checks, failures first: they are what a reader came for. */
function* sections(
  report: RunReport,
  indexOf: Map<CheckRecord, number>,
  lookups: Lookups,
): Generator<string> {
  const rank = (c: CheckRecord) =>
    c.status === "failed"
      ? c.required
        ? 0
        : 2
      : c.status === "not evaluated"
        ? 1
        : c.status === "skipped"
          ? 3
          : 4;
  let firstSection = true;
  for (const entry of report.summary) {
    yield `${firstSection ? "" : "\n"}<h2 id="${encodeURIComponent(entry.endpoint)}">${escapeHtml(entry.endpoint)} <span class="meta">· ${
      entry.score === null ? "no checks judged" : `${entry.score}% conformant`
    }</span></h2>
<table><thead><tr><th style="width:140px">Result</th><th style="width:360px">Check</th><th>Finding</th></tr></thead><tbody>
`;
    firstSection = false;
    const records = report.checks
      .filter((c) => c.endpoint === entry.endpoint)
      .sort((a, b) => rank(a) - rank(b));
    // One row at a time: a failed check's row holds its exchanges.
    let firstRow = true;
    for (const c of records) {
      yield `${firstRow ? "" : "\n"}${checkRow(c, indexOf.get(c) as number, lookups)}`;
      firstRow = false;
    }
    yield "\n</tbody></table>";
  }
}

function* htmlChunks({ report, analysis }: ReportRun): Generator<ReportChunk> {
  const indexOf = new Map(report.checks.map((record, index) => [record, index]));
  const anchors = new Map<string, number>();
  report.checks.forEach((record, index) => {
    const key = causeKey(record.endpoint, record.check, record.case);
    if (record.status === "failed" && !anchors.has(key)) anchors.set(key, index);
  });
  const lookups: Lookups = {
    exchanges: new Map(report.exchanges.map((e) => [e.id, e])),
    callbacks: new Map(report.callbacks.map((c) => [c.id, c])),
    anchors,
  };
  const verdictClass = report.verdict.replace(" ", "-");
  // A merchant's receiver: its checks are grouped by what was sent, not by endpoint.
  const receiver = report.subject === "receiver";
  const summaryRows = report.summary
    .map(
      (
        entry,
      ) => `<tr><td><a href="#${encodeURIComponent(entry.endpoint)}">${escapeHtml(entry.endpoint)}</a></td>
<td class="num">${entry.score === null ? "–" : `${entry.score}%`}</td><td><div class="bar"><span style="width:${entry.score ?? 0}%"></span></div></td>
<td class="num passed">${entry.passed}</td><td class="num${entry.failed > 0 ? " failed" : ""}">${entry.failed}</td><td class="num noteval">${entry.notEvaluated}</td><td class="num skipped">${entry.skipped}</td><td class="num advisory">${entry.advisories ?? 0}</td></tr>`,
    )
    .join("\n");
  // A container that never got ready is the whole story of the run: its section goes first.
  const containerFailed = report.targetContainer?.readyAfterMs === null;
  const errors =
    report.errors.length > 0
      ? `<div class="errors"><b>The run could not judge everything:</b><ul>${report.errors.map((e) => `<li>${escapeHtml(e)}</li>`).join("")}</ul></div>`
      : "";
  const warnings =
    report.warnings.length > 0
      ? `<div class="warnings"><b>Warnings:</b><ul>${report.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul></div>`
      : "";
  const { totals } = report;
  // Section by section, the checks and callbacks one at a time (see timelines and sections).
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>h2h-certify: ${escapeHtml(report.verdict)} · ${escapeHtml(report.target.baseUrl)}</title>
<style>${CSS}${EXTRAS_CSS}</style></head><body><main>
${report.alarm ? `<div class="alarm" role="alert"><b>Most serious failure:</b> ${escapeHtml(report.alarm)}</div>` : ""}
<h1>${report.subject === "receiver" ? "Webhook receiver certification" : "H2H pay-in API certification"}</h1>
<p><span class="verdict ${verdictClass}">${escapeHtml(report.verdict.toUpperCase())}</span>${report.partial ? ` ${escapeHtml(partialLine(report.partial))}` : ""}</p>
<p class="meta">Target <code>${escapeHtml(report.target.baseUrl)}</code>${report.target.reference ? ` (bundled reference ${receiver ? "receiver" : "provider"})` : ""}${
    report.targetContainer
      ? ` (a container of <code>${escapeHtml(report.targetContainer.imageRun)}</code>, <a href="#target-container">its log</a>)`
      : ""
  } ·
profile <code>${escapeHtml(report.target.profileName)}</code>${report.target.profilePath ? ` (${escapeHtml(report.target.profilePath)})` : ""} · run <code>${escapeHtml(report.runId)}</code> ·
${escapeHtml(report.startedAt)} · ${(report.durationMs / 1000).toFixed(1)} s · ${escapeHtml(report.tool.name)} ${escapeHtml(report.tool.version)}</p>
${report.target.tls ? `<p class="meta">TLS: ${tlsSummaryLines(report.target.tls).map(escapeHtml).join(" · ")}</p>` : ""}
${report.rateLimitWaits ? `<p class="meta">${escapeHtml(rateLimitWaitsLine(report.rateLimitWaits))}</p>` : ""}
${reconnectsLine(report.exchanges) ? `<p class="meta">${escapeHtml(reconnectsLine(report.exchanges) as string)}</p>` : ""}
${report.probes ? `<p class="meta">Generated inputs: ${escapeHtml(probeSettingsLine(report))}</p>` : ""}
<p>${totals.passed} passed, ${totals.failedRequired} failed, ${totals.notEvaluated} not evaluated, ${totals.skipped} skipped, ${totals.advisories ?? 0} advisories (never failures: <a href="#advisories">what the target did</a>);
${report.exchanges.length} exchanges and ${report.callbacks.length} callbacks recorded. Card numbers (all but the last 4 digits), CVCs, API keys, callback secrets, the client key's passphrase and the sink's token are masked.</p>
${errors}
${warnings}
${containerFailed ? targetContainerSection(report.targetContainer) : ""}
`;
  yield `${failuresSection(analysis.failuresByRule, indexOf)}
`;
  yield `${baselineSection(report.baseline)}
<h2>Conformance by ${receiver ? "group" : "endpoint"}</h2>
<table><thead><tr><th>${receiver ? "Group" : "Endpoint"}</th><th>Score</th><th></th><th>Passed</th><th>Failed</th><th>Not evaluated</th><th>Skipped</th><th>Advisories</th></tr></thead><tbody>
${summaryRows}
</tbody></table>
`;
  yield `${advisoriesSection(analysis.advisoriesByRule, indexOf)}
`;
  yield* timelines(report, lookups);
  yield "\n";
  yield* sections(report, indexOf, lookups);
  yield `
${containerFailed ? "" : targetContainerSection(report.targetContainer)}
</main></body></html>
`;
}

export const htmlWriter: ReportWriter = {
  kind: "html",
  fileName: REPORT_FILES.html,
  format: "markup",
  chunks: htmlChunks,
};
