import { describe, expect, it } from "vitest";
import { callbacksRetryPolicy } from "../../../contract/index.ts";
import { measuredStall, sinkLatenessMs } from "./sink-lateness.ts";
import type { SpecSink } from "./target.ts";

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

/** A sink that reports its loop held 40 ms at most (300 ms in all) and the machine 97 % stalled. */
const loadedSink = {
  client: {
    stalls: async (since: number, until: number) => ({
      maxStallMs: 40,
      heldUpMs: 300,
      covered: true,
      machineStallMs: Math.round((until - since) * 0.97),
      machineSource: "cpu-pressure" as const,
    }),
  },
} as unknown as SpecSink;

describe("measuredStall: the machine's stall counts only for a target on this host", () => {
  it("counts the machine's stall and the sink's for a local target", async () => {
    const stall = await measuredStall(loadedSink, 0, 10_000, { sharesSinkProcess: false, onThisHost: true });
    expect(stall).toEqual({ processMs: 40, machineMs: 9_700, totalMs: 9_740 });
  });

  it("gives a remote target the sink's own stall only", async () => {
    const stall = await measuredStall(loadedSink, 0, 10_000, { sharesSinkProcess: false, onThisHost: false });
    expect(stall).toEqual({ processMs: 40, machineMs: 0, totalMs: 40 });
  });
});

describe("measuredStall asks the sink in whole milliseconds", () => {
  it("widens a fractional window to whole ms (the sink refuses a fraction with HTTP 400)", async () => {
    const asked: [number, number][] = [];
    const sink = {
      client: {
        stalls: async (since: number, until: number) => {
          asked.push([since, until]);
          return { maxStallMs: 0, heldUpMs: 0, covered: true };
        },
      },
    } as unknown as SpecSink;
    // An exchange's end: startedAt (whole ms) + durationMs (a tenth) + 1.
    await measuredStall(sink, 1_700_000_000_000.4, 1_700_000_000_123.7 + 1, {
      sharesSinkProcess: false,
      onThisHost: false,
    });
    expect(asked).toEqual([[1_700_000_000_000, 1_700_000_000_125]]);
  });
});
