/**
 * Inline SVG plots for the load report: line charts over time and a histogram, drawn here with
 * no library and no script, so the page stays one self-contained file that opens offline.
 * Each plot is an `<svg class="plot" data-plot=… data-points=…>` (how many data points it drew),
 * which is what the rendering test counts.
 */

const WIDTH = 880;
const HEIGHT = 260;
const MARGIN = { left: 64, right: 16, top: 52, bottom: 40 };
/** The legend's baseline, between the title and the plot. */
const LEGEND_Y = 38;
export const PALETTE = ["#1f6feb", "#d9480f", "#2f9e44", "#9c36b5", "#e8590c", "#0c8599", "#5c940d"];

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** About `count` round tick values covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step)
    ticks.push(Math.round(t * 1e6) / 1e6);
  return ticks;
}

const fmt = (n: number) =>
  Math.abs(n) >= 100 || Number.isInteger(n) ? String(Math.round(n)) : String(Number(n.toPrecision(3)));

export function fmtSeconds(s: number): string {
  if (s < 120) return `${Math.round(s)}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m${Math.round(s % 60) ? `${Math.round(s % 60)}s` : ""}`;
  return `${Math.floor(s / 3600)}h${Math.round((s % 3600) / 60)}m`;
}

export interface LineSeries {
  name: string;
  /** [x, y]; y null breaks the line. */
  points: [number, number | null][];
  dashed?: boolean;
}

export interface LineChart {
  id: string;
  title: string;
  yLabel: string;
  series: LineSeries[];
  /** x is seconds since the run's start. */
  xMax?: number;
  /** A horizontal reference line (a threshold). */
  reference?: { y: number; label: string };
}

function frame(id: string, title: string, points: number, body: string): string {
  return `<svg class="plot" data-plot="${escapeXml(id)}" data-points="${points}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-label="${escapeXml(title)}" xmlns="http://www.w3.org/2000/svg"><title>${escapeXml(title)}</title><text x="${MARGIN.left}" y="20" font-size="14" font-weight="600" fill="#1d2330">${escapeXml(title)}</text>${body}</svg>`;
}

function emptyPlot(id: string, title: string, why: string): string {
  return frame(
    id,
    title,
    0,
    `<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle" font-size="13" fill="#6b7280">${escapeXml(why)}</text>`,
  );
}

/** The horizontal grid lines of a plot, with their labels on the left. */
function yGridLines(yMax: number, y: (v: number) => number): string[] {
  return niceTicks(0, yMax).flatMap((tick) => [
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" stroke="#e5e7eb"/>`,
    `<text x="${MARGIN.left - 6}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#4b5563">${fmt(tick)}</text>`,
  ]);
}

export function lineChart(chart: LineChart, noDataReason = "no data"): string {
  const drawn = chart.series.map((s) => ({
    ...s,
    points: s.points.filter((p): p is [number, number] => p[1] !== null && Number.isFinite(p[1])),
  }));
  const total = drawn.reduce((n, s) => n + s.points.length, 0);
  if (total === 0) return emptyPlot(chart.id, chart.title, noDataReason);
  const xs = drawn.flatMap((s) => s.points.map((p) => p[0]));
  const ys = drawn.flatMap((s) => s.points.map((p) => p[1]));
  const xMax = Math.max(chart.xMax ?? 0, ...xs, 1);
  const dataMax = Math.max(...ys);
  // A threshold far above the data would flatten it: then it is named, not drawn.
  const reference =
    chart.reference && chart.reference.y <= Math.max(dataMax, Number.MIN_VALUE) * 3
      ? chart.reference
      : undefined;
  const yMax = Math.max(dataMax, reference?.y ?? 0) * 1.08 || 1;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (v: number) => MARGIN.left + (v / xMax) * plotW;
  const y = (v: number) => MARGIN.top + plotH - (v / yMax) * plotH;
  const parts: string[] = yGridLines(yMax, y);
  for (const tick of niceTicks(0, xMax, 8)) {
    parts.push(
      `<line x1="${x(tick).toFixed(1)}" x2="${x(tick).toFixed(1)}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH + 4}" stroke="#9ca3af"/>`,
      `<text x="${x(tick).toFixed(1)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle" font-size="11" fill="#4b5563">${fmtSeconds(tick)}</text>`,
    );
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#9ca3af"/>`,
    `<text x="14" y="${MARGIN.top + plotH / 2}" font-size="11" fill="#4b5563" transform="rotate(-90 14 ${MARGIN.top + plotH / 2})" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 6}" font-size="11" fill="#4b5563" text-anchor="middle">time since the start</text>`,
  );
  if (reference) {
    const ry = y(reference.y).toFixed(1);
    parts.push(
      `<line class="reference" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${ry}" y2="${ry}" stroke="#b3261e" stroke-dasharray="6 4"/>`,
      `<text x="${WIDTH - MARGIN.right - 4}" y="${Number(ry) - 4}" text-anchor="end" font-size="11" fill="#b3261e">${escapeXml(reference.label)}</text>`,
    );
  } else if (chart.reference) {
    parts.push(
      `<text x="${WIDTH - MARGIN.right}" y="20" text-anchor="end" font-size="11" fill="#6b7280">${escapeXml(chart.reference.label)}: far above the plot</text>`,
    );
  }
  drawn.forEach((series, index) => {
    const color = PALETTE[index % PALETTE.length] as string;
    // One path per unbroken run of points; a lone point gets a dot.
    const segments: [number, number][][] = [];
    let current: [number, number][] = [];
    for (const point of chart.series[index]?.points ?? []) {
      if (point[1] === null || !Number.isFinite(point[1])) {
        if (current.length > 0) segments.push(current);
        current = [];
      } else current.push([point[0], point[1]]);
    }
    if (current.length > 0) segments.push(current);
    for (const segment of segments) {
      if (segment.length === 1) {
        const [px, py] = segment[0] as [number, number];
        parts.push(`<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="2.5" fill="${color}"/>`);
      } else {
        const d = segment
          .map(([px, py], i) => `${i === 0 ? "M" : "L"}${x(px).toFixed(1)},${y(py).toFixed(1)}`)
          .join("");
        parts.push(
          `<path class="series" d="${d}" fill="none" stroke="${color}" stroke-width="1.8"${series.dashed ? ' stroke-dasharray="4 3"' : ""}/>`,
        );
      }
    }
    const lx = MARGIN.left + index * 200;
    parts.push(
      `<rect x="${lx}" y="${LEGEND_Y - 4}" width="12" height="3" fill="${color}"/>`,
      `<text x="${lx + 16}" y="${LEGEND_Y}" font-size="11" fill="#1d2330">${escapeXml(series.name)}</text>`,
    );
  });
  return frame(chart.id, chart.title, total, parts.join(""));
}

