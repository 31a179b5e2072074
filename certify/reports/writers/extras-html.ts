/**
 * The HTML report's sections for what a run may carry besides its checks: the target container
 * (H2H_TARGET_IMAGE) with its logs, and the changes since a baseline run (H2H_BASELINE_REPORT).
 */
import { escapeHtml } from "../../../contract/kit/index.ts";
import type { TargetContainerRecord } from "../../../run-setup/index.ts";
import type { CheckChange, RunComparison } from "../../analysis/compare.ts";

export const EXTRAS_CSS = `
.changes td.key{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.regressed{color:#b3261e;font-weight:600}.fixed{color:#1f7a3a;font-weight:600}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;background:#eef1f5;margin-right:6px}
.badge.bad{background:#fde7e4;color:#b3261e}.badge.good{background:#e3f4e8;color:#1f7a3a}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}dl.kv dt{color:#555}dl.kv dd{margin:0}
`;

function outcome(change: CheckChange, side: "before" | "after"): string {
  const result = change[side];
  return result === undefined ? '<span class="meta">absent</span>' : escapeHtml(result.outcome);
}

function changeTable(title: string, id: string, changes: CheckChange[], className: string): string {
  if (changes.length === 0) return "";
  const rows = changes
    .map(
      (c) =>
        `<tr><td class="key">${escapeHtml(c.key)}</td><td>${outcome(c, "before")}</td><td class="${className}">${outcome(c, "after")}</td><td>${escapeHtml(
          (c.after ?? c.before)?.detail.split("\n")[0] ?? "",
        )}</td></tr>`,
    )
    .join("\n");
  return `<h3 id="${id}">${escapeHtml(title)} (${changes.length})</h3>
<table class="changes"><thead><tr><th>Check</th><th style="width:90px">Before</th><th style="width:90px">Now</th><th>Finding now</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

export function baselineSection(comparison: RunComparison | undefined): string {
  if (!comparison) return "";
  const { previous } = comparison;
  const badge = (count: number, label: string, tone: string) =>
    `<span class="badge${count > 0 ? ` ${tone}` : ""}">${count} ${label}</span>`;
  return `<h2 id="since-baseline">Changes since the baseline run</h2>
<p class="meta">Baseline (H2H_BASELINE_REPORT): run <code>${escapeHtml(previous.runId)}</code> of ${escapeHtml(previous.startedAt)},
${escapeHtml(previous.verdict)}, target <code>${escapeHtml(previous.baseUrl)}</code> (${escapeHtml(previous.source)}).
A check is the same check when its endpoint, name and case are the same.</p>
<p>${badge(comparison.regressions.length, "regression(s)", "bad")}${badge(comparison.fixes.length, "fix(es)", "good")}${badge(
    comparison.added.length,
    "new",
    "",
  )}${badge(comparison.removed.length, "removed", "")}${badge(comparison.changed.length, "other change(s)", "")}<span class="meta">${
    comparison.unchangedCount
  } unchanged</span></p>
${changeTable("Regressions: passed then, failed now", "regressions", comparison.regressions, "regressed")}
${changeTable("Fixes: failed then, passed now", "fixes", comparison.fixes, "fixed")}
${changeTable("New checks", "new-checks", comparison.added, "")}
${changeTable("Removed checks", "removed-checks", comparison.removed, "")}
${changeTable("Other changes", "other-changes", comparison.changed, "")}`;
}

export function targetContainerSection(record: TargetContainerRecord | undefined): string {
  if (!record) return "";
  const environment = Object.entries(record.environment)
    .map(([name, value]) => `${name}=${value}`)
    .join("\n");
  const omitted =
    record.logsOmittedChars > 0
      ? `<p class="meta">${record.logsOmittedChars} characters of the log's middle are left out.</p>`
      : "";
  return `<h2 id="target-container">Target container</h2>
<dl class="kv">
<dt>Image</dt><dd><code>${escapeHtml(record.imageRun)}</code>${record.imageRun !== record.image ? ` (asked for <code>${escapeHtml(record.image)}</code>)` : ""} · ${escapeHtml(record.imageOrigin)} image</dd>
<dt>Container</dt><dd><code>${escapeHtml(record.containerId?.slice(0, 12) ?? "(not created)")}</code> · ${escapeHtml(record.network)} network · PORT=${record.port}</dd>
<dt>Readiness</dt><dd>${escapeHtml(record.readiness)} · ${
    record.readyAfterMs === null
      ? `<span class="failed">not ready within ${record.startupTimeoutS} s</span>`
      : `ready after ${(record.readyAfterMs / 1000).toFixed(1)} s`
  }</dd>
<dt>Ran</dt><dd>${escapeHtml(record.startedAt)} → ${escapeHtml(record.stoppedAt ?? "?")}${
    record.exitCode === undefined ? "" : ` · exit code ${record.exitCode ?? "unknown"}`
  }</dd>
</dl>
<details><summary>Environment (${Object.keys(record.environment).length} variables)</summary><pre>${escapeHtml(environment)}</pre></details>
<details open><summary>Logs (stdout and stderr, masked)</summary>${omitted}<pre>${escapeHtml(
    record.logs || "(no output)",
  )}</pre></details>`;
}
