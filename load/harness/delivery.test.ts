import { describe, expect, it } from "vitest";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import { analyseDelivery, percentile } from "./delivery.ts";

let seq = 0;
function callback(
  orderId: string,
  status: string,
  expected: string,
  sentAtMs: number,
  receivedAtMs: number,
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
  };
}

describe("callback delivery under load", () => {
  it("counts distinct orders whose expected final callback arrived, and their latency from order to callback", () => {
    const callbacks = [
      callback("a", "succeeded", "succeeded", 1000, 1200),
      callback("b", "failed_by_terminal", "succeeded_by_appeal", 1000, 1250),
      callback("b", "succeeded_by_appeal", "succeeded_by_appeal", 1000, 1500),
      callback("c", "failed_by_terminal", "failed_by_terminal", 2000, 2300),
      callback("c", "failed_by_terminal", "failed_by_terminal", 2000, 2900),
      callback("d", "expired", "succeeded", 3000, 3100),
    ];
    const report = analyseDelivery(callbacks, 5);
    expect(report).toMatchObject({
      confirmed: 5,
      delivered: 3,
      ratio: 0.6,
      duplicates: 1,
      unexpectedStatuses: { expired: 1 },
    });
    expect(report.latencyMs).toEqual({ p50: 300, p95: 500, p99: 500, max: 500 });
  });

  it("is 100 % when every confirmed order's callback came, and 1 when nothing was confirmed", () => {
    expect(analyseDelivery([callback("a", "succeeded", "succeeded", 0, 10)], 1).ratio).toBe(1);
    expect(analyseDelivery([], 0).ratio).toBe(1);
    expect(analyseDelivery([], 3).ratio).toBe(0);
  });

  it("takes nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(values, 50), percentile(values, 95), percentile(values, 99)]).toEqual([50, 95, 99]);
    expect(percentile([], 50)).toBeNull();
  });
});