export interface Histogram {
  id: string;
  title: string;
  /** Upper bound of each bucket, ascending. */
  upper: number[];
  /** Whether the buckets are log-scale (for the axis label). */
  log: boolean;
  counts: number[];
  unit: string;
  /** Vertical markers (percentiles). */
  markers: { at: number; label: string }[];
}

export function histogram(chart: Histogram, noDataReason = "no data"): string {
  const total = chart.counts.reduce((a, b) => a + b, 0);
  if (total === 0) return emptyPlot(chart.id, chart.title, noDataReason);
  // Only the buckets from the first to the last one holding anything.
  const first = chart.counts.findIndex((c) => c > 0);
  let last = chart.counts.length - 1;
  while (last > first && (chart.counts[last] ?? 0) === 0) last -= 1;
  const counts = chart.counts.slice(first, last + 1);
  const upper = chart.upper.slice(first, last + 1);
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const yMax = Math.max(...counts) * 1.1;
  const barW = plotW / counts.length;
  const y = (v: number) => MARGIN.top + plotH - (v / yMax) * plotH;
  const parts: string[] = yGridLines(yMax, y);
  counts.forEach((count, i) => {
    const bx = MARGIN.left + i * barW;
    parts.push(
      `<rect class="bar" x="${(bx + 1).toFixed(1)}" y="${y(count).toFixed(1)}" width="${Math.max(1, barW - 2).toFixed(1)}" height="${(MARGIN.top + plotH - y(count)).toFixed(1)}" fill="#1f6feb"><title>≤ ${fmt(upper[i] as number)} ${escapeXml(chart.unit)}: ${count}</title></rect>`,
    );
  });
  const labelEvery = Math.max(1, Math.ceil(counts.length / 10));
  upper.forEach((bound, i) => {
    if (i % labelEvery !== 0 && i !== upper.length - 1) return;
    parts.push(
      `<text x="${(MARGIN.left + (i + 1) * barW).toFixed(1)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle" font-size="11" fill="#4b5563">${fmt(bound)}</text>`,
    );
  });
  for (const marker of chart.markers) {
    const index = upper.findIndex((bound) => marker.at <= bound);
    if (index < 0) continue;
    const mx = (MARGIN.left + (index + 0.5) * barW).toFixed(1);
    parts.push(
      `<line x1="${mx}" x2="${mx}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#b3261e" stroke-dasharray="4 3"/>`,
      `<text x="${Number(mx) + 3}" y="${MARGIN.top + 10}" font-size="11" fill="#b3261e">${escapeXml(marker.label)}</text>`,
    );
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#9ca3af"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 6}" font-size="11" fill="#4b5563" text-anchor="middle">${escapeXml(chart.unit)} (bucket upper bound${chart.log ? ", log scale" : ""})</text>`,
    `<text x="14" y="${MARGIN.top + plotH / 2}" font-size="11" fill="#4b5563" transform="rotate(-90 14 ${MARGIN.top + plotH / 2})" text-anchor="middle">orders</text>`,
  );
  return frame(chart.id, chart.title, counts.filter((c) => c > 0).length, parts.join(""));
}
