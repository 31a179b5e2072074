import { describe, expect, it } from "vitest";
import type { RecordedExchange } from "../../contract/index.ts";
import type { CheckRecord } from "../engine/run-model.ts";
import { markFollowOnFailures } from "./follow-on-failures.ts";

const BASE = "http://127.0.0.1:9/api/v1";
let clock = Date.parse("2026-01-01T00:00:00.000Z");

/** An exchange sent one second after the one before. */
function exchange(id: string, path: string, body: string, status: number): RecordedExchange {
  clock += 1000;
  return {
    id,
    source: "test",
    startedAt: new Date(clock).toISOString(),
    durationMs: 5,
    request: { method: "POST", url: `${BASE}${path}`, headers: {}, body },
    response: { status, headers: {}, body: "{}", json: {} },
  } as unknown as RecordedExchange;
}

function failure(check: string, subject: string, exchanges: string[], caseName?: string): CheckRecord {
  return {
    endpoint: "e",
    check,
    ...(caseName ? { case: caseName } : {}),
    rule: "",
    status: "failed",
    required: true,
    detail: "",
    durationMs: 0,
    exchanges,
    source: "test",
    subject,
  };
}

describe("failures that follow from an earlier one", () => {
  it("follow a wrong code accepted: on its own order, and where the same step moved another order", () => {
    const created = exchange("c1", "/payin/mobile-commerce/h2h", "{}", 200);
    const wrong = exchange("w1", "/orders/o1/mobile-commerce-confirm/h2h", '{"code":"0000"}', 200);
    const right = exchange("r1", "/orders/o1/mobile-commerce-confirm/h2h", '{"code":"1111"}', 409);
    const created2 = exchange("c2", "/payin/mobile-commerce/h2h", "{}", 200);
    const wrong2 = exchange("w2", "/orders/o2/mobile-commerce-confirm/h2h", '{"code":"0000"}', 200);
    const right2 = exchange("r2", "/orders/o2/mobile-commerce-confirm/h2h", '{"code":"1111"}', 409);
    const root = failure("behaviour.rejects-wrong-code", "w1", ["c1", "w1"]);
    const markers = failure("envelope.failure-markers", "w1", ["w1"]);
    const sameOrder = failure("behaviour.confirmable-after-wrong-code", "r1", ["c1", "w1", "r1"]);
    const otherOrder = failure("behaviour.confirmable-after-wrong-code", "r2", ["c2", "w2", "r2"], "pair");
    const checks = [root, markers, sameOrder, otherOrder];
    expect(markFollowOnFailures(checks, [created, wrong, right, created2, wrong2, right2])).toBe(3);
    expect(root.followsFrom).toBeUndefined();
    for (const record of [markers, sameOrder, otherOrder])
      expect(record.followsFrom).toEqual({ endpoint: "e", check: "behaviour.rejects-wrong-code" });
  });

  it("never pin an independent failure on a cause it merely shares a request shape with", () => {
    // A near-miss key accepted on a confirm with the right code: the same request every order sends.
    const nearMiss = exchange("k1", "/orders/o1/mobile-commerce-confirm/h2h", '{"code":"1111"}', 200);
    const created = exchange("c2", "/payin/mobile-commerce/h2h", "{}", 200);
    const confirm = exchange("f2", "/orders/o2/mobile-commerce-confirm/h2h", '{"code":"1111"}', 200);
    const key = failure("behaviour.rejects-near-miss-api-key", "k1", ["k1"], "a character added");
    // A status answered wrong on one order's confirm explains nothing on another order.
    const status = failure("semantics.status-after-operation", "k1", ["k1"]);
    const callback = failure("callbacks.matches-order", "f2", ["c2", "f2"]);
    const callbackOfSameShape = failure("callbacks.matches-order", "f2", ["k1", "c2", "f2"], "shared");
    expect(
      markFollowOnFailures([key, status, callback, callbackOfSameShape], [nearMiss, created, confirm]),
    ).toBe(1);
    expect(callback.followsFrom).toBeUndefined();
    // Only the very answer of the status failure, in its evidence, makes it a cause.
    expect(callbackOfSameShape.followsFrom?.check).toBe("semantics.status-after-operation");
  });

  it("leave a failure envelope's own fault alone when the request was refused, only otherwise", () => {
    const refused = exchange("x1", "/payin/mobile-commerce/h2h", "{}", 403);
    const pinned = failure("behaviour.rejects-wrong-api-key", "x1", ["x1"]);
    const rejection = failure("behaviour.rejects-missing-field", "x1", ["x1"]);
    const message = failure("envelope.failure-message", "x1", ["x1"]);
    expect(markFollowOnFailures([pinned, rejection, message], [refused])).toBe(0);
    expect(message.followsFrom).toBeUndefined();
  });
});
