/** `npm run bench:observe`: the latency and throughput observe mode's proxy costs, vs a bare undici forwarder. */
import { runObserveBench } from "../bench/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

const TARGET_ADDED_P50_MS = 1;
const TARGET_RATIO = 0.7;

export const benchObserve = defineCommand({
  name: "bench:observe",
  summary:
    "The latency observe mode's recording proxy adds (p50, p99 of sequential requests) and its throughput\n" +
    "(concurrent keep-alive requests) against a bare undici forwarder in front of the same upstream, same\n" +
    `run, on loopback. Targets: ≤ ${TARGET_ADDED_P50_MS} ms added at p50, throughput ≥ ${TARGET_RATIO}× the forwarder's.`,
  options: {
    requests: { type: "number", description: "sequential requests timed through each (default: 2000)" },
    "load-requests": { type: "number", description: "concurrent requests through each (default: 20000)" },
    connections: { type: "number", description: "keep-alive connections for throughput (default: 32)" },
  },
  exitCodes: {
    [EXIT.ok]: "both targets met",
    [EXIT.failed]: "a target missed",
  },
  async run(options) {
    const result = await runObserveBench({
      requests: options.requests ?? 2_000,
      loadRequests: options["load-requests"] ?? 20_000,
      connections: options.connections ?? 32,
    });
    const row = (name: string, l: { p50Ms: number; p99Ms: number }, rps?: number) =>
      `${name.padEnd(22)} p50 ${l.p50Ms.toFixed(3)} ms  p99 ${l.p99Ms.toFixed(3)} ms${rps !== undefined ? `  ${rps} requests/s` : ""}`;
    console.log(row("upstream directly", result.direct));
    console.log(row("bare undici forwarder", result.bare, result.bare.throughput.requestsPerSecond));
    console.log(row("observe proxy", result.observe, result.observe.throughput.requestsPerSecond));
    const latencyMet = result.addedP50Ms <= TARGET_ADDED_P50_MS;
    const ratioMet = result.ratio >= TARGET_RATIO;
    console.log(
      `added by the proxy over the forwarder: p50 ${result.addedP50Ms} ms (target ≤ ${TARGET_ADDED_P50_MS}: ${latencyMet ? "met" : "NOT met"}), p99 ${result.addedP99Ms} ms`,
    );
    console.log(
      `throughput proxy / forwarder: ${result.ratio} (target ≥ ${TARGET_RATIO}: ${ratioMet ? "met" : "NOT met"})`,
    );
    console.log(
      `memory: ${result.memory.exchanges} exchanges recorded (spilled to a temporary folder); RSS ${result.memory.rssBeforeMiB} MiB before, ${result.memory.rssAfterMiB} MiB after`,
    );
    return latencyMet && ratioMet ? EXIT.ok : EXIT.failed;
  },
});
