/**
 * bench:load-overhead's parts: the hand-written and bare scripts are what they claim to be, CPU
 * times are read right from bash's `times`, and, with a real k6, a short run measures all three
 * scripts (the figures themselves are the bench's business, never a test's).
 */
import { describe, expect, it } from "vitest";
import { fileTimeout } from "../../fixtures/testing/index.ts";
import { findLocalK6 } from "../../load/index.ts";
import {
  bareScript,
  childCpuSeconds,
  handWrittenScript,
  OVERHEAD_SCRIPTS,
  parseBashTime,
  runLoadOverheadBench,
} from "./load-overhead-bench.ts";

fileTimeout(120_000);

describe("bench:load-overhead", () => {
  it("compares with a typical hand-written script: the same two requests, name tags, p95 thresholds, two checks per response", () => {
    const script = handWrittenScript();
    expect(script.match(/http\.post\(/g)).toHaveLength(2);
    expect(script).toContain('"http_req_duration{name:createMobileCommerceOrder}": ["p(95)<500"]');
    expect(script).toContain('"http_req_duration{name:confirmMobileCommerceOrder}": ["p(95)<500"]');
    expect(script.match(/check\(/g)).toHaveLength(2);
    expect(script.match(/"(create|confirm): [^"]+": \(r\) =>/g)).toHaveLength(4);
    expect(script).toContain('executor: "constant-arrival-rate"');
    const bare = bareScript();
    expect(bare.match(/http\.post\(/g)).toHaveLength(2);
    expect(bare).not.toMatch(/check\(|thresholds|tags:/);
  });

  it("reads k6's CPU time from bash's times: the children's user + sys", () => {
    expect(parseBashTime("1m2.500s")).toBe(62.5);
    expect(childCpuSeconds("0m0.004s 0m0.002s\n0m7.120s 0m1.880s\n")).toBeCloseTo(9, 6);
    expect(() => childCpuSeconds("garbage")).toThrow(/times/);
  });

  const k6 = (() => {
    try {
      return findLocalK6();
    } catch {
      return undefined;
    }
  })();
  it("measures CPU per iteration and peak RSS of all three scripts with a real k6", async (ctx) => {
    if (!k6) return ctx.skip("k6 is not on PATH and K6_BIN is not set: the bench measures k6 itself");
    const result = await runLoadOverheadBench(k6, { rate: 20, duration: "3s", vus: 2, rounds: 1 });
    expect(result.runs.map((r) => r.script).sort()).toEqual([...OVERHEAD_SCRIPTS].sort());
    for (const run of result.runs) {
      expect(run.iterations, run.script).toBeGreaterThan(30);
      expect(run.cpuPerIterationUs, run.script).toBeGreaterThan(0);
      expect(run.peakRssMiB, run.script).toBeGreaterThan(10);
    }
    expect(result.cpuRatio).toBeGreaterThan(0);
    expect(result.rssRatio).toBeGreaterThan(0);
  });
});
