/** load: the expected traffic, held. */
import { defineScenario, thinkText } from "./scenario.ts";

export const load = defineScenario({
  name: "load",
  sends:
    "a constant arrival rate (`constant-arrival-rate`) of `--rate` orders per second for `--duration`, whatever the target's latency",
  defaults: { rate: 10, duration: "2m", thinkSeconds: 0 },
  arrival: ({ rate }) => ({ executor: "constant-arrival-rate", rate }),
  describe: (input) => `${input.rate} orders/s for ${input.duration}${thinkText(input)}`,
});
