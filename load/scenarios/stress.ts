/** stress: steps of rising arrival rate, each judged on its own, up to the first that breaks: the capacity. */
import { defineScenario, type ShapeInput, type StressStep, thinkText } from "./scenario.ts";

/** A stress step is about this long; a run of `duration` has duration / STRESS_STEP_S of them (at least 3). */
export const STRESS_STEP_S = 15;
export const STRESS_FACTOR = 1.5;

export function stressSteps(input: Pick<ShapeInput, "rate" | "durationS">): StressStep[] {
  const total = input.durationS;
  const count = Math.max(3, Math.floor(total / STRESS_STEP_S));
  const length = total / count;
  const warmUp = Math.min(3, length / 3);
  const steps: StressStep[] = [];
  let rate = input.rate;
  for (let index = 0; index < count; index++) {
    const startS = index * length;
    steps.push({ index, rate, startS, settledFromS: startS + warmUp, endS: startS + length });
    rate = Math.max(rate + 1, Math.round(rate * STRESS_FACTOR));
  }
  return steps;
}

export const stress = defineScenario({
  name: "stress",
  sends:
    "steps of rising arrival rate: `--rate`, then ×1.5 per step, about 15 s per step over `--duration` (at least 3 steps), each judged on its own after a 3 s warm-up. k6 stops at the first step whose p95 or failure rate breaks, and the run prints the **capacity**: the highest rate at which every threshold held",
  defaults: { rate: 10, duration: "2m", thinkSeconds: 0 },
  // Stepped, not a smooth ramp: each step holds its rate long enough to be judged on its own.
  arrival: (input) => ({
    executor: "ramping-arrival-rate",
    startRate: input.rate,
    stages: stressSteps(input).flatMap((step): [number, number][] => [
      [step.rate, 1],
      [step.rate, step.endS - step.startS - 1],
    ]),
  }),
  steps: stressSteps,
  describe: (input) => {
    const steps = stressSteps(input);
    return `steps of ${steps.map((s) => s.rate).join(", ")} orders/s, about ${Math.round(input.durationS / steps.length)} s each, until a threshold breaks${thinkText(input)}`;
  },
});
