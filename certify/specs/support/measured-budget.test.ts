import { describe, expect, it } from "vitest";
import { withinMeasuredBudget } from "./measured-budget.ts";
import type { SpecSink } from "./target.ts";

/** A target whose sink reports the machine stalled for `share` of every window asked about. */
function targetStalled(share: number) {
  const sink = {
    client: {
      stalls: async (since: number, until: number) => ({
        maxStallMs: 0,
        heldUpMs: 0,
        covered: true,
        machineStallMs: Math.round((until - since) * share),
        machineSource: "cpu-pressure" as const,
      }),
    },
  } as unknown as SpecSink;
  return { sink: () => sink, sharesSinkProcess: false, deadlineAt: Date.now() + 10_000 };
}
const resolvesAfter = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe("a setup bounded by the profile's timeouts plus the measured stall", () => {
  it("lets work outlast its budget by as long as the machine was measured stalled", async () => {
    // Budget 300 ms, the machine stalled all along: the work, done at 500 ms, is waited for.
    await expect(
      withinMeasuredBudget(targetStalled(1), 300, "the probes", resolvesAfter(500, "done")),
    ).resolves.toBe("done");
  });

  it("ends work that outlasts its budget on a quiet machine, saying so", async () => {
    const started = Date.now();
    await expect(
      withinMeasuredBudget(targetStalled(0), 300, "the probes", resolvesAfter(2_000, "done")),
    ).rejects.toThrow(
      "the probes did not end within 0.3 s (from the profile's timeouts) + 0.0 s (the suite's measured stall meanwhile)",
    );
    // Ended at its budget, not when the work would have (2 s).
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("extends by the stall measured, no more: half a stalled budget is not a second budget", async () => {
    await expect(
      withinMeasuredBudget(targetStalled(0.5), 600, "the probes", resolvesAfter(3_000, "done")),
    ).rejects.toThrow(/did not end within 0\.6 s \(from the profile's timeouts\) \+ 0\.[3-9] s/);
  });
});
