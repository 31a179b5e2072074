import { describe, expect, it } from "vitest";
import { CallbackTally, type StoredCallback } from "../../webhook-sink/index.ts";
import { analyseDelivery } from "./delivery.ts";

let seq = 0;
function callback(orderId: string, status: string, expected: string, sentAtMs: number, receivedAtMs: number) {
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
  } satisfies StoredCallback;
}

function delivery(
  callbacks: StoredCallback[],
  confirmed: Partial<Record<string, number>>,
  windowMs = 10_000,
) {
  const tally = new CallbackTally({ originMs: 0 });
  for (const c of callbacks) tally.add(c, 0.2);
  return analyseDelivery(
    tally.summary("r", windowMs),
    { succeeded: 0, failed_by_terminal: 0, succeeded_by_appeal: 0, ...confirmed },
    tally.intakeSummary(),
    tally.samples,
  );
}

describe("callback delivery under load", () => {
  it("joins k6's confirmed orders per final status with what the sink got: on time, late, missing", () => {
    const report = delivery(
      [
        callback("a", "succeeded", "succeeded", 1000, 1200),
        callback("b", "failed_by_terminal", "succeeded_by_appeal", 1000, 1250),
        callback("b", "succeeded_by_appeal", "succeeded_by_appeal", 1000, 1500),
        callback("c", "failed_by_terminal", "failed_by_terminal", 2000, 2300),
        callback("c", "failed_by_terminal", "failed_by_terminal", 2000, 2900),
        callback("d", "expired", "succeeded", 3000, 33_000),
        callback("e", "succeeded", "succeeded", 3000, 15_000),
      ],
      { succeeded: 3, failed_by_terminal: 1, succeeded_by_appeal: 2 },
    );
    expect(report).toMatchObject({
      confirmed: 6,
      delivered: 4,
      onTime: 3,
      late: 1,
      missing: 2,
      ratio: 0.5,
      duplicates: 1,
      outOfOrder: 0,
      unexpectedStatuses: { expired: 1 },
    });
    expect(report.byFinal).toEqual([
      expect.objectContaining({
        final: "succeeded",
        confirmed: 3,
        delivered: 2,
        late: 1,
        missing: 1,
        duplicates: 0,
      }),
      expect.objectContaining({ final: "failed_by_terminal", confirmed: 1, delivered: 1, duplicates: 1 }),
      expect.objectContaining({
        final: "succeeded_by_appeal",
        confirmed: 2,
        delivered: 1,
        missing: 1,
        outOfOrder: 0,
      }),
    ]);
    expect(report.latencyMs).toEqual({ p50: 300, p95: 12_000, p99: 12_000, max: 12_000 });
    expect(report.sink).toMatchObject({ callbacks: 7 });
  });

  it("counts an appeal before its failure as out of order, against the appeal", () => {
    const report = delivery(
      [
        callback("b", "succeeded_by_appeal", "succeeded_by_appeal", 0, 300),
        callback("b", "failed_by_terminal", "succeeded_by_appeal", 0, 400),
      ],
      { succeeded_by_appeal: 1 },
    );
    expect(report.byFinal[2]).toMatchObject({ delivered: 1, outOfOrder: 1 });
    expect(report.outOfOrder).toBe(1);
    expect(report.samples.map((s) => s.reason)).toEqual(["succeeded_by_appeal before failed_by_terminal"]);
  });

  it("is 100 % when every confirmed order's callback came in time, and 1 when nothing was confirmed", () => {
    expect(delivery([callback("a", "succeeded", "succeeded", 0, 10)], { succeeded: 1 }).ratio).toBe(1);
    expect(delivery([], {}).ratio).toBe(1);
    expect(delivery([], { succeeded: 3 }).ratio).toBe(0);
  });
});
