/**
 * The stress scenario's verdict: each step judged on its own settled window (from the `step`
 * submetrics k6 kept in its summary), and the capacity, the highest rate at which every threshold
 * held. Runs in k6's handleSummary (the console line) and in the harness (the reports) alike.
 * k6-safe: no Node.js API.
 */
import type { OperationName } from "../../contract/schemas/names.ts";
import { REQUEST_KIND_TAG } from "./metric-names.ts";
import { latencyMetric, STEP_TAG, type StressStep } from "./scenarios.ts";
import type { K6Summary } from "./summary-data.ts";

export interface StepVerdict {
  index: number;
  /** Orders per second the step asked for. */
  rate: number;
  /** Orders per second k6 started in the step's settled window. */
  achievedRate: number | null;
  /** Whether the run got to the step's settled window. */
  reached: boolean;
  p95Ms: Partial<Record<OperationName, number>>;
  failedRate: number | null;
  checksRate: number | null;
  held: boolean;
  /** What broke, in words; empty when the step held. */
  broke: string[];
}

export interface StressOutcome {
  steps: StepVerdict[];
  /** The highest rate at which every threshold held; null when even the first step broke. */
  capacity: number | null;
  /** True when no step broke: the capacity is at least the last step's rate. */
  atLeast: boolean;
  /** The first step's rate (the capacity is below it when it broke). */
  firstRate: number;
}

/** A step whose achieved rate falls short of this share of its target did not hold the rate. */
export const ACHIEVED_SHARE = 0.9;

export function stressOutcome(
  summary: K6Summary,
  steps: readonly StressStep[],
  rules: { p95Ms: number; operations: readonly OperationName[] },
): StressOutcome {
  const value = (metric: string, stat: string): number | null =>
    summary.metrics[metric]?.values[stat] ?? null;
  // A step the run stopped in (k6 aborts at the first broken step) was judged on its part only.
  const runEndS = (summary.state?.testRunDurationMs ?? Number.POSITIVE_INFINITY) / 1000;
  const verdicts: StepVerdict[] = steps.map((step) => {
    const tag = `${STEP_TAG}:${step.index}`;
    const iterations = value(`iterations{${tag}}`, "count");
    const reached = iterations !== null && iterations > 0;
    const seconds = Math.max(0.001, Math.min(step.endS, runEndS) - step.settledFromS);
    const p95Ms: Partial<Record<OperationName, number>> = {};
    const broke: string[] = [];
    for (const operation of rules.operations) {
      const p95 =
        value(latencyMetric(operation, tag), "p(95)") ??
        value(`http_req_duration{name:${operation},${tag}}`, "p(95)");
      if (p95 === null) continue;
      p95Ms[operation] = p95;
      if (!(p95 < rules.p95Ms)) broke.push(`${operation} p95 ${p95.toFixed(1)} ms ≥ ${rules.p95Ms} ms`);
    }
    const failedRate =
      value(`http_req_failed{${tag},${REQUEST_KIND_TAG}:api}`, "rate") ??
      value(`http_req_failed{${tag}}`, "rate");
    if (failedRate !== null && !(failedRate < 0.01))
      broke.push(`failed requests ${(failedRate * 100).toFixed(2)} % ≥ 1 %`);
    const checksRate = value(`checks{${tag}}`, "rate");
    if (checksRate !== null && !(checksRate > 0.99))
      broke.push(`checks passed ${(checksRate * 100).toFixed(2)} % ≤ 99 %`);
    const achievedRate = reached ? (iterations as number) / seconds : null;
    if (achievedRate !== null && achievedRate < step.rate * ACHIEVED_SHARE) {
      broke.push(
        `started ${achievedRate.toFixed(1)} orders/s of ${step.rate} (k6 dropped iterations: the target was too slow or --max-vus too low)`,
      );
    }
    return {
      index: step.index,
      rate: step.rate,
      achievedRate: achievedRate === null ? null : Math.round(achievedRate * 10) / 10,
      reached,
      p95Ms,
      failedRate,
      checksRate,
      held: reached && broke.length === 0,
      broke,
    };
  });
  let capacity: number | null = null;
  let atLeast = true;
  for (const step of verdicts) {
    if (!step.reached) break;
    if (!step.held) {
      atLeast = false;
      break;
    }
    capacity = step.rate;
  }
  return { steps: verdicts, capacity, atLeast, firstRate: steps[0]?.rate ?? 0 };
}

/** The console line: `capacity: N orders/s`, `capacity: ≥ N orders/s`, or below the first step. */
export function capacityLine(outcome: StressOutcome): string {
  if (outcome.capacity === null) {
    return outcome.atLeast
      ? "capacity: unknown (the run ended before its first step was judged)"
      : `capacity: < ${outcome.firstRate} orders/s (the first step already broke a threshold)`;
  }
  return outcome.atLeast
    ? `capacity: ≥ ${outcome.capacity} orders/s (no threshold broke up to the last step)`
    : `capacity: ${outcome.capacity} orders/s`;
}
