import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { signCallbackBody } from "../contract/index.ts";
import { REFERENCE_SIGNATURE } from "../fixtures/providers/reference/index.ts";
import { startWebhookSink } from "./server.ts";
import type { StoredCallback } from "./store.ts";
import { CallbackTally, DurationHistogram, latencyHistogram, Timeline } from "./tally.ts";

let seq = 0;
function callback(
  orderId: string | null,
  status: string | null,
  expected: string | null,
  sentAtMs: number,
  receivedAtMs: number,
  extra: Partial<StoredCallback> = {},
): StoredCallback {
  return {
    seq: ++seq,
    receivedAt: new Date(receivedAtMs).toISOString(),
    receivedAtMs,
    method: "POST",
    path: "/callbacks/<token>/run/r",
    runId: "r",
    sentAtMs,
    expectedStatus: expected,
    headers: {},
    bodyBase64: "",
    json: null,
    contentType: "application/json",
    orderId,
    status,
    deliveryOfOrder: 1,
    signature: "valid",
    answeredWith: 200,
    ...extra,
  };
}

describe("callback tally: delivery per final status", () => {
  it("counts orders whose expected final callback came, with exact latency percentiles", () => {
    const tally = new CallbackTally({ originMs: 0 });
    for (let i = 0; i < 100; i++)
      tally.add(callback(`o${i}`, "succeeded", "succeeded", 1000, 1000 + i + 1), 0.1);
    const summary = tally.summary("r", 10_000);
    expect(summary.byExpected.succeeded).toMatchObject({
      delivered: 100,
      late: 0,
      latencyMs: { p50: 50, p95: 95, p99: 99, max: 100 },
    });
    expect(summary.latencyMs).toEqual({ p50: 50, p95: 95, p99: 99, max: 100 });
    expect(tally.delivered("r")).toBe(100);
  });

  // callbackMs counts from the request that triggers the callback, not from the order.
  it("judges lateness from the trigger note (the confirmation's answer), reporting order → callback apart", () => {
    const tally = new CallbackTally({ originMs: 0 });
    const t0 = 1_000_000;
    // A payer who thinks 5 s, a provider that calls back 50 ms after the confirmation: on time.
    tally.note("r", "think", t0, t0 + 5_020, "succeeded");
    tally.add(callback("think", "succeeded", "succeeded", t0, t0 + 5_070), 0.1);
    // A provider that calls back 6 s after the confirmation misses a 5 s callbackMs.
    tally.note("r", "slow", t0, t0 + 20, "succeeded");
    tally.add(callback("slow", "succeeded", "succeeded", t0, t0 + 6_020), 0.1);
    // No note came: judged from the order, the stricter bound.
    tally.add(callback("unnoted", "succeeded", "succeeded", t0, t0 + 5_070), 0.1);
    // Noted, never called back: a denominator the sink alone knows.
    tally.note("r", "lost", t0, t0 + 30, "failed_by_terminal");
    const summary = tally.summary("r", 5_000);
    expect(summary.byExpected.succeeded).toMatchObject({
      delivered: 3,
      late: 2,
      withoutTrigger: 1,
      triggerLatencyMs: { p50: 50, max: 6_000 },
      latencyMs: { max: 6_020 },
    });
    expect(summary.triggerLatencyMs).toEqual({ p50: 50, p95: 6_000, p99: 6_000, max: 6_000 });
    expect(summary.withoutTrigger).toBe(1);
    expect(summary.triggered).toEqual({ succeeded: 2, failed_by_terminal: 1 });
    // A repeated note changes nothing.
    tally.note("r", "think", t0, t0 + 9_000, "succeeded");
    expect(tally.summary("r", 5_000).byExpected.succeeded?.late).toBe(2);
  });

  it("tells duplicates, an appeal before its failure, another final status, and late arrivals apart", () => {
    const tally = new CallbackTally({ originMs: 0 });
    // a: delivered twice (a duplicate).
    tally.add(callback("a", "succeeded", "succeeded", 0, 300), 1);
    tally.add(callback("a", "succeeded", "succeeded", 0, 900), 1);
    // b: the failure, then its appeal: in order.
    tally.add(callback("b", "failed_by_terminal", "succeeded_by_appeal", 0, 250), 1);
    tally.add(callback("b", "succeeded_by_appeal", "succeeded_by_appeal", 0, 450), 1);
    // c: the appeal before its failure: out of order.
    tally.add(callback("c", "succeeded_by_appeal", "succeeded_by_appeal", 0, 400), 1);
    tally.add(callback("c", "failed_by_terminal", "succeeded_by_appeal", 0, 500), 1);
    // d: expired instead of succeeded.
    tally.add(callback("d", "expired", "succeeded", 0, 31_000), 1);
    // e: succeeded, 12 s after the order: late against a 10 s window.
    tally.add(callback("e", "succeeded", "succeeded", 0, 12_000), 1);
    const summary = tally.summary("r", 10_000);
    expect(summary.byStatus).toEqual({
      succeeded: { received: 3, duplicates: 1, outOfOrder: 0 },
      failed_by_terminal: { received: 2, duplicates: 0, outOfOrder: 0 },
      succeeded_by_appeal: { received: 2, duplicates: 0, outOfOrder: 1 },
      expired: { received: 1, duplicates: 0, outOfOrder: 0 },
    });
    expect(summary.byExpected.succeeded).toMatchObject({ delivered: 2, late: 1, otherFinal: { expired: 1 } });
    expect(summary.byExpected.succeeded_by_appeal).toMatchObject({ delivered: 2, late: 0, otherFinal: {} });
    expect(tally.samples.map((s) => s.reason)).toEqual([
      "duplicate succeeded",
      "succeeded_by_appeal before failed_by_terminal",
      "expired for an order expecting succeeded",
    ]);
  });

  it("keeps callbacks it cannot match apart, and a bounded sample of odd ones in full", () => {
    const tally = new CallbackTally({ originMs: 0, sampleLimit: 3 });
    tally.add(callback(null, "succeeded", "succeeded", 0, 10), 1);
    tally.add(callback("x", null, "succeeded", 0, 10), 1);
    tally.add(callback("y", "on_hold", "succeeded", 0, 10), 1);
    for (let i = 0; i < 10; i++)
      tally.add(callback(`z${i}`, "succeeded", "succeeded", 0, 10, { signature: "invalid" }), 1);
    const summary = tally.summary("r", 10_000);
    expect(summary.unmatched).toBe(3);
    expect(summary.signatures).toEqual({ valid: 3, invalid: 10 });
    expect(tally.samples).toHaveLength(3);
  });

  it("resolves a wait as soon as enough deliveries are in, or at the deadline", async () => {
    const tally = new CallbackTally();
    const waiting = tally.waitForDeliveries("r", 2, Date.now() + 5_000);
    tally.add(callback("a", "succeeded", "succeeded", Date.now(), Date.now()), 1);
    tally.add(callback("b", "succeeded", "succeeded", Date.now(), Date.now()), 1);
    expect(await waiting).toBe(2);
    const started = Date.now();
    expect(await tally.waitForDeliveries("r", 3, Date.now() + 100)).toBe(2);
    // Resolved at its deadline, not at the first wait's (5 s) or never.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("callback tally: bounded at any length", () => {
  it("keeps at most maxBuckets timeline buckets, widening them, and loses no count", () => {
    const timeline = new Timeline(0, 1_000, 120);
    for (let second = 0; second < 24 * 3600; second += 7) timeline.add(second * 1000, 2);
    const series = timeline.series();
    expect(series.counts.length).toBeLessThanOrEqual(120);
    expect(series.bucketMs).toBeGreaterThanOrEqual((24 * 3600 * 1000) / 120);
    expect(series.counts.reduce((a, b) => a + b, 0)).toBe(2 * Math.ceil((24 * 3600) / 7));
  });

  it("keeps one entry per order, not per callback, and a fixed-size summary", () => {
    const tally = new CallbackTally({ originMs: 0 });
    for (let i = 0; i < 20_000; i++) {
      tally.add(callback(`o${i % 2_000}`, "succeeded", "succeeded", 0, i), 0.05);
    }
    const summary = tally.summary("r", 10_000);
    expect(summary.byStatus.succeeded).toEqual({ received: 20_000, duplicates: 18_000, outOfOrder: 0 });
    expect(summary.byExpected.succeeded?.delivered).toBe(2_000);
    expect(JSON.stringify(summary).length).toBeLessThan(20_000);
    expect(tally.samples.length).toBeLessThanOrEqual(20);
    const intake = tally.intakeSummary();
    expect(intake.callbacks).toBe(20_000);
    expect(intake.peakPerSecond).toBe(1_000);
    expect(intake.timeline.counts.length).toBeLessThanOrEqual(120);
  });

  it("plots latencies in at most 40 buckets: linear for a narrow peak, log-scale for a long tail", () => {
    const narrow = latencyHistogram([1200, 1210, 1220, 1400, 1410]);
    expect(narrow.log).toBe(false);
    expect(narrow.counts).toHaveLength(40);
    expect(narrow.counts.reduce((a, b) => a + b, 0)).toBe(5);
    const wide = latencyHistogram([3, 10, 100, 1000, 30_000]);
    expect(wide.log).toBe(true);
    expect(wide.counts.reduce((a, b) => a + b, 0)).toBe(5);
    expect(wide.upperMs.at(-1)).toBeGreaterThanOrEqual(30_000);
    expect(latencyHistogram([])).toEqual({ upperMs: [], counts: [], log: false });
  });

  it("reads answer-time percentiles within 5 %", () => {
    const histogram = new DurationHistogram();
    for (let i = 1; i <= 1000; i++) histogram.add(i / 10);
    expect(histogram.percentile(50)).toBeGreaterThanOrEqual(50);
    expect(histogram.percentile(50)).toBeLessThanOrEqual(52.5);
    expect(histogram.percentile(99)).toBeLessThanOrEqual(100);
    expect(histogram.maxMs).toBe(100);
  });
});

describe("webhook sink in load-run mode", () => {
  it("tallies callbacks, verifies signatures and writes nothing to disk per callback", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "h2h-sink-tally-"));
    const tally = new CallbackTally();
    const sink = await startWebhookSink({
      dataDir,
      tally,
      secret: "s3cret",
      signature: REFERENCE_SIGNATURE,
      sync: false,
    });
    try {
      const url = `${sink.callbackUrl({ runId: "run-1", sentAtMs: Date.now() - 50, expectedStatus: "succeeded" })}`;
      for (let i = 0; i < 200; i++) {
        const body = JSON.stringify({ id: `order-${i}`, status: "succeeded" });
        const signature = signCallbackBody(Buffer.from(body), "s3cret", REFERENCE_SIGNATURE);
        const response = await request(url, {
          method: "POST",
          body,
          headers: { "content-type": "application/json", "x-signature": signature },
        });
        expect(response.statusCode).toBe(200);
        await response.body.text();
      }
      const summary = tally.summary("run-1", 10_000);
      expect(summary.byExpected.succeeded?.delivered).toBe(200);
      expect(summary.signatures).toEqual({ valid: 200 });
      expect(summary.latencyMs.p50).toBeGreaterThanOrEqual(50);
      expect(tally.intakeSummary().answerMs.max).toBeGreaterThan(0);
    } finally {
      await sink.stop();
    }
    const written = readdirSync(dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
    expect(written).toBe(0);
  });
});
