/**
 * `npm run bench:load-overhead` (needs a local k6 on Linux): k6's CPU per iteration and peak RSS
 * running the bundled mobile-commerce script, a typical hand-written script and a bare script, at
 * one fixed arrival rate against a canned-answer server; prints the bundle / hand-written ratios.
 * Exit code 0 when both are within target.
 */
import { parseArgs } from "node:util";
import {
  MIN_ACHIEVED,
  OVERHEAD_SCRIPTS,
  runLoadOverheadBench,
  TARGET,
} from "../bench/load-overhead-bench.ts";
import { findLocalK6, HOW_TO_GET_K6 } from "../load/harness/k6-runner.ts";
import { defaultPreAllocatedVUs } from "../load/lib/scenarios.ts";
import { numberFlag, runCli } from "./cli.ts";

await runCli(async () => {
  const { values } = parseArgs({
    options: {
      rate: { type: "string" },
      duration: { type: "string" },
      vus: { type: "string" },
      rounds: { type: "string" },
    },
    strict: true,
  });
  const k6 = findLocalK6();
  if (!k6) {
    console.error(
      `error: bench:load-overhead measures k6 itself and needs a local k6: ${HOW_TO_GET_K6.split(", or")[0]}`,
    );
    return 3;
  }
  const rate = numberFlag("rate", values.rate) ?? 1000;
  const options = {
    rate,
    duration: values.duration ?? "20s",
    // By default the VUs `npm run load` itself starts with at 1000 orders/s (at least), for all three scripts.
    vus: numberFlag("vus", values.vus) ?? Math.max(defaultPreAllocatedVUs(1000), defaultPreAllocatedVUs(rate)),
    rounds: numberFlag("rounds", values.rounds) ?? 3,
  };
  console.log(
    `bench:load-overhead: ${OVERHEAD_SCRIPTS.join(", ")} at ${options.rate} iterations/s for ${options.duration} each, ` +
      `${options.vus} VUs, ${options.rounds} rounds, against a canned-answer server; k6 ${k6}`,
  );
  const result = await runLoadOverheadBench(k6, options, (run, round) =>
    console.log(
      `  round ${round + 1} ${run.script.padEnd(12)} ${String(run.iterations).padStart(7)} iterations  ` +
        `${run.cpuSeconds.toFixed(2).padStart(6)} s CPU  ${run.cpuPerIterationUs.toFixed(1).padStart(6)} µs/iteration  ` +
        `peak RSS ${run.peakRssMiB.toFixed(1)} MiB${run.achieved < MIN_ACHIEVED ? `  (k6 kept only ${(run.achieved * 100).toFixed(0)} % of the rate)` : ""}`,
    ),
  );
  console.log("medians:");
  for (const script of OVERHEAD_SCRIPTS) {
    const m = result.median[script];
    console.log(
      `  ${script.padEnd(12)} ${m.cpuPerIterationUs.toFixed(1).padStart(6)} µs CPU/iteration  peak RSS ${m.peakRssMiB.toFixed(1)} MiB`,
    );
  }
  console.log(`  bundle size ${(result.bundleBytes / 1024).toFixed(1)} KiB`);
  const cpuOk = result.cpuRatio <= TARGET.cpuRatio;
  const rssOk = result.rssRatio <= TARGET.rssRatio;
  console.log(`cpu per iteration ratio (bundle / hand-written): ${result.cpuRatio.toFixed(3)}`);
  console.log(`peak RSS ratio (bundle / hand-written): ${result.rssRatio.toFixed(3)}`);
  console.log(
    `targets: cpu ≤ ${TARGET.cpuRatio} ${cpuOk ? "met" : "NOT met"}, peak RSS ≤ ${TARGET.rssRatio} ${rssOk ? "met" : "NOT met"}`,
  );
  if (result.invalid.length > 0) {
    console.log(
      `not valid: in ${result.invalid.length} of ${result.runs.length} runs k6 started fewer than ${MIN_ACHIEVED * 100} % of the ` +
        `iterations ${options.rate}/s asks for (a busy machine): run again, or with a lower --rate`,
    );
    return 2;
  }
  return cpuOk && rssOk ? 0 : 1;
});
