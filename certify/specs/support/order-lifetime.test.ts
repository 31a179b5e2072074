import { describe, expect, it } from "vitest";
import type { Exchange } from "../../../contract/index.ts";
import { LIFETIME_SKEW_MARGIN_MS, mayHaveOutlived, refusedAfterLifetime } from "./order-lifetime.ts";

const CREATED_AT = Date.parse("2026-01-01T00:00:00.000Z");

/** An exchange sent `afterMs` after the creation, answered as `status` says. */
function exchange(afterMs: number, status: "accepted" | "expired" | "html" | "rate-limited"): Exchange {
  const envelope =
    status === "accepted"
      ? {
          data: { id: "o-1", status: "processing" },
          result: { codeError: "none", message: null, status: "success", "x-request-id": "r-1" },
        }
      : {
          data: null,
          result: {
            codeError: "invalid_order_state",
            message: "the order expired",
            status: "error",
            "x-request-id": "r-1",
          },
        };
  const httpStatus = { accepted: 200, expired: 409, html: 502, "rate-limited": 429 }[status];
  const body = status === "html" ? "<html>bad gateway</html>" : JSON.stringify(envelope);
  return {
    startedAt: new Date(CREATED_AT + afterMs).toISOString(),
    durationMs: 20,
    request: { method: "POST", url: "http://127.0.0.1/x", headers: {}, body: "{}" },
    response: {
      status: httpStatus,
      headers: { "content-type": status === "html" ? "text/html" : "application/json" },
      body,
      json: status === "html" ? undefined : JSON.parse(body),
    },
  };
}

const creation = exchange(0, "accepted");
const late = (afterMs: number, status: Parameters<typeof exchange>[1], lifetimeSeconds?: number, moved = 0) =>
  refusedAfterLifetime({
    lifetimeSeconds,
    movedAheadS: moved,
    creation,
    step: exchange(afterMs, status),
    what: "the right code was sent",
  });

describe("a step expected to be accepted, refused once its order's lifetime may have passed", () => {
  it("is not judged, its reason naming the declared lifetime and the time measured", () => {
    expect(late(5_800, "expired", 5)).toEqual({
      check: "lifecycle.order-lifetime",
      reason:
        "the order's declared lifetime (5 s) had passed when the right code was sent (answered 5.8 s after its creation): its refusal may be the expiry",
    });
    // Within the margin for the clocks' skew: the lifetime may have passed on the target's clock.
    expect(late(4_000, "expired", 5)?.reason).toMatch(
      /^the order's declared lifetime \(5 s\) had all but passed \(within the 1 s allowed for the clocks' skew\) when the right code was sent \(answered 4\.0 s after its creation\)/,
    );
  });

  it("is judged when sent well within the lifetime: a refusal of the right code then fails", () => {
    // wrong-code-locks-order refuses at once: the lifetime is far off.
    expect(late(50, "expired", 5)).toBeUndefined();
    // Answered (20 ms after it was sent) just before the margin.
    expect(late(5_000 - LIFETIME_SKEW_MARGIN_MS - 21, "expired", 5)).toBeUndefined();
  });

  it("is not judged when sent in time but answered after the lifetime: the target may have acted on it then", () => {
    const sentInTime = { ...exchange(1_000, "expired"), durationMs: 6_000 };
    expect(
      refusedAfterLifetime({
        lifetimeSeconds: 5,
        creation,
        step: sentInTime,
        what: "the right code was sent",
      })?.reason,
    ).toMatch(/had passed when the right code was sent \(answered 7\.0 s after its creation\)/);
  });

  it("is judged when no lifetime is declared, however late", () => {
    expect(late(600_000, "expired", undefined)).toBeUndefined();
  });

  it("is judged when it was accepted, or when its answer is unreadable or rate limited (judged as such)", () => {
    expect(late(9_000, "accepted", 5)).toBeUndefined();
    expect(late(9_000, "html", 5)).toBeUndefined();
    expect(late(9_000, "rate-limited", 5)).toBeUndefined();
  });

  it("is judged when the late answer is not the refusal an expired order gets: a 5xx, or another pinned error", () => {
    const step = exchange(9_000, "expired");
    const base = { lifetimeSeconds: 5, creation, what: "the right code was sent" };
    expect(refusedAfterLifetime({ ...base, step, expiredAnswer: { httpStatus: 409 } })).toBeDefined();
    expect(
      refusedAfterLifetime({ ...base, step, expiredAnswer: { httpStatus: 422, codeError: "invalid_code" } }),
    ).toBeUndefined();
    const serverError = { ...step, response: { ...step.response, status: 500 } };
    expect(refusedAfterLifetime({ ...base, step: serverError })).toBeUndefined();
  });

  it("counts what the sandbox clock moved the order ahead as lifetime spent", () => {
    expect(late(1_979, "expired", 5, 2)).toBeUndefined();
    expect(late(2_000, "expired", 5, 2)?.reason).toMatch(
      /lifetime \(5 s, 2 s of it moved ahead by the sandbox clock\) had all but passed/,
    );
  });
});

describe("mayHaveOutlived", () => {
  it("from the lifetime less the clock's move, less the margin; never without a lifetime", () => {
    expect(mayHaveOutlived(4_000, 5)).toBe(true);
    expect(mayHaveOutlived(3_999, 5)).toBe(false);
    expect(mayHaveOutlived(1_000, 5, 3)).toBe(true);
    expect(mayHaveOutlived(Number.MAX_SAFE_INTEGER, undefined)).toBe(false);
  });
});
