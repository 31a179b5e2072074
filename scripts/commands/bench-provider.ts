/** `npm run bench:provider`: the reference provider's throughput against a bare node:http server. */
import { runProviderBench } from "../../bench/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

const TARGET_RATIO = 0.5;

export const benchProvider = defineCommand({
  name: "bench:provider",
  summary:
    "Mobile-commerce creations per second on the reference provider vs a bare node:http server, same\n" +
    `run, same load, in alternating rounds; prints both and the ratio (target ≥ ${TARGET_RATIO}).`,
  options: {
    duration: {
      type: "number",
      value: "SECONDS",
      description: "measured time per server and round (default: 10)",
    },
    connections: { type: "number", description: "keep-alive connections (default: 32)" },
    warmup: { type: "number", value: "SECONDS", description: "warm-up per server and round (default: 2)" },
    rounds: { type: "number", description: "alternating rounds (default: 3)" },
  },
  exitCodes: { [EXIT.ok]: "target met", [EXIT.failed]: "target not met" },
  async run(options) {
    const settings = {
      durationSeconds: options.duration ?? 10,
      connections: options.connections ?? 32,
      warmupSeconds: options.warmup ?? 2,
      rounds: options.rounds ?? 3,
    };
    console.log(
      `bench:provider: POST mobile-commerce creation, ${settings.connections} keep-alive connections, ` +
        `${settings.warmupSeconds}s warm-up + ${settings.durationSeconds}s each, ${settings.rounds} alternating rounds`,
    );
    const { bare, provider, ratio, rounds } = await runProviderBench(settings);
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
    return ratio >= TARGET_RATIO ? EXIT.ok : EXIT.failed;
  },
});
