/** spike: a quiet baseline, a sudden jump to five times the rate, and back. */
import { defineScenario, thinkText } from "./scenario.ts";

const quietRate = (rate: number) => Math.max(1, Math.round(rate / 4));

export const spike = defineScenario({
  name: "spike",
  sends: "a quiet quarter of `--rate`, a jump to five times `--rate` within 10 s, a plateau, and back",
  defaults: { rate: 10, duration: "2m", thinkSeconds: 0 },
  arrival: ({ rate, durationS: total }) => {
    const quiet = quietRate(rate);
    return {
      executor: "ramping-arrival-rate",
      startRate: quiet,
      stages: [
        [quiet, total * 0.3],
        [rate * 5, Math.min(10, total * 0.1)],
        [rate * 5, total * 0.2],
        [quiet, Math.min(10, total * 0.1)],
        [quiet, total * 0.3],
      ],
    };
  },
  describe: (input) =>
    `${quietRate(input.rate)} orders/s, a jump to ${input.rate * 5} orders/s and back, over ${input.duration}${thinkText(input)}`,
});
