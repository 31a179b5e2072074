import { describe, expect, it } from "vitest";
import type { RecordedExchange } from "../../contract/index.ts";
import type { CheckRecord } from "../engine/run-model.ts";
import { resolveRootCauses } from "./root-causes.ts";

const record = (over: Partial<CheckRecord>): CheckRecord => ({
  endpoint: "lifecycle (mobile commerce)",
  check: "callbacks.follow-lifecycle",
  rule: "",
  status: "passed",
  required: true,
  detail: "",
  durationMs: 0,
  exchanges: [],
  source: "lifecycle.spec.ts",
  ...over,
});

it("explains a check not evaluated by a failure on another endpoint it names, and only by one", () => {
  const clock = record({
    endpoint: "callbacks (mobile commerce)",
    check: "callbacks.sandbox-clock",
    status: "failed",
  });
  const waiting = record({
    status: "not evaluated",
    blockedBy: { check: "callbacks.sandbox-clock", reason: "the clock failed", endpoint: clock.endpoint },
  });
  expect(resolveRootCauses([clock, waiting], [], { informationalChecks: {} }).unexplained).toEqual([]);
  // Without that failure in the report, nothing explains it.
  expect(resolveRootCauses([waiting], [], { informationalChecks: {} }).unexplained).toHaveLength(1);
});

