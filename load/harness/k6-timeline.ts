/**
 * The run over time, from k6's own aggregation: k6's web dashboard (built into k6) aggregates
 * every sample per period and, with K6_WEB_DASHBOARD_RECORD, writes one event per period to a
 * gzipped NDJSON file. The harness picks the period so that a run has at most about
 * {@link TIMELINE_POINTS} of them, whatever its length: the file, and the series read from it,
 * stay bounded (no per-sample stream).
 *
 * The record's format (k6 v1.x, grafana/xk6-dashboard): lines of `{"event": name, "data": ...}`.
 *   param       the run's parameters, with `aggregates`: the value names per metric type
 *   metric      metrics seen for the first time: name → {type, contains}
 *   snapshot    one period: for every metric seen so far, in name order, its values (an empty
 *               array when the period had none), as `aggregates` lists them for its type
 *   cumulative  the same, since the start
 * Submetrics per tag value (`http_req_duration{name:X}`) come from K6_WEB_DASHBOARD_TAGS.
 */
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { TIMELINE_POINTS } from "../../run-setup/index.ts";
import {
  API_FAILED_METRIC,
  BUSINESS_ERRORS_METRIC,
  CONFIRMED_METRIC_PREFIX,
  REQUEST_KIND_TAG,
  TRANSPORT_ERRORS_METRIC,
  TRIGGER_NOTE_NAME,
} from "../lib/metric-names.ts";

/** Periods per run, about (H2H_TIMELINE_POINTS): the record and the plots stay this size however long the run. */
export { TIMELINE_POINTS };

/** The tags k6's dashboard aggregates per value: per endpoint, per business error code. */
export const TIMELINE_TAGS = ["name", "codeError", "errorCode", REQUEST_KIND_TAG] as const;

/** The dashboard period for a run of this many seconds: whole seconds, at most `points` periods. */
export function timelinePeriodSeconds(runSeconds: number, points = TIMELINE_POINTS): number {
  return Math.max(1, Math.ceil(runSeconds / points));
}

type MetricType = "counter" | "gauge" | "rate" | "trend";

const DEFAULT_AGGREGATES: Record<MetricType, string[]> = {
  counter: ["count", "rate"],
  gauge: ["value"],
  rate: ["rate"],
  trend: ["avg", "max", "med", "min", "p(90)", "p(95)", "p(99)"],
};

export class TimelineFormatError extends Error {}

/** One period: every metric with samples in it, by name, its values by aggregate name. */
export interface TimelinePeriod {
  /** End of the period, ms since the epoch (the dashboard's `time` gauge). */
  timeMs: number;
  /** Its length: the dashboard's period, or less for the last one. */
  durationMs: number;
  metrics: Record<string, Record<string, number>>;
}

export interface K6Timeline {
  periodMs: number;
  periods: TimelinePeriod[];
  /** Since the start, at the last period. */
  cumulative: Record<string, Record<string, number>>;
}

