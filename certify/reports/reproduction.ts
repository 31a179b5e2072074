/**
 * How a failure of a generated or stateful probe is reproduced, as each report shows
 * it: the seed, the command that re-runs just that check, the minimal request, a copy-paste curl.
 */

import { rateLimitWaitsLine } from "../engine/preflight.ts";
import type { Reproduction } from "../engine/run-context.ts";
import { type CheckRecord, partialLine, type RunReport } from "../engine/run-model.ts";

/** The reproduction as plain lines (JUnit, console). */
export function reproductionLines(reproduction: Reproduction | undefined): string[] {
  if (!reproduction) return [];
  return [
    `reproduce: ${reproduction.command} (seed ${reproduction.seed})`,
    ...(reproduction.steps ?? []).map((step) => `  ${step}`),
    ...(reproduction.shrunk && reproduction.shrunk.length > 0
      ? [`  shrunk: ${reproduction.shrunk.join("; ")}`]
      : []),
    ...(reproduction.request !== undefined ? [`  minimal request: ${reproduction.request}`] : []),
    ...(reproduction.curl !== undefined ? [reproduction.curl] : []),
  ];
}

/** The reproduction as an HTML block, `escapeHtml` being the page's escaping. */
export function reproductionHtml(record: CheckRecord, escapeHtml: (text: string) => string): string {
  const r = record.reproduction;
  if (!r) return "";
  const list = (items: readonly string[] | undefined) =>
    items && items.length > 0
      ? `<ol>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join("")}</ol>`
      : "";
  return `<details open><summary>Reproduce: <code>${escapeHtml(r.command)}</code> · seed ${r.seed}</summary>${list(r.steps)}${
    r.shrunk && r.shrunk.length > 0 ? `<p class="meta">Shrunk: ${escapeHtml(r.shrunk.join("; "))}</p>` : ""
  }${r.request !== undefined ? `<p><b>Minimal request</b></p><pre>${escapeHtml(r.request)}</pre>` : ""}${
    r.curl !== undefined
      ? `<p><b>curl</b> (the key comes from <code>$H2H_API_KEY</code>)</p><pre>${escapeHtml(r.curl)}</pre>`
      : ""
  }</details>`;
}

/** The run's seed, depth and merchantOrderID prefix, as every report shows them; "" without them. */
export function probeSettingsLine(report: RunReport): string {
  const probes = report.probes;
  if (!probes) return "";
  return `seed ${probes.seed} · depth ${probes.depth} · merchantOrderID prefix ${probes.merchantOrderIdPrefix}${
    probes.only.length > 0 ? ` · only ${probes.only.join(", ")}` : ""
  } (npm run certify -- --seed ${probes.seed} sends the same generated requests)`;
}

/** The same as JUnit properties of a testsuite. */
export function probeProperties(report: RunReport, escapeXml: (text: string) => string): string[] {
  const probes = report.probes;
  if (!probes) return [];
  const property = (name: string, value: string) =>
    `      <property name="${escapeXml(name)}" value="${escapeXml(value)}"/>`;
  return [
    "    <properties>",
    property("h2h.seed", String(probes.seed)),
    property("h2h.depth", probes.depth),
    property("h2h.merchantOrderIdPrefix", probes.merchantOrderIdPrefix),
    ...(probes.only.length > 0 ? [property("h2h.only", probes.only.join(","))] : []),
    // CI must see a partial run and the target's 429s beside the testcases.
    ...(report.partial ? [property("h2h.partial", partialLine(report.partial))] : []),
    ...(report.rateLimitWaits ? [property("h2h.rateLimits", rateLimitWaitsLine(report.rateLimitWaits))] : []),
    "    </properties>",
  ];
}