describe("a refused creation, whatever the answer's shape", () => {
  const envelope = (status: string, codeError: string) =>
    JSON.stringify({
      data: null,
      result: { codeError, message: "method not allowed", status, "x-request-id": "r" },
    });
  const SHAPES: [string, number, string, string][] = [
    ["an error envelope, HTTP 400", 400, "application/json", envelope("failure", "validation_error")],
    ["a 2xx with an error", 200, "application/json", envelope("failure", "validation_error")],
    ["an HTML page, HTTP 502", 502, "text/html", "<html><body>Bad gateway</body></html>"],
    ["an empty body, HTTP 500", 500, "text/plain", ""],
    ["plain text, HTTP 404", 404, "text/plain", "not found"],
  ];
  const creation = (id: string, status: number, type: string, body: string, atMs = 0): RecordedExchange => {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    return {
      id,
      source: "lifecycle",
      operation: "createMobileCommerceOrder",
      startedAt: new Date(Date.parse("2026-01-01T00:00:00.000Z") + atMs).toISOString(),
      durationMs: 1,
      request: {
        method: "POST",
        url: "http://127.0.0.1:1/api/v1/payin/mobile-commerce/h2h",
        headers: {},
        body: "{}",
      },
      response: { status, headers: { "content-type": type }, body, json },
    };
  };

  it.each(SHAPES)(
    "%s: the refusal fails once; the checks that needed the order are not evaluated, pointing at it",
    (_shape, status, type, body) => {
      const first = creation("lifecycle-1", status, type, body);
      const duplicate = creation("lifecycle-2", status, type, body, 10);
      const endpoint = "createMobileCommerceOrder";
      const records = [
        record({
          endpoint,
          check: "fields.order-record",
          status: "failed",
          subject: first.id,
          exchanges: [first.id],
        }),
        record({
          endpoint,
          check: "semantics.amount-echoed",
          status: "failed",
          subject: first.id,
          exchanges: [first.id],
        }),
        record({
          endpoint,
          check: "behaviour.rejects-duplicate-merchant-order-id",
          status: "failed",
          detail: "refused, but HTTP 400, the profile pins 409",
          subject: duplicate.id,
          exchanges: [first.id, duplicate.id],
        }),
        record({
          endpoint,
          check: "behaviour.concurrent-creations-one-accepted",
          status: "failed",
          detail: "0 of 2 accepted, expected exactly one",
          exchanges: [first.id, duplicate.id],
        }),
      ];
      const { records: out, unexplained } = resolveRootCauses(records, [first, duplicate], {
        informationalChecks: {},
      });
      const failed = out.filter((r) => r.status === "failed");
      expect(failed.map((r) => r.check)).toHaveLength(1);
      const [root] = failed;
      expect(["envelope.shape", "envelope.success-markers"]).toContain(root?.check);
      expect(root?.subject).toBe(first.id);
      for (const waiting of out.filter((r) => r !== root)) {
        expect(waiting.status, waiting.check).toBe("not evaluated");
        expect(waiting.blockedBy).toMatchObject({ check: root?.check, exchange: first.id });
        expect(waiting.detail).toMatch(/^not evaluated, because /);
        expect(waiting.detail).not.toContain("pins 409");
      }
      expect(unexplained).toEqual([]);
    },
  );

  it("does not blame a duplicate across kinds for the refusal every such creation gets", () => {
    const refused = envelope("failure", "validation_error");
    const needed = creation("lifecycle-1", 400, "application/json", refused);
    const quasi = {
      ...creation(
        "quasi-1",
        200,
        "application/json",
        JSON.stringify({
          data: { id: "o-1" },
          result: { codeError: "none", message: null, status: "success", "x-request-id": "q" },
        }),
      ),
      operation: "createQuasiEcomOrder" as const,
    };
    const duplicate = creation("quasi-2", 400, "application/json", refused, 10);
    const records = [
      record({
        check: "behaviour.confirms",
        status: "not evaluated",
        blockedBy: { check: "x", exchange: needed.id, reason: "its order was not made" },
      }),
      record({
        endpoint: "createQuasiEcomOrder",
        check: "behaviour.rejects-duplicate-merchant-order-id",
        case: "across order kinds",
        status: "failed",
        detail: "refused, but HTTP 400, the profile pins 409",
        subject: duplicate.id,
        exchanges: [quasi.id, duplicate.id],
      }),
    ];
    const { records: out } = resolveRootCauses(records, [needed, quasi, duplicate], {
      informationalChecks: {},
    });
    const across = out.find((r) => r.case === "across order kinds");
    expect(across?.status).toBe("not evaluated");
    expect(across?.blockedBy).toMatchObject({ check: "envelope.success-markers", exchange: needed.id });
  });

  it("leaves orders sent at once alone: a duplicate refused beside an accepted one is no setup", () => {
    const accepted = JSON.stringify({
      data: { id: "o-1" },
      result: { codeError: "none", message: null, status: "success", "x-request-id": "a" },
    });
    const refused = envelope("failure", "duplicate_merchant_order_id");
    const burst = [
      creation("races-1", 409, "application/json", refused),
      creation("races-2", 200, "application/json", accepted),
      creation("races-3", 200, "application/json", accepted),
    ];
    const race = record({
      endpoint: "createMobileCommerceOrder",
      check: "behaviour.concurrent-creations-one-accepted",
      status: "failed",
      detail: "2 of 3 accepted, expected exactly one",
      exchanges: burst.map((e) => e.id),
    });
    const { records: out } = resolveRootCauses([race], burst, { informationalChecks: {} });
    expect(out).toEqual([expect.objectContaining({ check: race.check, status: "failed" })]);
  });

  it("leaves a refusal's side effect failed: the provoked refusal is its setup, the refused retry its evidence", () => {
    const duplicate = envelope("failure", "duplicate_merchant_order_id");
    const broken = creation("lifecycle-1", 400, "application/json", envelope("failure", "validation_error"));
    const retry = creation("lifecycle-2", 409, "application/json", duplicate, 5);
    // Another step's creation answered the same way, which makes that answer a needed refusal.
    const other = creation("races-1", 409, "application/json", duplicate, 10);
    // The target makes such orders: the refused retry is evidence of the refusal's effect.
    const made = creation(
      "mobile-1",
      200,
      "application/json",
      JSON.stringify({
        data: { id: "o-1" },
        result: { codeError: "none", message: null, status: "success", "x-request-id": "m" },
      }),
    );
    const sideEffect = record({
      endpoint: "createMobileCommerceOrder",
      check: "behaviour.refusal-changes-nothing",
      status: "failed",
      detail: "the corrected creation with the refused merchantOrderID was refused: HTTP 409",
      subject: retry.id,
      exchanges: [broken.id, retry.id],
    });
    const blocked = record({
      endpoint: "createMobileCommerceOrder",
      check: "fields.order-record",
      status: "failed",
      detail: "no data",
      subject: other.id,
      exchanges: [other.id],
    });
    const { records: out } = resolveRootCauses(
      [sideEffect, blocked].map((r) => structuredClone(r)),
      [broken, retry, other, made],
      { informationalChecks: {} },
    );
    expect(out).toEqual(
      expect.arrayContaining([expect.objectContaining({ check: sideEffect.check, status: "failed" })]),
    );
    // A target that made no such order in the whole run refuses the retry as it refuses them all:
    // the side effect waits on that refusal, pointed at, not failed.
    const { records: refusing, unexplained } = resolveRootCauses(
      [structuredClone(sideEffect)],
      [broken, retry, other],
      { informationalChecks: {} },
    );
    expect(refusing.find((r) => r.check === sideEffect.check)).toMatchObject({
      status: "not evaluated",
      blockedBy: { check: "envelope.success-markers", exchange: retry.id },
    });
    expect(refusing).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: "envelope.success-markers", status: "failed" }),
      ]),
    );
    expect(unexplained).toEqual([]);
  });

  it("leaves a rejection check alone: a refusal that is the step it judges is its evidence", () => {
    const refused = creation("derived-1", 400, "application/json", envelope("failure", "validation_error"));
    const rejection = record({
      endpoint: "createMobileCommerceOrder",
      check: "behaviour.rejects-missing-field",
      status: "failed",
      detail: "refused, but HTTP 400, the profile pins 422",
      subject: refused.id,
      exchanges: [refused.id],
    });
    const { records: out } = resolveRootCauses([rejection], [refused], { informationalChecks: {} });
    expect(out).toEqual([expect.objectContaining({ check: rejection.check, status: "failed" })]);
  });
});
