/**
 * `npm run bench:provider`: the reference provider's throughput against a bare node:http server,
 * and its peak RSS; with --soak, its RSS over a long run at its capacity.
 */
import { runProviderBench, runProviderSoak } from "../bench/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

const TARGET_RATIO = 0.5;
/** A soak's RSS may grow at most this much after its first minute. */
const TARGET_SOAK_GROWTH = 0.2;

const mib = (bytes: number | undefined) =>
  bytes === undefined ? "unknown" : `${(bytes / 2 ** 20).toFixed(0)} MiB`;

export const benchProvider = defineCommand({
  name: "bench:provider",
  summary:
    "Mobile-commerce creations per second on the reference provider vs a bare node:http server, same\n" +
    "run, same load, in alternating rounds; prints both, the median of the rounds' ratios (target\n" +
    `≥ ${TARGET_RATIO}) and the provider's peak RSS. --soak SECONDS instead runs the provider alone at its\n` +
    `capacity and samples its RSS (target: at most ${TARGET_SOAK_GROWTH * 100} % above its value after the first minute).`,
  options: {
    duration: {
      type: "number",
      value: "SECONDS",
      description: "measured time per server and round (default: 10)",
    },
    connections: { type: "number", description: "keep-alive connections (default: 32)" },
    warmup: { type: "number", value: "SECONDS", description: "warm-up per server and round (default: 2)" },
    rounds: { type: "number", description: "alternating rounds (default: 3)" },
    soak: {
      type: "number",
      value: "SECONDS",
      description: "run the provider alone at its capacity this long, sampling its RSS (e.g. 600)",
    },
    "unique-merchant-order-ids": {
      type: "boolean",
      description: "with --soak: a fresh merchantOrderID per order (each stays used, so remembered)",
    },
  },
  exitCodes: { [EXIT.ok]: "target met", [EXIT.failed]: "target not met" },
  async run(options) {
    const connections = options.connections ?? 32;
    if (options.soak !== undefined) {
      const unique = options["unique-merchant-order-ids"] === true;
      console.log(
        `bench:provider --soak: POST mobile-commerce creation for ${options.soak} s, ${connections} keep-alive ` +
          `connections${unique ? ", a fresh merchantOrderID each" : ""}; RSS every 10 s`,
      );
      const soak = await runProviderSoak({
        durationSeconds: options.soak,
        connections,
        uniqueMerchantOrderIds: unique,
        sampleEverySeconds: 10,
      });
      // Heap used shows V8's sawtooth under RSS: orders die old (after lifetime + retention), and old
      // space is collected late; its lows show whether the live set stays bounded.
      for (const sample of soak.samples)
        console.log(
          `  ${String(sample.atSeconds).padStart(5)} s  RSS ${mib(sample.bytes)}  (heap used ${mib(sample.heapUsedBytes)})`,
        );
      const lows = soak.samples.filter((s) => s.atSeconds >= 60).map((s) => s.heapUsedBytes);
      if (lows.length > 0)
        console.log(
          `heap used after the first minute: lowest ${mib(Math.min(...lows))}, highest ${mib(Math.max(...lows))}`,
        );
      console.log(
        `reference provider ${soak.throughput.requestsPerSecond} req/s (${soak.throughput.requests} orders), peak RSS ${mib(soak.peakRssBytes)}`,
      );
      if (soak.afterFirstMinute === undefined || soak.growthAfterFirstMinute === undefined) {
        console.log("RSS after the first minute: the run was too short to say (use --soak 120 or more)");
        return EXIT.failed;
      }
      const met = soak.growthAfterFirstMinute <= TARGET_SOAK_GROWTH;
      console.log(
        `RSS after the first minute ${mib(soak.afterFirstMinute.bytes)}, at most ${(soak.growthAfterFirstMinute * 100).toFixed(1)} % ` +
          `above it later (target ≤ ${TARGET_SOAK_GROWTH * 100} %: ${met ? "met" : "NOT met"})`,
      );
      return met ? EXIT.ok : EXIT.failed;
    }
    const settings = {
      durationSeconds: options.duration ?? 10,
      connections,
      warmupSeconds: options.warmup ?? 2,
      rounds: options.rounds ?? 3,
    };
    console.log(
      `bench:provider: POST mobile-commerce creation, ${settings.connections} keep-alive connections, ` +
        `${settings.warmupSeconds}s warm-up + ${settings.durationSeconds}s each, ${settings.rounds} alternating rounds`,
    );
    const { bare, provider, ratio, rounds, providerPeakRssBytes } = await runProviderBench(settings);
    for (const [i, round] of rounds.entries()) {
      console.log(
        `  round ${i + 1}: bare ${round.bare} req/s, provider ${round.provider} req/s (${(round.provider / round.bare).toFixed(3)})`,
      );
    }
    const line = (name: string, t: typeof bare) =>
      `${name.padEnd(20)} ${String(t.requestsPerSecond).padStart(8)} req/s  (${t.requests} requests, p99 ${t.p99LatencyMs} ms)`;
    console.log(line("bare node:http", bare));
    console.log(line("reference provider", provider));
    console.log(`reference provider peak RSS: ${mib(providerPeakRssBytes)}`);
    console.log(
      `ratio provider / bare (median of rounds): ${ratio} (target ≥ ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? "met" : "NOT met"})`,
    );
    return ratio >= TARGET_RATIO ? EXIT.ok : EXIT.failed;
  },
});
