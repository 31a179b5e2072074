import { describe, expect, it } from "vitest";
import type { ExchangeResponse } from "../client/index.ts";
import {
  callbacksExactUrl,
  callbacksFollowLifecycle,
  callbacksOneFinalAfterConcurrentConfirmations,
  concurrentConfirmationsOneAccepted,
  concurrentCreationsOneAccepted,
  rejectsConfirmAfterExpiry,
  semanticsTimerFollowsClock,
} from "./lifecycle.ts";

/** Four measured requests, each [sent, received] in ms: the two creations, then the two reads. */
function reads(
  stayedCreated: [number, number],
  movedCreated: [number, number],
  stayedRead: [number, number],
  movedRead: [number, number],
) {
  const at = ([sentMs, receivedMs]: [number, number]) => ({ sentMs, receivedMs });
  return {
    stayedCreated: at(stayedCreated),
    movedCreated: at(movedCreated),
    stayedRead: at(stayedRead),
    movedRead: at(movedRead),
  };
}

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
      detail: expect.stringContaining("lowered timer by 0.000 s (30 → 30), expected 10 ± 1"),
    });
    expect(semanticsTimerFollowsClock.run({ ...base, stayed: 45, moved: 35 })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("exceeds the lifetime"),
    });
    expect(semanticsTimerFollowsClock.run({ ...base, stayed: "30", moved: 20 }).ok).toBe(false);
    // A lifetime shorter than declared: the timers still differ by the move, but start too low.
    const quick = reads([0, 100], [0, 100], [300, 400], [300, 400]);
    expect(semanticsTimerFollowsClock.run({ ...base, stayed: 20, moved: 10, reads: quick })).toMatchObject({
      ok: false,
      detail: expect.stringContaining(
        "below the declared lifetime 30 s less the order's age (at most 0.400 s)",
      ),
    });
    // An order read a few seconds after its creation request started may show that much less,
    // and one step of the timer less again (whole seconds, rounded down).
    const slow = reads([0, 100], [0, 100], [3100, 3200], [3100, 3200]);
    expect(semanticsTimerFollowsClock.run({ ...base, stayed: 25, moved: 15, reads: slow }).ok).toBe(true);
    expect(
      semanticsTimerFollowsClock.run({
        ...base,
        stayed: 27.7,
        moved: 17.7,
        reads: reads([0, 100], [0, 100], [200, 300], [200, 300]),
        timerStepSeconds: 0.001,
      }).ok,
    ).toBe(false);
  });

  describe("timer-follows-clock counts the measured time between the reads", () => {
    const base = { seconds: 10, how: "the sandbox clock" as const, toleranceSeconds: 1, lifetimeSeconds: 30 };
    // Behind 0–1500 ms of answer latency: the older order's creation went out only once the
    // younger's answer came (1.4 s later), and its timer was read at the same moment as the other.
    const jittered = reads([0, 100], [100, 1500], [2000, 2100], [2000, 3500]);
    // What the target did: created 50 ms and 1450 ms in, both timers read 2050 ms in.
    const stayed = 30 - 2.0;
    const moved = 30 - 0.6 - 10;

    it("a correct timer read behind latency passes; ignoring the reads' timing it failed", () => {
      expect(semanticsTimerFollowsClock.run({ ...base, stayed, moved })).toMatchObject({
        ok: false,
        detail: expect.stringContaining("lowered timer by 8.600 s"),
      });
      const outcome = semanticsTimerFollowsClock.run({ ...base, stayed, moved, reads: jittered });
      expect(outcome).toMatchObject({
        ok: true,
        detail: expect.stringContaining("expected 8.400 s to 11.500 s ± 1"),
      });
    });

    it("a timer that stands still, or runs at half speed, still fails behind the same latency", () => {
      for (const [still, drop] of [
        [30, 30],
        [stayed, stayed - 5],
      ] as const) {
        expect(
          semanticsTimerFollowsClock.run({ ...base, stayed: still, moved: drop, reads: jittered }),
        ).toMatchObject({
          ok: false,
          detail: expect.stringMatching(
            /expected 8\.400 s to 11\.500 s ± 1 \(10 s moved; as measured, the moved order was created 0\.000 to 1\.500 s after the other and its timer read -0\.100 to 1\.500 s after the other's\)/,
          ),
        });
      }
    });

    it("a Retry-After wait before one creation is counted: that order is younger by as much", () => {
      // The moved order's creation was answered 429, waited out 3 s, and sent again: the exchange
      // is the last attempt's.
      const waited = reads([0, 20], [3000, 3020], [3100, 3120], [3100, 3120]);
      expect(
        semanticsTimerFollowsClock.run({ ...base, stayed: 30 - 3.11, moved: 30 - 0.11 - 10, reads: waited })
          .ok,
      ).toBe(true);
      // ... and so is one before a confirmation: that timer was read later.
      const lateRead = reads([0, 20], [0, 20], [100, 120], [2100, 2120]);
      expect(
        semanticsTimerFollowsClock.run({ ...base, stayed: 30 - 0.11, moved: 30 - 2.11 - 10, reads: lateRead })
          .ok,
      ).toBe(true);
      expect(semanticsTimerFollowsClock.run({ ...base, stayed: 30 - 0.11, moved: 30 - 2.11 - 10 }).ok).toBe(
        false,
      );
    });

    it("in real time, the measured time between the creations is how far the timers must differ", () => {
      const realTime = { ...base, seconds: 0, how: "real time" as const };
      const apart = reads([2010, 2020], [0, 10], [2030, 2040], [2030, 2040]);
      expect(
        semanticsTimerFollowsClock.run({ ...realTime, stayed: 29.98, moved: 27.96, reads: apart }).ok,
      ).toBe(true);
      expect(
        semanticsTimerFollowsClock.run({ ...realTime, stayed: 30, moved: 30, reads: apart }),
      ).toMatchObject({
        ok: false,
        detail: expect.stringContaining(
          "older in real time lowered timer by 0.000 s (30 → 30), expected 1.990 s",
        ),
      });
    });

    it("reads too far apart for a timer standing still to fail are not evaluated, never passed", () => {
      const realTime = { ...base, seconds: 0, how: "real time" as const };
      const wide = reads([2000, 3500], [0, 1500], [4000, 5500], [4000, 5500]);
      expect(
        semanticsTimerFollowsClock.run({ ...realTime, stayed: 29, moved: 27, reads: wide }),
      ).toMatchObject({
        ok: false,
        notEvaluated: {
          check: "target.latency",
          reason: expect.stringContaining(
            "too far apart to tell one that follows the clock from one that stands still",
          ),
        },
      });
      expect(
        semanticsTimerFollowsClock.run({ ...realTime, stayed: 29, moved: 29, reads: wide }).notEvaluated,
      ).toBeDefined();
    });
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
