import { describe, expect, it } from "vitest";
import { phasesOf, type RunTimings, SpecFileClock } from "./run-timings.ts";
import type { SpecFile } from "./spec-tasks.ts";

const T0 = 1_800_000_000_000;

describe("run timings", () => {
  it("split a run into start-up, specs, callbacks and reports", () => {
    const timings: RunTimings = {
      processStartedAtMs: T0 + 300,
      runStartedAtMs: T0 + 1_000,
      specsStartedAtMs: T0 + 2_000,
      specsEndedAtMs: T0 + 4_500,
      specFiles: [
        { file: "mobile-commerce.spec.ts", loadMs: 400, startedAtMs: T0 + 2_000, endedAtMs: T0 + 2_600 },
        { file: "callbacks.spec.ts", loadMs: 500, startedAtMs: T0 + 2_100, endedAtMs: T0 + 4_500 },
      ],
    };
    expect(phasesOf(timings, T0 + 5_000, T0)).toEqual({
      startupMs: 2_000,
      specsMs: 2_500,
      callbacksMs: 2_400,
      reportsMs: 500,
      wallMs: 5_000,
    });
    // Without a launch time, the wall time counts from the process's own start.
    expect(phasesOf(timings, T0 + 5_000).wallMs).toBe(4_700);
  });

  it("a run whose specs never ran is start-up and reports only", () => {
    const timings: RunTimings = { processStartedAtMs: T0, runStartedAtMs: T0 + 900, specFiles: [] };
    expect(phasesOf(timings, T0 + 1_200, T0)).toEqual({
      startupMs: 1_200,
      specsMs: 0,
      callbacksMs: 0,
      reportsMs: 0,
      wallMs: 1_200,
    });
  });

  it("places each spec file by its start time and duration", () => {
    const clock = new SpecFileClock();
    const file = (filepath: string, startTime: number) =>
      ({
        filepath,
        result: { state: "pass", startTime, duration: 800.4 },
        collectDuration: 120.2,
      }) as SpecFile;
    clock.onFileEnd(file("/x/certify/specs/callbacks.spec.ts", T0 + 100));
    clock.onFileEnd(file("/x/certify/specs/races.spec.ts", T0 + 50));
    const timings = clock.timings(T0);
    expect(timings.specFiles.map((f) => [f.file, f.startedAtMs - T0, f.endedAtMs - T0, f.loadMs])).toEqual([
      ["races.spec.ts", 50, 850, 120],
      ["callbacks.spec.ts", 100, 900, 120],
    ]);
    expect([timings.specsStartedAtMs, timings.specsEndedAtMs]).toEqual([T0 + 50, T0 + 900]);
    expect(timings.processStartedAtMs).toBe(Math.round(performance.timeOrigin));
  });
});
