/**
 * What a long observe session holds in memory. Two measures:
 * - a soak (`runObserveSoak`): a real session (scripts/bench/observe-soak-child.ts, a process of its
 *   own) in front of the bundled reference provider, the example merchant run over and over through
 *   it for the given time, its heap and RSS sampled while it records, as it is judged and as its
 *   reports are written;
 * - a quick figure (`runObserveJudgingMemory`): N exchanges made by the reference provider's own
 *   handler (no HTTP), spilled as a session spills them, then judged and reported in this process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  judgeSession,
  type ObservedExchange,
  ObserveSession,
  writeObserveReports,
} from "../../certify/index.ts";
import { endpointPath, readProfile } from "../../contract/index.ts";
import { buildMobileCommerceOrderRequest } from "../../fixtures/index.ts";
import { runExampleMerchant } from "../../fixtures/merchants/example/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import {
  createReferenceProvider,
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../../fixtures/providers/reference/index.ts";
import { runMasker } from "../../run-setup/index.ts";

export interface SoakSample {
  phase: string;
  atSeconds: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** While recording: heap used after a full collection, what the session holds. */
  heapHeldBytes?: number;
  /** Example merchant sessions finished by then. */
  merchantRuns: number;
  /** The 1-minute load average then. */
  load: number;
}

export interface ObserveSoakOptions {
  minutes: number;
  /** Example merchants running at once, each over and over. */
  merchants: number;
  sampleSeconds: number;
  /** Told each sample and each line observe printed, as they come. */
  progress?: (line: string) => void;
}

export interface ObserveSoakResult {
  samples: SoakSample[];
  exchanges: number;
  callbacks: number;
  /** Check records the judgement kept for the reports (both sides). */
  records: number;
  merchantRuns: number;
  merchantErrors: number;
  /** The most RSS the session's process held by the end of each phase. */
  peakRss: Record<string, number>;
  /** What observe printed at the end: the verdicts. */
  said: string[];
  exitCode: number | undefined;
  /** Load averages (1, 5, 15 min) at the end of recording. */
  loadAtStop: number[];
}

const CHILD = fileURLToPath(new URL("./observe-soak-child.ts", import.meta.url));
const TSX = new URL("../tsx.mjs", import.meta.url).href;

