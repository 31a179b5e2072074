/** breakpoint: one smooth ramp from a quarter of the rate to ten times it, to see where the target gives. */
import { defineScenario, thinkText } from "./scenario.ts";

export const breakpoint = defineScenario({
  name: "breakpoint",
  sends: "a ramping arrival rate from a quarter of `--rate` to ten times `--rate` over `--duration`",
  defaults: { rate: 10, duration: "2m", thinkSeconds: 0 },
  arrival: ({ rate, durationS }) => ({
    executor: "ramping-arrival-rate",
    startRate: Math.max(1, Math.round(rate / 4)),
    stages: [[rate * 10, durationS]],
  }),
  describe: (input) =>
    `${Math.max(1, Math.round(input.rate / 4))} up to ${input.rate * 10} orders/s over ${input.duration}${thinkText(input)}`,
});
