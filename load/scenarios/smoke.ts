/** smoke: a few orders to see that everything works, never a load. */
import { defineScenario, thinkText } from "./scenario.ts";

export const smoke = defineScenario({
  name: "smoke",
  sends:
    "a trickle to see that everything works: `--rate` orders per second (at most 2), with a payer's think time (`--think`) between the order and its confirmation code",
  defaults: { rate: 1.5, duration: "30s", thinkSeconds: 1 },
  maxRate: { rate: 2, instead: "the load scenario" },
  arrival: ({ rate }) => ({ executor: "constant-arrival-rate", rate }),
  describe: (input) => `${input.rate} orders/s for ${input.duration}${thinkText(input)}`,
});
