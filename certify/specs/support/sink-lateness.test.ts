import { describe, expect, it } from "vitest";
import { callbacksRetryPolicy } from "../../../contract/index.ts";
import { sinkLatenessMs } from "./sink-lateness.ts";

// A sink whose loop was busy in short chunks: never more than 10 ms late, 545 ms in all.
const busySink = { maxStallMs: 10, heldUpMs: 545 };
const policy = { attempts: 5, delaysMs: [100, 200, 300, 400], toleranceMs: 250 };
const everyMs = (gap: number) => [0, 1, 2, 3, 4].map((i) => i * gap);

describe("sinkLatenessMs (the room callbacks.retry-policy adds for a loaded sink)", () => {
  it("is the longest stall for a target in another process: a target retrying every 0.7 s fails", () => {
    const observerStallMs = sinkLatenessMs(busySink, false);
    expect(observerStallMs).toBe(10);
    const outcome = callbacksRetryPolicy.run({ attemptsAtMs: everyMs(700), policy, observerStallMs });
    expect(outcome.ok, outcome.detail).toBe(false);
    expect(outcome.detail).toContain("retry 1 after 0.70 s");
  });

  it("is every hold added up for a target in the sink's own process", () => {
    expect(sinkLatenessMs(busySink, true)).toBe(545);
  });

  it("still passes a target in another process that keeps to the policy, on that busy sink", () => {
    const attemptsAtMs = [0, 105, 310, 615, 1_020];
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs,
      policy,
      observerStallMs: sinkLatenessMs(busySink, false),
    });
    expect(outcome.ok, outcome.detail).toBe(true);
  });
});
