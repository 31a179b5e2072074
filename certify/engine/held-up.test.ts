import { describe, expect, it } from "vitest";
import { heldUpMeasure } from "./held-up.ts";

/** Keeps this thread's event loop busy for `ms`. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose: the hold the measure must see
  }
}

describe("heldUpMeasure", () => {
  it("counts a hold of this thread's own event loop, for any target", async () => {
    const heldUpMs = heldUpMeasure(false);
    // Let the monitor tick once before the hold, so the hold shows as one late tick.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const since = Date.now();
    block(300);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heldUpMs(since, Date.now())).toBeGreaterThanOrEqual(250);
  });

  it("is never less than the own loop's holds when the target shares this machine's CPUs", async () => {
    const remote = heldUpMeasure(false);
    const local = heldUpMeasure(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const since = Date.now();
    block(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const until = Date.now();
    expect(local(since, until)).toBeGreaterThanOrEqual(remote(since, until));
  });
});
