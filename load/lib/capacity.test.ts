import { describe, expect, it } from "vitest";
import { capacityLine, stressOutcome } from "./capacity.ts";
import { stressSteps } from "./scenarios.ts";
import type { K6Summary, K6SummaryMetric } from "./summary.ts";

const OPERATIONS = ["createMobileCommerceOrder", "confirmMobileCommerceOrder"] as const;
const steps = stressSteps({ rate: 20, duration: "1m" }); // 20, 30, 45, 68 orders/s; 15 s each, 12 s judged

/** k6's summary of steps that each started `rate` orders/s with the given p95 and failure rate. */
function summary(
  judged: { p95: number; failed?: number; checks?: number; achieved?: number }[],
  runSeconds = 60,
): K6Summary {
  const metrics: Record<string, K6SummaryMetric> = {};
  judged.forEach((step, index) => {
    const tag = `step:${index}`;
    const rate = steps[index]?.rate ?? 0;
    metrics[`iterations{${tag}}`] = {
      type: "counter",
      values: { count: Math.round((step.achieved ?? rate) * 12) },
    };
    for (const op of OPERATIONS)
      metrics[`http_req_duration{name:${op},${tag}}`] = { type: "trend", values: { "p(95)": step.p95 } };
    metrics[`http_req_failed{${tag}}`] = { type: "rate", values: { rate: step.failed ?? 0 } };
    metrics[`checks{${tag}}`] = { type: "rate", values: { rate: step.checks ?? 1 } };
  });
  return { metrics, state: { testRunDurationMs: runSeconds * 1000 } };
}

const rules = { p95Ms: 500, operations: OPERATIONS };

describe("stress capacity", () => {
  it("is the highest rate whose step held every threshold, stopping at the first broken step", () => {
    const outcome = stressOutcome(summary([{ p95: 40 }, { p95: 90 }, { p95: 700 }], 38), steps, rules);
    expect(outcome.steps.map((s) => [s.rate, s.reached, s.held])).toEqual([
      [20, true, true],
      [30, true, true],
      [45, true, false],
      [68, false, false],
    ]);
    expect(outcome.steps[2]?.broke).toEqual([
      "createMobileCommerceOrder p95 700.0 ms ≥ 500 ms",
      "confirmMobileCommerceOrder p95 700.0 ms ≥ 500 ms",
    ]);
    expect(outcome).toMatchObject({ capacity: 30, atLeast: false });
    expect(capacityLine(outcome)).toBe("capacity: 30 orders/s");
  });

  it("is ≥ the last step's rate when no step broke", () => {
    const outcome = stressOutcome(summary([{ p95: 5 }, { p95: 6 }, { p95: 7 }, { p95: 9 }]), steps, rules);
    expect(capacityLine(outcome)).toBe("capacity: ≥ 68 orders/s (no threshold broke up to the last step)");
  });

  it("is below the first step when that one broke", () => {
    const outcome = stressOutcome(summary([{ p95: 5, failed: 0.05 }], 20), steps, rules);
    expect(outcome.steps[0]?.broke).toEqual(["failed requests 5.00 % ≥ 1 %"]);
    expect(capacityLine(outcome)).toBe("capacity: < 20 orders/s (the first step already broke a threshold)");
  });

  it("counts failed checks and a rate k6 could not start (dropped iterations) as a broken step", () => {
    const checks = stressOutcome(summary([{ p95: 5 }, { p95: 5, checks: 0.9 }]), steps, rules);
    expect(checks.steps[1]?.broke).toEqual(["checks passed 90.00 % ≤ 99 %"]);
    const dropped = stressOutcome(summary([{ p95: 5 }, { p95: 5, achieved: 20 }]), steps, rules);
    expect(dropped.steps[1]?.broke[0]).toMatch(/^started 20\.0 orders\/s of 30 \(k6 dropped iterations/);
    expect(dropped.capacity).toBe(20);
  });

  it("judges the step k6 stopped in on the part of it that ran", () => {
    // Stopped 5 s into step 1's judged window: 30 orders/s over 5 s, not over 12 s.
    const stopped = summary([{ p95: 5 }, { p95: 900 }], 15 + 3 + 5);
    stopped.metrics["iterations{step:1}"] = { type: "counter", values: { count: 150 } };
    const outcome = stressOutcome(stopped, steps, rules);
    expect(outcome.steps[1]?.achievedRate).toBe(30);
  });
});