export async function runObserveSoak(options: ObserveSoakOptions): Promise<ObserveSoakResult> {
  // Quick processing and retries: each merchant session takes about a second, not a minute.
  const provider = await startReferenceProvider({
    port: 0,
    processingDelayMs: 200,
    callbackRetryDelaysMs: [200, 400, 800, 1600],
  });
  const reportDir = mkdtempSync(join(tmpdir(), "h2h-observe-soak-"));
  let child: ChildProcess | undefined;
  try {
    // What the child needs comes as arguments: H2H_* variables are the settings table's alone.
    const spawned = spawn(
      process.execPath,
      ["--import", TSX, CHILD, provider.url, reportDir, String(options.sampleSeconds * 1000)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    child = spawned;
    const exited = new Promise<number | null>((resolve) => spawned.once("exit", (code) => resolve(code)));
    const result: ObserveSoakResult = {
      samples: [],
      exchanges: 0,
      callbacks: 0,
      records: 0,
      merchantRuns: 0,
      merchantErrors: 0,
      peakRss: {},
      said: [],
      exitCode: undefined,
      loadAtStop: [],
    };
    let recording = true;
    let listening: (url: string) => void = () => {};
    const proxyUrl = new Promise<string>((resolve) => {
      listening = resolve;
    });
    let buffered = "";
    spawned.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        const [word, ...rest] = line.split(" ");
        if (word === "LISTENING") listening(rest[0] as string);
        else if (word === "MEM") {
          const [phase, ms, rss, heap, held] = rest;
          const sample: SoakSample = {
            phase: phase as string,
            atSeconds: Math.round(Number(ms) / 1000),
            rssBytes: Number(rss),
            heapUsedBytes: Number(heap),
            ...(Number(held) > 0 ? { heapHeldBytes: Number(held) } : {}),
            merchantRuns: result.merchantRuns,
            load: loadavg()[0] as number,
          };
          result.samples.push(sample);
          options.progress?.(sampleRow(sample));
        } else if (word === "PEAK_RSS") result.peakRss[rest[0] as string] = Number(rest[1]);
        else if (word === "JUDGED") {
          [result.exchanges, result.callbacks, result.records] = rest.map(Number) as [number, number, number];
        } else if (word === "SAID") {
          const said = rest.join(" ");
          // The verdicts and what follows them; observe's own progress lines are said as they come.
          if (!recording && !said.startsWith("observe: ")) result.said.push(said);
          options.progress?.(`  observe: ${said.replace(/^observe: /, "")}`);
        } else if (word === "EXIT") result.exitCode = Number(rest[0]);
      }
    });
    const url = await Promise.race([
      proxyUrl,
      exited.then((code) => {
        throw new Error(`the observe session's process ended (exit ${code}) before it listened`);
      }),
    ]);
    const endAt = Date.now() + options.minutes * 60_000;
    const merchant = async () => {
      while (Date.now() < endAt) {
        try {
          await runExampleMerchant({
            baseUrl: url,
            apiKey: REFERENCE_API_KEYS.merchant1,
            callbackSecret: REFERENCE_CALLBACK_SECRET,
            callbackWaitMs: 10_000,
          });
          result.merchantRuns += 1;
        } catch (error) {
          result.merchantErrors += 1;
          if (result.merchantErrors <= 3)
            options.progress?.(`  merchant session failed: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: options.merchants }, merchant));
    result.loadAtStop = loadavg();
    recording = false;
    spawned.kill("SIGTERM");
    await exited;
    return result;
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await provider.stop({ cutInFlight: true });
    rmSync(reportDir, { recursive: true, force: true });
  }
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

export function sampleRow(s: SoakSample): string {
  const held = s.heapHeldBytes === undefined ? "" : ` (held ${mib(s.heapHeldBytes).padStart(6)})`;
  return `${s.phase.padEnd(10)} ${String(s.atSeconds).padStart(6)} s  heap ${mib(s.heapUsedBytes).padStart(7)} MiB${held.padEnd(14)}  RSS ${mib(s.rssBytes).padStart(7)} MiB  merchant sessions ${String(s.merchantRuns).padStart(6)}  load ${s.load.toFixed(2)}`;
}

export interface JudgingMemoryResult {
  exchanges: number;
  records: number;
  /** Heap held (after a full collection) with the session recorded, before judging. */
  heapBeforeBytes: number;
  /**
   * Heap held while judging, at its most of the moments judging finished reading the session
   * through (its working state for rules across exchanges then built), after a full collection.
   */
  heapWhileJudgingBytes: number;
  /** Heap just judged, before and after a full collection. */
  heapJudgedBytes: number;
  heapJudgedHeldBytes: number;
  /** Heap once the reports are written, the judgement still held, after a full collection. */
  heapReportedHeldBytes: number;
  judgeMs: number;
  reportsMs: number;
  peakRssBytes: number;
}

/**
 * N exchanges, mobile-commerce creations and confirmations (a tenth with a wrong code first) as
 * the reference provider's handler answers them, spilled, judged and reported: the heap judging
 * and the reports hold, in a few seconds rather than a session's time. No callbacks.
 */
export async function runObserveJudgingMemory(options: {
  exchanges: number;
  /** Told once judged, before the reports: what judging held is known even if writing them fails. */
  judged?: (
    figures: Omit<JudgingMemoryResult, "reportsMs" | "heapReportedHeldBytes" | "peakRssBytes">,
  ) => void;
}): Promise<JudgingMemoryResult> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const held = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const profile = await readProfile(REFERENCE_PROFILE_PATH);
  // Processing never ends within the measure: no callback is due.
  const provider = createReferenceProvider({ processingDelayMs: 600_000 });
  const spillDir = mkdtempSync(join(tmpdir(), "h2h-observe-memory-"));
  const reportDir = mkdtempSync(join(tmpdir(), "h2h-observe-memory-reports-"));
  try {
    const session = new ObserveSession(profile.limits.maxBodyBytes, spillDir);
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}`,
    };
    const exchange = (url: string, body: string) => {
      const startedAtMs = Date.now();
      const reply = provider.request({ method: "POST", url, headers, body });
      const recorded: ObservedExchange = {
        id: session.exchangeId(),
        startedAtMs,
        durationMs: 1,
        method: "POST",
        path: url,
        requestHeaders: headers,
        requestBody: { text: body, bytes: Buffer.byteLength(body) },
        response: {
          status: reply.status,
          headers: Object.fromEntries(Object.entries(reply.headers).map(([k, v]) => [k, String(v)])),
          body: { text: reply.body, bytes: Buffer.byteLength(reply.body) },
        },
      };
      session.beginExchange(recorded);
      session.finishExchange(recorded);
      return reply;
    };
    for (let order = 0; session.exchangeCount < options.exchanges; order++) {
      const created = exchange(
        endpointPath("createMobileCommerceOrder"),
        JSON.stringify(
          buildMobileCommerceOrderRequest({
            methodID: 101,
            amount: 1500,
            merchantOrderID: `memory-${order}`,
          }),
        ),
      );
      const id = (JSON.parse(created.body) as { data?: { id?: string } }).data?.id;
      if (id === undefined || session.exchangeCount >= options.exchanges) continue;
      const confirm = endpointPath("confirmMobileCommerceOrder", id);
      if (order % 10 === 0) exchange(confirm, JSON.stringify({ code: profile.confirmation.wrongCode }));
      if (session.exchangeCount < options.exchanges) exchange(confirm, JSON.stringify({ code: "1111" }));
    }
    session.flush();
    const heapBeforeBytes = held();
    // The session as judging reads it, sampled each time judging has read it through.
    let heapWhileJudgingBytes = 0;
    let pausedMs = 0;
    const sampled = <T>(each: () => Generator<T>) =>
      function* () {
        yield* each();
        const paused = performance.now();
        heapWhileJudgingBytes = Math.max(heapWhileJudgingBytes, held());
        pausedMs += performance.now() - paused;
      };
    const measured = Object.create(session) as ObserveSession;
    measured.eachExchange = sampled(() => session.eachExchange());
    measured.eachCallback = sampled(() => session.eachCallback());
    const startedAt = new Date();
    let began = performance.now();
    const judgement = judgeSession(measured, { profile, signed: true, callbacksObserved: true });
    const judgeMs = performance.now() - began - pausedMs;
    const heapJudgedBytes = process.memoryUsage().heapUsed;
    const heapJudgedHeldBytes = held();
    const records = judgement.provider.checks.length + judgement.merchant.checks.length;
    options.judged?.({
      exchanges: judgement.exchanges,
      records,
      heapBeforeBytes,
      heapWhileJudgingBytes,
      heapJudgedBytes,
      heapJudgedHeldBytes,
      judgeMs: Math.round(judgeMs),
    });
    began = performance.now();
    await writeObserveReports(
      {
        judgement,
        session,
        profile,
        upstream: "http://127.0.0.1:1",
        reference: true,
        startedAt,
        finishedAt: new Date(),
        stoppedBecause: "bench:observe --judge-exchanges",
        sinkRefusals: {},
      },
      reportDir,
      runMasker({ apiKey: REFERENCE_API_KEYS.merchant1, callbackSecret: REFERENCE_CALLBACK_SECRET }),
    );
    const reportsMs = performance.now() - began;
    const heapReportedHeldBytes = held();
    return {
      exchanges: judgement.exchanges,
      records,
      heapBeforeBytes,
      heapWhileJudgingBytes,
      heapJudgedBytes,
      heapJudgedHeldBytes,
      heapReportedHeldBytes,
      judgeMs: Math.round(judgeMs),
      reportsMs: Math.round(reportsMs),
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    };
  } finally {
    await provider.stop({ cutInFlight: true });
    rmSync(spillDir, { recursive: true, force: true });
    rmSync(reportDir, { recursive: true, force: true });
  }
}
