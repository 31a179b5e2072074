/**
 * `npm run bench:provider`: mobile-commerce creations per second on the reference provider vs a
 * bare node:http server, same run, same load; prints both and the ratio (target ≥ 0.5).
 */
import { parseArgs } from "node:util";
import { runProviderBench } from "../bench/provider-bench.ts";
import { numberFlag, runCli } from "./cli.ts";

const TARGET_RATIO = 0.5;

await runCli(async () => {
  const { values } = parseArgs({
    options: {
      duration: { type: "string" },
      connections: { type: "string" },
      warmup: { type: "string" },
      rounds: { type: "string" },
    },
    strict: true,
  });
  const options = {
    durationSeconds: numberFlag("duration", values.duration) ?? 10,
    connections: numberFlag("connections", values.connections) ?? 32,
    warmupSeconds: numberFlag("warmup", values.warmup) ?? 2,
    rounds: numberFlag("rounds", values.rounds) ?? 3,
  };
  console.log(
    `bench:provider: POST mobile-commerce creation, ${options.connections} keep-alive connections, ` +
      `${options.warmupSeconds}s warm-up + ${options.durationSeconds}s each, ${options.rounds} alternating rounds`,
  );
  const { bare, provider, ratio, rounds } = await runProviderBench(options);
  for (const [i, round] of rounds.entries()) {
    console.log(
      `  round ${i + 1}: bare ${round.bare} req/s, provider ${round.provider} req/s (${(round.provider / round.bare).toFixed(3)})`,
    );
  }
  const line = (name: string, t: typeof bare) =>
    `${name.padEnd(20)} ${String(t.requestsPerSecond).padStart(8)} req/s  (${t.requests} requests, p99 ${t.p99LatencyMs} ms)`;
  console.log(line("bare node:http", bare));
  console.log(line("reference provider", provider));
  console.log(
    `ratio provider / bare: ${ratio} (target ≥ ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? "met" : "NOT met"})`,
  );
  return ratio >= TARGET_RATIO ? 0 : 1;
});
