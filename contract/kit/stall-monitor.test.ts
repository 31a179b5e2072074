import { afterEach, describe, expect, it } from "vitest";
import { StallMonitor } from "./stall-monitor.ts";

const monitors: StallMonitor[] = [];
afterEach(() => {
  for (const monitor of monitors.splice(0)) monitor.stop();
});
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("stall monitor", () => {
  it("measures how long the event loop was held up, around the time asked about", async () => {
    const monitor = new StallMonitor({ intervalMs: 10, thresholdMs: 5 });
    monitors.push(monitor);
    await tick(30);
    const before = Date.now();
    const busyUntil = Date.now() + 150;
    while (Date.now() < busyUntil) {
      // Hold the event loop, as a busy process (or a loaded machine) would.
    }
    await tick(30);
    expect(monitor.maxStallMs(before, Date.now())).toBeGreaterThanOrEqual(140);
    // A stall that ended before the span asked about delayed no stamp in it.
    expect(monitor.maxStallMs(Date.now() + 1_000, Date.now() + 2_000)).toBe(5);
  });

  it("adds up a process slowed in many short holds, none of them a stall, to how long it was held up", async () => {
    const monitor = new StallMonitor({ intervalMs: 10, thresholdMs: 8 });
    monitors.push(monitor);
    await tick(30);
    const before = Date.now();
    // Twenty holds of 6 ms, each under the threshold: a machine with more work than cores.
    for (let i = 0; i < 20; i++) {
      const busyUntil = performance.now() + 16;
      while (performance.now() < busyUntil) {
        // Hold the event loop a little past the next tick.
      }
      await tick(1);
    }
    await tick(30);
    const after = Date.now();
    // Held up well over 60 ms in all, far more than its longest stall says.
    expect(monitor.heldUpMs(before, after)).toBeGreaterThanOrEqual(60);
    expect(monitor.heldUpMs(before, after)).toBeGreaterThan(monitor.maxStallMs(before, after) + 30);
  });

  it("never answers less than its own resolution, and knows when it started", () => {
    const monitor = new StallMonitor({ intervalMs: 10, thresholdMs: 7 });
    monitors.push(monitor);
    expect(monitor.maxStallMs(Date.now(), Date.now())).toBe(7);
    expect(monitor.covers(Date.now() - 60_000)).toBe(false);
    expect(monitor.covers(Date.now() + 1)).toBe(true);
  });
});
