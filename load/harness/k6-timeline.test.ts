/**
 * The reader of k6's web dashboard record, on records a real k6 v1.3.0 wrote. The strongest check
 * that the values are matched to the right metric names: each endpoint's requests summed over the
 * periods equal k6's own end-of-test count for it, and the business errors by code equal k6's total.
 */
import { readFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { parseSetting } from "../../run-setup/index.ts";
import type { K6Summary } from "../lib/summary.ts";
import {
  businessErrorsByCode,
  loadSeriesOf,
  parseK6Timeline,
  TIMELINE_POINTS,
  TimelineFormatError,
  timelinePeriodSeconds,
} from "./k6-timeline.ts";

const record = (name: string) =>
  readFileSync(new URL(`fixtures/${name}.timeline.ndjson.gz`, import.meta.url));
const summary = (name: string) =>
  JSON.parse(readFileSync(new URL(`fixtures/${name}.summary.json`, import.meta.url), "utf8")) as K6Summary;

describe("k6 web dashboard record", () => {
  it("gives one period per dashboard period, each stamped, with per-endpoint submetrics", () => {
    const timeline = parseK6Timeline(record("mixed-smoke-shares"));
    expect(timeline.periodMs).toBe(1000);
    expect(timeline.periods.length).toBeGreaterThanOrEqual(29);
    const times = timeline.periods.map((p) => p.timeMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThan(900);
    const busy = timeline.periods.find((p) => p.metrics["http_req_duration{name:createMobileCommerceOrder}"]);
    expect(busy?.metrics["http_req_duration{name:createMobileCommerceOrder}"]).toMatchObject({
      "p(95)": expect.any(Number),
      med: expect.any(Number),
    });
  });

  // These two runs' records end with a period of 14 ms and 8 ms holding one request each: once
  // plotted as 71 and 125 requests/s in a 2 orders/s smoke.
  it.each(["mixed-amount-as-string", "quasi-ecom-wrong-key"])(
    "%s: a last period a few ms long is no spike: every rate divides by a real width of at least half a period",
    (name) => {
      const timeline = parseK6Timeline(record(name));
      const tail = timeline.periods.at(-1);
      expect(tail?.durationMs).toBeLessThan(20);
      const series = loadSeriesOf(timeline);
      for (const width of series.durationMs) expect(width).toBeGreaterThanOrEqual(timeline.periodMs / 2);
      expect(series.timeMs.at(-1)).toBe(tail?.timeMs);
      // A smoke run sends at most 2 orders/s: one request per endpoint per order.
      for (const [endpoint, e] of Object.entries(series.endpoints))
        for (const rate of e.perSecond) expect(rate, endpoint).toBeLessThanOrEqual(4);
    },
  );

  it.each(["mixed-smoke-shares", "mixed-amount-as-string", "quasi-ecom-wrong-key"])(
    "%s: per-endpoint requests over the periods add up to k6's own count",
    (name) => {
      const series = loadSeriesOf(parseK6Timeline(record(name)));
      const k6 = summary(name);
      const endpoints = Object.keys(series.endpoints);
      expect(endpoints.length).toBeGreaterThan(0);
      for (const endpoint of endpoints) {
        const total = (series.endpoints[endpoint]?.perSecond ?? []).reduce(
          (a, b, i) => a + (b * (series.durationMs[i] ?? 0)) / 1000,
          0,
        );
        expect(Math.round(total), endpoint).toBe(
          k6.metrics[`http_req_duration{name:${endpoint}}`]?.values.count,
        );
      }
      const confirmed = series.confirmed.reduce((a, b) => a + b, 0);
      const k6Confirmed = Object.entries(k6.metrics)
        .filter(([metric]) => metric.startsWith("h2h_confirmed_"))
        .reduce((sum, [, m]) => sum + (m.values.count ?? 0), 0);
      expect(confirmed).toBe(k6Confirmed);
    },
  );

  it("gives business errors by code, adding up to k6's total", () => {
    const timeline = parseK6Timeline(record("quasi-ecom-wrong-key"));
    const byCode = businessErrorsByCode(timeline);
    expect(byCode).toEqual({
      unauthorized: summary("quasi-ecom-wrong-key").metrics.h2h_business_errors?.values.count,
    });
    expect(loadSeriesOf(timeline).businessErrors.reduce((a, b) => a + b, 0)).toBe(byCode.unauthorized);
    expect(businessErrorsByCode(parseK6Timeline(record("mixed-smoke-shares")))).toEqual({});
  });

  it("shows checks failing over time when the target breaks the contract", () => {
    const series = loadSeriesOf(parseK6Timeline(record("mixed-amount-as-string")));
    expect(Math.max(...series.checksFailedShare.map((v) => v ?? 0))).toBeGreaterThan(0);
  });

  it("refuses a record whose values do not match its metrics, naming the line; survives a cut last line", () => {
    const text = gunzipSync(record("mixed-smoke-shares")).toString("utf8");
    const lines = text.trimEnd().split("\n");
    const index = lines.findIndex((line) => line.startsWith('{"event":"snapshot"'));
    const broken = JSON.parse(lines[index] as string) as { event: string; data: unknown[] };
    broken.data.pop();
    const misaligned = [...lines.slice(0, index), JSON.stringify(broken), ...lines.slice(index + 1)].join(
      "\n",
    );
    expect(() => parseK6Timeline(gzipSync(misaligned))).toThrow(TimelineFormatError);
    expect(() => parseK6Timeline(gzipSync(misaligned))).toThrow(
      new RegExp(`line ${index + 1}: ${broken.data.length} values for ${broken.data.length + 1} metrics`),
    );
    const whole = parseK6Timeline(text);
    const cut = parseK6Timeline(text.trimEnd().slice(0, -10));
    expect(cut.periods.length).toBeGreaterThanOrEqual(whole.periods.length - 1);
    expect(cut.periods).toEqual(whole.periods.slice(0, cut.periods.length));
  });

  it("sizes the period so a run of any length has at most TIMELINE_POINTS periods", () => {
    expect(timelinePeriodSeconds(30)).toBe(1);
    expect(timelinePeriodSeconds(600)).toBe(5);
    expect(timelinePeriodSeconds(24 * 3600)).toBe(720);
    for (const seconds of [1, 59, 600, 3601, 86_400]) {
      expect(Math.ceil(seconds / timelinePeriodSeconds(seconds))).toBeLessThanOrEqual(TIMELINE_POINTS);
    }
  });

  // Spaces around the value are trimmed, as for every setting; inside it, digits only.
  it("reads H2H_TIMELINE_POINTS as digits only, naming the variable and its range otherwise", () => {
    expect(parseSetting("timelinePoints", {})).toBe(TIMELINE_POINTS);
    expect(parseSetting("timelinePoints", { H2H_TIMELINE_POINTS: "250" })).toBe(250);
    for (const raw of ["0x64", "1e2", "1 00", "100.0", "9", "2001"]) {
      expect(() => parseSetting("timelinePoints", { H2H_TIMELINE_POINTS: raw })).toThrow(
        `H2H_TIMELINE_POINTS="${raw}": must be a whole number from 10 to 2000`,
      );
    }
  });
});
