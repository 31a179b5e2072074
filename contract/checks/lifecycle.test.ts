import { describe, expect, it } from "vitest";
import type { ExchangeResponse } from "../h2h-client.ts";
import {
  callbacksExactUrl,
  callbacksFollowLifecycle,
  callbacksOneFinalAfterConcurrentConfirmations,
  concurrentConfirmationsOneAccepted,
  concurrentCreationsOneAccepted,
  rejectsConfirmAfterExpiry,
  semanticsTimerFollowsClock,
} from "./lifecycle.ts";

function answer(
  status: number,
  codeError = status === 200 ? "none" : "duplicate_merchant_order_id",
): ExchangeResponse {
  const json = {
    data: status === 200 ? {} : null,
    result: { codeError, status: status === 200 ? "success" : "error" },
  };
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(json), json };
}

describe("lifecycle checks", () => {
  it("rejects-confirm-after-expiry fails when an expired order's confirmation is accepted or wrongly refused", () => {
    const pinned = { httpStatus: 409, codeError: "invalid_order_state" };
    expect(rejectsConfirmAfterExpiry.run({ response: answer(409, "invalid_order_state"), pinned }).ok).toBe(
      true,
    );
    expect(rejectsConfirmAfterExpiry.run({ response: answer(200), pinned })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("accepted"),
    });
    expect(rejectsConfirmAfterExpiry.run({ response: answer(422, "invalid_code"), pinned }).ok).toBe(false);
  });

  it("follow-lifecycle counts each status entered once, a redelivered body once, and no extra one", () => {
    const received = (...pairs: [string, string][]) => pairs.map(([status, body]) => ({ status, body }));
    const check = callbacksFollowLifecycle;
    expect(
      check.run({
        expected: ["failed_by_terminal", "succeeded_by_appeal"],
        received: received(["succeeded_by_appeal", "b"], ["failed_by_terminal", "a"]),
      }).ok,
    ).toBe(true);
    expect(
      check.run({ expected: ["succeeded"], received: received(["succeeded", "a"], ["succeeded", "a"]) }).ok,
    ).toBe(true);
    const extra = check.run({
      expected: ["succeeded"],
      received: received(["succeeded", "a"], ["expired", "b"]),
    });
    expect(extra).toMatchObject({
      ok: false,
      detail: expect.stringContaining('"expired" 1 time(s), expected 0'),
    });
    expect(check.run({ expected: [], received: received(["succeeded", "a"]) }).ok).toBe(false);
    expect(check.run({ expected: ["succeeded"], received: [] }).ok).toBe(false);
    // An order left awaiting longer than its lifetime (real time) may expire: once, not twice.
    const expiredLate = received(["expired", "a"]);
    expect(check.run({ expected: [], received: expiredLate, mayAlsoArrive: ["expired"] }).ok).toBe(true);
    expect(check.run({ expected: [], received: [], mayAlsoArrive: ["expired"] }).ok).toBe(true);
    expect(
      check.run({
        expected: [],
        received: received(["expired", "a"], ["expired", "b"]),
        mayAlsoArrive: ["expired"],
      }).ok,
    ).toBe(false);
    // A second event of the same status (another body) is a second status change, not a redelivery.
    expect(
      check.run({ expected: ["succeeded"], received: received(["succeeded", "a"], ["succeeded", "b"]) }).ok,
    ).toBe(false);
  });

  it("timer-follows-clock compares how far timer went down with how far the clock moved", () => {
    const base = { seconds: 10, how: "the sandbox clock" as const, toleranceSeconds: 1, lifetimeSeconds: 30 };
    expect(semanticsTimerFollowsClock.run({ ...base, stayed: 29.9, moved: 19.8 }).ok).toBe(true);
    expect(semanticsTimerFollowsClock.run({ ...base, stayed: 30, moved: 30 })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("lowered timer by 0.000 s"),
    });
    expect(semanticsTimerFollowsClock.run({ ...base, stayed: 45, moved: 35 })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("exceeds the lifetime"),
    });
    expect(semanticsTimerFollowsClock.run({ ...base, stayed: "30", moved: 20 }).ok).toBe(false);
    // A lifetime shorter than declared: the timers still differ by the move, but start too low.
    expect(
      semanticsTimerFollowsClock.run({ ...base, stayed: 20, moved: 10, stayedAgeSeconds: 0.4 }),
    ).toMatchObject({
      ok: false,
      detail: expect.stringContaining(
        "below the declared lifetime 30 s less the order's age (at most 0.400 s)",
      ),
    });
    // An order read a few seconds after its creation request started may show that much less,
    // and one step of the timer less again (whole seconds, rounded down).
    expect(semanticsTimerFollowsClock.run({ ...base, stayed: 25, moved: 15, stayedAgeSeconds: 3.2 }).ok).toBe(
      true,
    );
    expect(
      semanticsTimerFollowsClock.run({
        ...base,
        stayed: 27.7,
        moved: 17.7,
        stayedAgeSeconds: 0.3,
        timerStepSeconds: 0.001,
      }).ok,
    ).toBe(false);
  });

  it("the race checks want exactly one accepted, the others refused as the profile pins", () => {
    const pinned = { httpStatus: 409, codeError: "duplicate_merchant_order_id" };
    const one = [answer(200), answer(409), answer(409)];
    expect(concurrentCreationsOneAccepted.run({ answers: one, pinned }).ok).toBe(true);
    expect(
      concurrentCreationsOneAccepted.run({ answers: [answer(200), answer(200), answer(409)], pinned }),
    ).toMatchObject({
      ok: false,
      detail: expect.stringContaining("2 of 3 accepted"),
    });
    expect(concurrentConfirmationsOneAccepted.run({ answers: [answer(409), answer(409)], pinned }).ok).toBe(
      false,
    );
    expect(
      concurrentCreationsOneAccepted.run({ answers: [answer(200), answer(500, "internal_error")], pinned })
        .ok,
    ).toBe(false);
    expect(
      concurrentCreationsOneAccepted.run({ answers: [answer(200), answer(409, "other")], pinned }).ok,
    ).toBe(false);
  });

  it("one-final-after-concurrent-confirmations counts the acknowledged final callbacks", () => {
    const check = callbacksOneFinalAfterConcurrentConfirmations;
    expect(
      check.run({ finalStatus: "succeeded", callbacks: [{ status: "succeeded", answeredWith: 200 }] }).ok,
    ).toBe(true);
    expect(check.run({ finalStatus: "succeeded", callbacks: [] }).ok).toBe(false);
    expect(
      check.run({
        finalStatus: "succeeded",
        callbacks: [
          { status: "succeeded", answeredWith: 200 },
          { status: "succeeded", answeredWith: 200 },
        ],
      }),
    ).toMatchObject({ ok: false, detail: expect.stringContaining("2 acknowledged") });
  });

  it("exact-url wants every callback at the webHook's path and query, byte for byte", () => {
    const expected = "/callbacks/<token>/run/x?a=1&b=%2F";
    expect(callbacksExactUrl.run({ expected, received: [expected] }).ok).toBe(true);
    expect(callbacksExactUrl.run({ expected, received: ["/callbacks/<token>/run/x"] })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("1 of 1"),
    });
    expect(callbacksExactUrl.run({ expected, received: ["/callbacks/<token>/run/x?a=1&b=/"] }).ok).toBe(
      false,
    );
    expect(callbacksExactUrl.run({ expected, received: [] }).ok).toBe(false);
  });
});