/** Reads the gzipped (or plain) NDJSON record of k6's web dashboard. */
export function parseK6Timeline(raw: Buffer | string): K6Timeline {
  const bytes = typeof raw === "string" ? Buffer.from(raw) : raw;
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8");
  const types = new Map<string, MetricType>();
  let names: string[] = [];
  let aggregates = DEFAULT_AGGREGATES;
  let periodMs = 0;
  const periods: TimelinePeriod[] = [];
  let cumulative: Record<string, Record<string, number>> = {};
  let stopMs: number | undefined;

  const decode = (data: unknown, line: number): Record<string, Record<string, number>> => {
    if (!Array.isArray(data) || data.length !== names.length) {
      throw new TimelineFormatError(
        `k6 web dashboard record, line ${line}: ${Array.isArray(data) ? data.length : "no"} values for ${names.length} metrics (an unknown k6 version?)`,
      );
    }
    const out: Record<string, Record<string, number>> = {};
    data.forEach((values, index) => {
      const name = names[index] as string;
      if (!Array.isArray(values) || values.length === 0) return;
      const keys = aggregates[types.get(name) ?? "counter"] ?? [];
      const entry: Record<string, number> = {};
      keys.forEach((key, i) => {
        const value = values[i];
        if (typeof value === "number") entry[key] = value;
      });
      out[name] = entry;
    });
    return out;
  };

  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let event: { event?: string; data?: unknown };
    try {
      event = JSON.parse(line) as { event?: string; data?: unknown };
    } catch {
      // The last line of a record cut short (k6 killed) is no reason to lose the rest.
      if (index >= lines.length - 2) break;
      throw new TimelineFormatError(`k6 web dashboard record, line ${index + 1}: not JSON`);
    }
    switch (event.event) {
      case "param": {
        const param = event.data as { period?: number; aggregates?: Partial<Record<MetricType, string[]>> };
        periodMs = typeof param.period === "number" ? param.period : periodMs;
        if (param.aggregates) aggregates = { ...DEFAULT_AGGREGATES, ...param.aggregates };
        break;
      }
      case "metric":
        for (const [name, info] of Object.entries((event.data ?? {}) as Record<string, { type?: string }>)) {
          types.set(name, (info.type ?? "counter") as MetricType);
        }
        names = [...types.keys()].sort(goStringOrder);
        break;
      case "snapshot": {
        const metrics = decode(event.data, index + 1);
        const timeMs = metrics.time?.value;
        if (timeMs !== undefined) periods.push({ timeMs, durationMs: periodMs, metrics });
        break;
      }
      case "stop": {
        const values = (event.data as unknown[] | undefined)?.[0];
        if (Array.isArray(values) && typeof values[0] === "number") stopMs = values[0];
        break;
      }
      case "cumulative":
        cumulative = decode(event.data, index + 1);
        break;
      default:
        break;
    }
  }
  const tail = tailPeriod(periods, cumulative, types, stopMs);
  if (tail) periods.push(tail);
  return { periodMs, periods, cumulative };
}

/**
 * The dashboard sends no snapshot for the last fraction of a period (k6 stops its flusher first);
 * its counts are in the final cumulative only. This adds them back as a last, shorter period, so
 * the series add up to k6's own totals (latencies and rates of that fraction stay unknown).
 */
function tailPeriod(
  periods: TimelinePeriod[],
  cumulative: Record<string, Record<string, number>>,
  types: Map<string, MetricType>,
  stopMs: number | undefined,
): TimelinePeriod | undefined {
  const last = periods.at(-1);
  if (last === undefined || stopMs === undefined || stopMs <= last.timeMs) return undefined;
  const metrics: Record<string, Record<string, number>> = {};
  const durationMs = stopMs - last.timeMs;
  for (const [name, values] of Object.entries(cumulative)) {
    if (types.get(name) !== "counter" || values.count === undefined) continue;
    const counted = periods.reduce((sum, p) => sum + (p.metrics[name]?.count ?? 0), 0);
    const rest = values.count - counted;
    if (rest > 0) metrics[name] = { count: rest, rate: rest / (durationMs / 1000) };
  }
  if (Object.keys(metrics).length === 0) return undefined;
  metrics.time = { value: stopMs };
  return { timeMs: stopMs, durationMs, metrics };
}

/** Go's sort.Strings order: by UTF-8 bytes (JavaScript's default sort compares UTF-16 units). */
function goStringOrder(a: string, b: string): number {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return Buffer.compare(left, right);
}

export async function readK6Timeline(path: string): Promise<K6Timeline | undefined> {
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
  return parseK6Timeline(raw);
}

/** What the report plots, per period: bounded by the number of periods. */
export interface LoadSeries {
  periodMs: number;
  /** Period ends, ms since the epoch, and their real lengths (a short last one is folded into the one before). */
  timeMs: number[];
  durationMs: number[];
  /** Per endpoint: p95 latency (ms) and requests per second, per period (null: no request then). */
  endpoints: Record<string, { p95Ms: (number | null)[]; perSecond: number[] }>;
  /** Share of failed requests, business errors (count), checks failed (share), per period. */
  failedShare: (number | null)[];
  businessErrors: number[];
  checksFailedShare: (number | null)[];
  /** Orders confirmed per period (the delivery denominators over time). */
  confirmed: number[];
  droppedIterations: number[];
  vus: (number | null)[];
}

const ENDPOINT_DURATION = /^http_req_duration\{name:([^}]+)\}$/;

/**
 * The periods as plotted: a last period shorter than half a period (the few ms between k6's last
 * snapshot and its stop) is folded into the one before, so that its one or two requests are not
 * drawn as a rate of a hundred per second. Counts keep adding up to k6's totals.
 */
