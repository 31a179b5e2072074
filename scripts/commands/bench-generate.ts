/** `npm run bench:generate`: time to build the generated probes of the reference methods. */
import { runGenerateBench, type Timing } from "../bench/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

const QUICK_TARGET_MS = 500;

export const benchGenerate = defineCommand({
  name: "bench:generate",
  summary:
    "Time to build the generated probes of the reference methods (quick and thorough order sets, every\n" +
    `method's negative cases), first run and median of repeated runs (target: quick set < ${QUICK_TARGET_MS} ms).`,
  options: {
    rounds: { type: "number", description: "repeated runs for the median (default: 20)" },
  },
  exitCodes: { [EXIT.ok]: "target met", [EXIT.failed]: "target not met" },
  async run(options) {
    const rounds = options.rounds ?? 20;
    const result = runGenerateBench(rounds);
    const line = (name: string, t: Timing, unit: string) =>
      `${name.padEnd(34)} first ${String(t.firstMs).padStart(7)} ms, median of ${rounds} ${String(t.medianMs).padStart(7)} ms  (${t.count} ${unit})`;
    console.log(line("generated orders, quick", result.quick, "orders"));
    console.log(line("generated orders, thorough", result.thorough, "orders"));
    console.log(line("negative cases, every method", result.negatives, "cases"));
    const met = result.quick.firstMs < QUICK_TARGET_MS;
    console.log(
      `quick set, first run: ${result.quick.firstMs} ms (target < ${QUICK_TARGET_MS} ms: ${met ? "met" : "NOT met"})`,
    );
    return met ? EXIT.ok : EXIT.failed;
  },
});
