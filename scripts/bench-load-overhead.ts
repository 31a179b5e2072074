/**
 * `npm run bench:load-overhead` (needs a local k6): iterations per second of the bundled
 * mobile-commerce script vs a minimal script with the same two requests and no checks, same VUs,
 * same run; prints the ratio (target ≥ 0.85), the bundle sizes and k6's peak memory for both.
 */
import { parseArgs } from "node:util";
import { runLoadOverheadBench } from "../bench/load-overhead-bench.ts";
import { findLocalK6, HOW_TO_GET_K6 } from "../load/harness/k6-runner.ts";
import { numberFlag, runCli } from "./cli.ts";

const TARGET_RATIO = 0.85;

await runCli(async () => {
  const { values } = parseArgs({
    options: { vus: { type: "string" }, duration: { type: "string" } },
    strict: true,
  });
  const k6 = findLocalK6();
  if (!k6) {
    console.error(
      `error: bench:load-overhead measures k6 itself and needs a local k6: ${HOW_TO_GET_K6.split(", or")[0]}`,
    );
    return 3;
  }
  const options = { vus: numberFlag("vus", values.vus) ?? 100, duration: values.duration ?? "20s" };
  console.log(`bench:load-overhead: ${options.vus} VUs, ${options.duration} each, k6 ${k6}`);
  const result = await runLoadOverheadBench(k6, options);
  const mem = (r: { peakRssMiB: number | null }) => (r.peakRssMiB === null ? "n/a" : `${r.peakRssMiB} MiB`);
  console.log(
    `minimal script   ${String(result.baseline.iterationsPerSecond).padStart(7)} it/s   k6 peak memory ${mem(result.baseline)}   ${result.minimalBytes} bytes`,
  );
  console.log(
    `bundled script   ${String(result.bundled.iterationsPerSecond).padStart(7)} it/s   k6 peak memory ${mem(result.bundled)}`,
  );
  for (const size of result.sizes)
    console.log(`  bundle ${size.script}.js: ${(size.bytes / 1024).toFixed(1)} KiB`);
  console.log(
    `ratio bundled / minimal: ${result.ratio} (target ≥ ${TARGET_RATIO}: ${result.ratio >= TARGET_RATIO ? "met" : "NOT met"})`,
  );
  return result.ratio >= TARGET_RATIO ? 0 : 1;
});
