import { describe, expect, it } from "vitest";
import { MachineStallSampler, readCpuPressureUs } from "./machine-stall.ts";

/** A sampler on a hand-moved clock and hand-set readings. */
function fake(options: { pressureUs?: number; load?: number; cores?: number }) {
  const state = { now: 10_000, pressureUs: options.pressureUs, load: options.load };
  const sampler = new MachineStallSampler({
    readPressureUs: () => state.pressureUs,
    readLoad: () => state.load,
    cores: options.cores ?? 2,
    now: () => state.now,
    autoSample: false,
  });
  return { sampler, state };
}

describe("machine stall (how long runnable work waited for a CPU)", () => {
  it("is the PSI some total's growth over the window, interpolated between samples", () => {
    const { sampler, state } = fake({ pressureUs: 5_000_000 });
    expect(sampler.source).toBe("cpu-pressure");
    state.now = 11_000;
    state.pressureUs = 5_000_000 + 800_000; // 0.8 s waited in this second
    sampler.sample();
    state.now = 12_000;
    state.pressureUs = 5_800_000 + 200_000;
    sampler.sample();
    expect(sampler.stallMs(10_000, 11_000)).toBe(800);
    expect(sampler.stallMs(10_000, 12_000)).toBe(1_000);
    // Half of each second's wait for the half second on either side of 11 s.
    expect(sampler.stallMs(10_500, 11_500)).toBe(500);
  });

  it("is 0 on a quiet machine", () => {
    const { sampler, state } = fake({ pressureUs: 42 });
    state.now = 12_000;
    sampler.sample();
    expect(sampler.stallMs(10_000, 12_000)).toBe(0);
  });

  it("falls back to the load average over the cores where PSI cannot be read", () => {
    const { sampler, state } = fake({ load: 3, cores: 2 });
    expect(sampler.source).toBe("load-average");
    state.now = 12_000;
    sampler.sample();
    // Load 3 on 2 cores: half the time taken as waited.
    expect(sampler.stallMs(10_000, 12_000)).toBe(1_000);
    state.load = 1.5;
    state.now = 14_000;
    sampler.sample();
    expect(sampler.stallMs(12_000, 14_000)).toBe(0);
  });

  it("measures nothing where neither is available", () => {
    const { sampler, state } = fake({});
    expect(sampler.source).toBe("none");
    state.now = 20_000;
    expect(sampler.stallMs(10_000, 20_000)).toBe(0);
  });

  it("reads this machine's PSI when the kernel offers it", () => {
    const us = readCpuPressureUs();
    if (us !== undefined) expect(us).toBeGreaterThanOrEqual(0);
    expect(readCpuPressureUs("/nonexistent/pressure/cpu")).toBeUndefined();
  });
});
