/**
 * `npm run bench:observe`: the latency and throughput observe mode's proxy costs, vs a bare undici
 * forwarder; with --soak or --judge-exchanges, the memory of a long session instead.
 */
import {
  runObserveBench,
  runObserveJudgingMemory,
  runObserveSoak,
  type SoakSample,
  sampleRow,
} from "../bench/index.ts";
import { defineCommand, EXIT, UsageError } from "../cli.ts";

const TARGET_ADDED_P50_MS = 1;
const TARGET_RATIO = 0.7;

export const benchObserve = defineCommand({
  name: "bench:observe",
  summary:
    "The latency observe mode's recording proxy adds (p50, p99 of sequential requests) and its throughput\n" +
    "(concurrent keep-alive requests) against a bare undici forwarder in front of the same upstream, same\n" +
    `run, on loopback. Targets: ≤ ${TARGET_ADDED_P50_MS} ms added at p50, throughput ≥ ${TARGET_RATIO}× the forwarder's.\n` +
    "--soak MINUTES instead runs a real observe session (a process of its own) in front of the bundled\n" +
    "reference provider, the example merchant over and over through it, and prints its heap and RSS as it\n" +
    "records, once judged and as its reports are written, with the peaks. --judge-exchanges N instead\n" +
    "judges and reports N exchanges the reference provider's handler answered (no HTTP) and prints the heap.",
  options: {
    requests: { type: "number", description: "sequential requests timed through each (default: 2000)" },
    "load-requests": { type: "number", description: "concurrent requests through each (default: 20000)" },
    connections: { type: "number", description: "keep-alive connections for throughput (default: 32)" },
    soak: { type: "number", value: "MINUTES", description: "run a session this long and sample its memory" },
    merchants: {
      type: "number",
      description: "--soak: example merchants at once, each session after session (default: 2)",
    },
    "sample-seconds": {
      type: "number",
      description: "--soak: seconds between samples while recording (default: 30)",
    },
    "judge-exchanges": {
      type: "number",
      value: "N",
      description: "judge and report N exchanges in this process and print the heap they hold",
    },
  },
  exitCodes: {
    [EXIT.ok]: "both targets met; --soak: both verdicts conformant, every merchant session finished",
    [EXIT.failed]: "a target missed; --soak: a verdict not conformant, or a merchant session failed",
  },
  async run(options) {
    if (options.soak !== undefined && options["judge-exchanges"] !== undefined)
      throw new UsageError("--soak and --judge-exchanges are two measures: give one");
    if (options.soak !== undefined) {
      const positive = {
        "--soak": options.soak,
        "--merchants": options.merchants ?? 2,
        "--sample-seconds": options["sample-seconds"] ?? 30,
      };
      for (const [name, value] of Object.entries(positive))
        if (!(value > 0)) throw new UsageError(`${name} must be more than 0 (got ${value})`);
      return soak(options.soak, options.merchants ?? 2, options["sample-seconds"] ?? 30);
    }
    if (options["judge-exchanges"] !== undefined) {
      const n = options["judge-exchanges"];
      if (!Number.isInteger(n) || n < 1)
        throw new UsageError(`--judge-exchanges must be a whole number above 0 (got ${n})`);
      const r = await runObserveJudgingMemory({
        exchanges: n,
        judged: (j) => {
          console.log(`judged ${j.exchanges} exchanges in ${j.judgeMs} ms; ${j.records} check records kept`);
          console.log(`heap held before judging ${mib(j.heapBeforeBytes)} MiB`);
          console.log(
            `heap held while judging, at its most as judging finished reading the session through: ${mib(j.heapWhileJudgingBytes)} MiB`,
          );
          console.log(
            `heap just judged ${mib(j.heapJudgedBytes)} MiB (held, after a full collection: ${mib(j.heapJudgedHeldBytes)} MiB)`,
          );
        },
      });
      console.log(
        `reports written in ${r.reportsMs} ms; heap held once reported, the judgement kept ${mib(r.heapReportedHeldBytes)} MiB; peak RSS ${mib(r.peakRssBytes)} MiB`,
      );
      return EXIT.ok;
    }
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

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

async function soak(minutes: number, merchants: number, sampleSeconds: number) {
  console.log(
    `observe soak: ${minutes} min, ${merchants} example merchant(s) at once, against the reference provider; a sample every ${sampleSeconds} s while recording, every second once stopped`,
  );
  const result = await runObserveSoak({
    minutes,
    merchants,
    sampleSeconds,
    progress: (line) => console.log(line),
  });
  const recording = result.samples.filter((s) => s.phase === "recording");
  const after = result.samples.filter((s) => s.phase !== "recording");
  const max = (list: SoakSample[], of: (s: SoakSample) => number) => Math.max(0, ...list.map(of));
  console.log("");
  console.log(
    `judged ${result.exchanges} exchanges and ${result.callbacks} callbacks from ${result.merchantRuns} merchant sessions (${result.merchantErrors} failed); ${result.records} check records kept for the reports`,
  );
  for (const line of result.said) console.log(`  ${line}`);
  const first = recording[0];
  const last = recording[recording.length - 1];
  if (first) console.log(`first sample:     ${sampleRow(first)}`);
  if (last) console.log(`end of recording: ${sampleRow(last)}`);
  console.log(
    `recording: heap at most ${mib(max(recording, (s) => s.heapUsedBytes))} MiB, RSS at most ${mib(max(recording, (s) => s.rssBytes))} MiB (peak RSS ${mib(result.peakRss.recording ?? 0)} MiB)`,
  );
  console.log(
    `judging and reports: heap at most ${mib(max(after, (s) => s.heapUsedBytes))} MiB sampled, RSS at most ${mib(max(after, (s) => s.rssBytes))} MiB sampled (peak RSS by the end ${mib(result.peakRss.done ?? 0)} MiB)`,
  );
  console.log(
    `load average at the end of recording: ${result.loadAtStop.map((l) => l.toFixed(2)).join(", ")}`,
  );
  return result.exitCode === 0 && result.merchantErrors === 0 ? EXIT.ok : EXIT.failed;
}
