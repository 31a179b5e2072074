/** `npm run bench:sink`: the webhook sink's persisted callbacks per second against a bare node:http server. */
import { runSinkBench } from "../bench/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

const TARGET_RATE = 5_000;
const TARGET_RATIO = 0.3;

export const benchSink = defineCommand({
  name: "bench:sink",
  summary:
    "Callbacks per second accepted and persisted by the webhook sink vs a bare node:http server\n" +
    "answering 200 without storing, same run; prints both, the ratio, and acknowledged vs stored\n" +
    `(which must be equal). Targets: ≥ ${TARGET_RATE} persisted per second, ratio ≥ ${TARGET_RATIO}.`,
  options: {
    callbacks: { type: "number", description: "signed callbacks sent to each server (default: 100000)" },
    connections: { type: "number", description: "keep-alive connections (default: 64)" },
  },
  exitCodes: {
    [EXIT.ok]: "every target met and no acknowledged callback missing",
    [EXIT.failed]: "a target missed or an acknowledged callback missing",
  },
  async run(options) {
    const settings = { callbacks: options.callbacks ?? 100_000, connections: options.connections ?? 64 };
    console.log(
      `bench:sink: ${settings.callbacks} signed callbacks to each server over ${settings.connections} keep-alive connections`,
    );
    const result = await runSinkBench(settings);
    const line = (name: string, t: typeof result.bare) =>
      `${name.padEnd(28)} ${String(t.requestsPerSecond).padStart(8)} callbacks/s  (${t.requests} requests, p99 ${t.p99LatencyMs} ms)`;
    console.log(line("bare node:http (no storing)", result.bare));
    console.log(line("webhook sink (persisted)", result.sink));
    console.log(
      `ratio sink / bare: ${result.ratio} (target ≥ ${TARGET_RATIO}: ${result.ratio >= TARGET_RATIO ? "met" : "NOT met"})`,
    );
    const rateMet = result.sink.requestsPerSecond >= TARGET_RATE;
    console.log(
      `persisted rate: ${result.sink.requestsPerSecond}/s (target ≥ ${TARGET_RATE}: ${rateMet ? "met" : "NOT met"})`,
    );
    const complete = result.acknowledged === result.stored;
    console.log(
      `acknowledged ${result.acknowledged}, found in the store ${result.stored}: ${complete ? "none missing" : `${result.acknowledged - result.stored} MISSING`}`,
    );
    return complete && rateMet && result.ratio >= TARGET_RATIO ? EXIT.ok : EXIT.failed;
  },
});
