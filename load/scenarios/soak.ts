/** soak: load held for long, for leaks and slow degradation. */
import { defineScenario, thinkText } from "./scenario.ts";

export const soak = defineScenario({
  name: "soak",
  sends: "the same as `load`, for longer: leaks and slow degradation",
  defaults: { rate: 10, duration: "30m", thinkSeconds: 0 },
  arrival: ({ rate }) => ({ executor: "constant-arrival-rate", rate }),
  describe: (input) => `${input.rate} orders/s for ${input.duration}${thinkText(input)}`,
});
