/**
 * `npm run bench:sink`: callbacks per second accepted and persisted by the webhook sink vs a bare
 * node:http server answering 200 without storing, same run; prints both, the ratio, and
 * acknowledged vs stored (which must be equal). Targets: ≥ 5,000/s persisted, ratio ≥ 0.3.
 */
import { parseArgs } from "node:util";
import { runSinkBench } from "../bench/sink-bench.ts";
import { numberFlag, runCli } from "./cli.ts";

const TARGET_RATE = 5_000;
const TARGET_RATIO = 0.3;

await runCli(async () => {
  const { values } = parseArgs({
    options: { callbacks: { type: "string" }, connections: { type: "string" } },
    strict: true,
  });
  const options = {
    callbacks: numberFlag("callbacks", values.callbacks) ?? 100_000,
    connections: numberFlag("connections", values.connections) ?? 64,
  };
  console.log(
    `bench:sink: ${options.callbacks} signed callbacks to each server over ${options.connections} keep-alive connections`,
  );
  const result = await runSinkBench(options);
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
  return complete && rateMet && result.ratio >= TARGET_RATIO ? 0 : 1;
});