export function plottedPeriods(timeline: K6Timeline): TimelinePeriod[] {
  const periods = timeline.periods;
  const last = periods.at(-1);
  const before = periods.at(-2);
  if (last === undefined || before === undefined || last.durationMs >= timeline.periodMs / 2) return periods;
  const metrics: TimelinePeriod["metrics"] = { ...before.metrics };
  for (const [name, values] of Object.entries(last.metrics)) {
    if (name === "time" || values.count === undefined) continue;
    const count = (before.metrics[name]?.count ?? 0) + values.count;
    metrics[name] = { ...before.metrics[name], count };
  }
  return [
    ...periods.slice(0, -2),
    { timeMs: last.timeMs, durationMs: before.durationMs + last.durationMs, metrics },
  ];
}

export function loadSeriesOf(recorded: K6Timeline): LoadSeries {
  const timeline = { ...recorded, periods: plottedPeriods(recorded) };
  const endpointNames = new Set<string>();
  for (const period of timeline.periods)
    for (const name of Object.keys(period.metrics)) {
      const match = ENDPOINT_DURATION.exec(name);
      if (match?.[1] && match[1] !== TRIGGER_NOTE_NAME) endpointNames.add(match[1]);
    }
  const seconds = (period: TimelinePeriod) => period.durationMs / 1000 || 1;
  const endpoints: LoadSeries["endpoints"] = {};
  for (const endpoint of [...endpointNames].sort()) {
    endpoints[endpoint] = {
      p95Ms: timeline.periods.map((p) => p.metrics[`http_req_duration{name:${endpoint}}`]?.["p(95)"] ?? null),
      // A period with no request of this endpoint had none per second (its p95 is unknown, not 0).
      perSecond: timeline.periods.map(
        (p) =>
          Math.round(((p.metrics[`http_reqs{name:${endpoint}}`]?.count ?? 0) / seconds(p)) * 1000) / 1000,
      ),
    };
  }
  const confirmedIn = (metrics: TimelinePeriod["metrics"]) =>
    Object.entries(metrics)
      .filter(([name]) => name.startsWith(CONFIRMED_METRIC_PREFIX) && !name.includes("{"))
      .reduce((sum, [, values]) => sum + (values.count ?? 0), 0);
  return {
    periodMs: timeline.periodMs,
    timeMs: timeline.periods.map((p) => p.timeMs),
    durationMs: timeline.periods.map((p) => p.durationMs),
    endpoints,
    // The API's requests only where the record has them apart (the sink's trigger notes left out).
    failedShare: timeline.periods.map(
      (p) => (p.metrics[API_FAILED_METRIC] ?? p.metrics.http_req_failed)?.rate ?? null,
    ),
    businessErrors: timeline.periods.map((p) => p.metrics[BUSINESS_ERRORS_METRIC]?.count ?? 0),
    checksFailedShare: timeline.periods.map((p) => {
      const rate = p.metrics.checks?.rate;
      return rate === undefined ? null : Math.round((1 - rate) * 10_000) / 10_000;
    }),
    confirmed: timeline.periods.map((p) => confirmedIn(p.metrics)),
    droppedIterations: timeline.periods.map((p) => p.metrics.dropped_iterations?.count ?? 0),
    vus: timeline.periods.map((p) => p.metrics.vus?.value ?? null),
  };
}

/** Requests with no answer by k6's error code over the whole run, from the dashboard's per-tag aggregation. */
export function transportErrorsByCode(timeline: K6Timeline): Record<string, number> {
  return countsByTag(timeline, `${TRANSPORT_ERRORS_METRIC}{errorCode:`);
}

/** Business errors by codeError over the whole run, from the dashboard's per-tag aggregation. */
export function businessErrorsByCode(timeline: K6Timeline): Record<string, number> {
  return countsByTag(timeline, `${BUSINESS_ERRORS_METRIC}{codeError:`);
}

function countsByTag(timeline: K6Timeline, prefix: string): Record<string, number> {
  const byCode: Record<string, number> = {};
  for (const [name, values] of Object.entries(timeline.cumulative)) {
    if (name.startsWith(prefix) && name.endsWith("}") && values.count !== undefined)
      byCode[name.slice(prefix.length, -1)] = values.count;
  }
  return byCode;
}
