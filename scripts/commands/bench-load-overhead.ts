/**
 * `npm run bench:load-overhead` (needs a local k6 on Linux): k6's CPU per iteration and peak RSS
 * running the bundled mobile-commerce script, a typical hand-written script and a bare script, at
 * one fixed arrival rate against a canned-answer server; prints the bundle / hand-written ratios.
 */

import { defaultPreAllocatedVUs, findLocalK6, HOW_TO_GET_K6, NoK6Error } from "../../load/index.ts";
import { MAX_ACHIEVED_SPREAD, OVERHEAD_SCRIPTS, runLoadOverheadBench, TARGET } from "../bench/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

export const benchLoadOverhead = defineCommand({
  name: "bench:load-overhead",
  summary:
    "k6's CPU seconds per iteration and peak RSS running the bundled mobile-commerce script, a typical\n" +
    "hand-written k6 script (the same two requests, name tags, per-endpoint p95 thresholds, two checks\n" +
    "per response) and a bare one, each at the same fixed arrival rate, VUs and duration against a\n" +
    `server with canned answers; medians of rotating rounds. Targets: cpu ratio ≤ ${TARGET.cpuRatio},\n` +
    `peak RSS ratio ≤ ${TARGET.rssRatio} (bundle / hand-written). Needs a local k6 on Linux (PATH or K6_BIN).`,
  options: {
    rate: { type: "number", description: "iterations per second, fixed (default: 1000)" },
    duration: { type: "string", value: "DURATION", description: "k6 duration of each run (default: 20s)" },
    vus: {
      type: "number",
      description: "VUs of every run (default: what npm run load starts with at 1000/s, 20)",
    },
    rounds: { type: "number", description: "rounds of the three scripts, in rotating order (default: 3)" },
  },
  environment: ["K6_BIN  the k6 binary (default: k6 on PATH)"],
  exitCodes: {
    [EXIT.ok]: "both ratios within target",
    [EXIT.failed]: "a ratio missed its target",
    [EXIT.notJudged]: "the scripts ran at rates too far apart to compare (a busy machine)",
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
    const rate = options.rate ?? 1000;
    const settings = {
      rate,
      duration: options.duration ?? "20s",
      // By default the VUs `npm run load` itself starts with at 1000 orders/s (at least), for all three scripts.
      vus: options.vus ?? Math.max(defaultPreAllocatedVUs(1000), defaultPreAllocatedVUs(rate)),
      rounds: options.rounds ?? 3,
    };
    console.log(
      `bench:load-overhead: ${OVERHEAD_SCRIPTS.join(", ")} at ${settings.rate} iterations/s for ${settings.duration} each, ` +
        `${settings.vus} VUs, ${settings.rounds} rounds, against a canned-answer server; k6 ${k6}`,
    );
    const result = await runLoadOverheadBench(k6, settings, (run, round) =>
      console.log(
        `  round ${round + 1} ${run.script.padEnd(12)} ${String(run.iterations).padStart(7)} iterations  ` +
          `${run.cpuSeconds.toFixed(2).padStart(6)} s CPU  ${run.cpuPerIterationUs.toFixed(1).padStart(6)} µs/iteration  ` +
          `peak RSS ${run.peakRssMiB.toFixed(1)} MiB  ${(run.achieved * 100).toFixed(0)} % of the rate`,
      ),
    );
    console.log("medians:");
    for (const script of OVERHEAD_SCRIPTS) {
      const m = result.median[script];
      console.log(
        `  ${script.padEnd(12)} ${m.cpuPerIterationUs.toFixed(1).padStart(6)} µs CPU/iteration  peak RSS ${m.peakRssMiB.toFixed(1)} MiB  ` +
          `${(m.achieved * 100).toFixed(0)} % of the rate`,
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
    if (!result.comparable) {
      console.log(
        `not comparable: the scripts' achieved rates differ by ${((result.achievedSpread - 1) * 100).toFixed(0)} % ` +
          `(at most ${Math.round((MAX_ACHIEVED_SPREAD - 1) * 100)} %): k6's fixed costs per second would weigh unevenly; ` +
          "run again on a quieter machine, or with a lower --rate",
      );
      return EXIT.notJudged;
    }
    return cpuOk && rssOk ? EXIT.ok : EXIT.failed;
  },
});
