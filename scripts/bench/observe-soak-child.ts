/**
 * The observe session of `bench:observe --soak`, in a process of its own so that the memory
 * sampled is the session's alone (proxy, sink, judging, reports), not the provider's or the
 * merchants'. Its arguments: the upstream (the parent's reference provider), the report folder and
 * the sampling interval in ms; stopped by SIGTERM. Prints, one per line:
 *   LISTENING <url>                                 once the proxy listens
 *   MEM <phase> <ms since start> <rss> <heap used> <heap held>
 *                                                   every sampling interval while recording, each
 *                                                   second once stopped, and at each phase's end;
 *                                                   held: after a full collection, while recording
 *                                                   only (0 otherwise), what the session keeps
 *   PEAK_RSS <phase> <bytes>                        the most RSS ever held, at the end of each phase
 *   JUDGED <exchanges> <callbacks> <records>        the session's counts and the check records kept
 *   SAID <line>                                     what observe printed
 * Phases: recording; judged and judged-gc (just judged, before and after a full collection); reports
 * (while they are written); done and done-gc (written, the judgement still held).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { runObserve } from "../../certify/index.ts";
import { readProfile } from "../../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import { REFERENCE_CALLBACK_SECRET } from "../../fixtures/providers/reference/index.ts";

// A forced collection tells what is held from what is garbage not yet collected.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const [upstream, reportDir, sampleArg] = process.argv.slice(2);
const sampleMs = Number(sampleArg ?? 30_000);
if (!upstream || !reportDir || !(sampleMs > 0)) {
  console.error(
    "usage: observe-soak-child.ts UPSTREAM_URL REPORT_DIR [SAMPLE_MS] (started by bench:observe --soak)",
  );
  process.exit(64);
}

const began = performance.now();
let phase = "recording";
const sample = (name = phase) => {
  const { rss, heapUsed } = process.memoryUsage();
  // While recording, what is held apart from garbage not yet collected: a growing session shows.
  let held = 0;
  if (name === "recording") {
    gc();
    held = process.memoryUsage().heapUsed;
  }
  console.log(`MEM ${name} ${Math.round(performance.now() - began)} ${rss} ${heapUsed} ${held}`);
};
const peak = (name: string) => console.log(`PEAK_RSS ${name} ${process.resourceUsage().maxRSS * 1024}`);
let timer = setInterval(sample, sampleMs);
const resample = (ms: number) => {
  clearInterval(timer);
  timer = setInterval(sample, ms);
};

const stop = new AbortController();
process.once("SIGTERM", () => {
  sample();
  peak("recording");
  phase = "judging";
  // Judging is synchronous: no sample lands in it; the next is taken as it ends.
  resample(1_000);
  stop.abort("SIGTERM from bench:observe --soak");
});

const result = await runObserve({
  profile: await readProfile(REFERENCE_PROFILE_PATH),
  settings: {
    callbackSecret: REFERENCE_CALLBACK_SECRET,
    sinkPort: 0,
    sinkPublicUrl: undefined,
    apiKey: undefined,
    secondApiKey: undefined,
  },
  upstream,
  tls: undefined,
  port: 0,
  keepWebhook: false,
  reportDir,
  signal: stop.signal,
  print: (line) => console.log(line.startsWith("LISTENING ") ? line : `SAID ${line}`),
  onListening: () => sample(),
  onJudged: (judgement) => {
    sample("judged");
    gc();
    sample("judged-gc");
    peak("judged");
    phase = "reports";
    console.log(
      `JUDGED ${judgement.exchanges} ${judgement.callbacks} ${judgement.provider.checks.length + judgement.merchant.checks.length}`,
    );
  },
});
clearInterval(timer);
sample("done");
gc();
sample("done-gc");
peak("done");
// Held to here, so that done-gc counts the judgement as the command holds it.
console.log(`EXIT ${result.exitCode}`);
process.exit(0);
