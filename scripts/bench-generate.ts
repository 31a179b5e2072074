/**
 * `npm run bench:generate`: time to build the generated probes of the reference methods (quick and
 * thorough order sets, every method's negative cases), first run and median of repeated runs.
 * Target: the quick set in under 500 ms, first run included.
 */
import { parseArgs } from "node:util";
import { runGenerateBench, type Timing } from "../bench/generate-bench.ts";
import { numberFlag, runCli } from "./cli.ts";

const QUICK_TARGET_MS = 500;

await runCli(async () => {
  const { values } = parseArgs({ options: { rounds: { type: "string" } }, strict: true });
  const rounds = numberFlag("rounds", values.rounds) ?? 20;
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
  return met ? 0 : 1;
});
