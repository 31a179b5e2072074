/** `npm run bench:load-overhead` (needs a local k6): the bundled script's cost against a minimal one. */
import { runLoadOverheadBench } from "../../bench/index.ts";
import { findLocalK6, HOW_TO_GET_K6, NoK6Error } from "../../load/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

const TARGET_RATIO = 0.85;

export const benchLoadOverhead = defineCommand({
  name: "bench:load-overhead",
  summary:
    "Iterations per second of the bundled mobile-commerce k6 script vs a minimal script with the same\n" +
    "two requests and no checks, same VUs, same run; prints the ratio (target ≥ 0.85), the bundle\n" +
    "sizes and k6's peak memory for both. Needs a local k6 (PATH or K6_BIN).",
  options: {
    vus: { type: "number", description: "virtual users (default: 100)" },
    duration: { type: "string", value: "DURATION", description: "k6 duration of each script (default: 20s)" },
  },
  environment: ["K6_BIN  the k6 binary (default: k6 on PATH)"],
  exitCodes: {
    [EXIT.ok]: "target met",
    [EXIT.failed]: "target not met",
    [EXIT.missingTool]: "no local k6",
  },
  knownErrors: [[NoK6Error, EXIT.missingTool]],
  async run(options) {
    const k6 = findLocalK6();
    if (!k6) {
      throw new NoK6Error(
        `bench:load-overhead measures k6 itself and needs a local k6: ${HOW_TO_GET_K6.split(", or")[0]}`,
      );
    }
    const settings = { vus: options.vus ?? 100, duration: options.duration ?? "20s" };
    console.log(`bench:load-overhead: ${settings.vus} VUs, ${settings.duration} each, k6 ${k6}`);
    const result = await runLoadOverheadBench(k6, settings);
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
    return result.ratio >= TARGET_RATIO ? EXIT.ok : EXIT.failed;
  },
});
