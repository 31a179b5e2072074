import { describe, expect, it } from "vitest";
import { type CloseCircumstances, judgeClose } from "./connection-reuse.ts";

// A connection reused once, nothing in flight, the client's margin 2 s (H2hClient's).
const reused: CloseCircumstances = {
  reused: true,
  inFlight: 0,
  idleMs: 0,
  keepAliveMs: undefined,
  closedBeforeSend: false,
  marginMs: 2_000,
};

describe("judgeClose: only an idle close the target announced is the keep-alive race", () => {
  it("is the race when the connection was idle as long as the announced timeout, less the client's margin", () => {
    const closed = judgeClose({ ...reused, idleMs: 3_100, keepAliveMs: 5_000 });
    expect(closed.race).toBe(true);
    expect(closed.explanation).toBe(
      "idle 3.100 s, at the target's announced Keep-Alive timeout=5 (less the client's 2.000 s margin)",
    );
  });

  it("is the race when the target's close had arrived before the request was written", () => {
    expect(judgeClose({ ...reused, idleMs: 40, closedBeforeSend: true }).race).toBe(true);
  });

  // Idle 2-269 ms against the client's own 4 s: a target that processed the POST and closed.
  for (const idleMs of [2, 59, 269]) {
    it(`is no race after ${idleMs} ms idle with no Keep-Alive hint`, () => {
      const closed = judgeClose({ ...reused, idleMs });
      expect(closed.race).toBe(false);
      expect(closed.explanation).toContain("the target announced no idle timeout");
    });
  }

  it("is no race well within an announced timeout", () => {
    const closed = judgeClose({ ...reused, idleMs: 2_900, keepAliveMs: 5_000 });
    expect(closed.race).toBe(false);
    expect(closed.explanation).toContain("well within the target's announced Keep-Alive timeout=5");
  });

  it("is no race on a fresh connection, or with a request in flight", () => {
    expect(judgeClose({ ...reused, reused: false, closedBeforeSend: true }).race).toBe(false);
    expect(judgeClose({ ...reused, inFlight: 1, idleMs: 9_000, keepAliveMs: 5_000 }).race).toBe(false);
  });
});
