/**
 * An observe session: the recording proxy in front of the provider (a given upstream, or the
 * bundled reference provider), the sink that takes the provider's callbacks and hands them to the
 * merchant's own webhook, then, once stopped, the two verdicts and their reports.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import type { Profile } from "../../contract/index.ts";
import { type Masker, type TlsMaterial, tlsConnectOptions } from "../../contract/kit/index.ts";
import {
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../../fixtures/providers/reference/index.ts";
import { runMasker, type Settings, SettingsError, startRunSink } from "../../run-setup/index.ts";
import { type RunningSink, SinkClient } from "../../webhook-sink/index.ts";
import { judgeSession, type ObserveJudgement } from "./judge.ts";
import { callbackForwarder, type RunningObserveProxy, startObserveProxy } from "./proxy.ts";
import { type ObserveReportPaths, observeConsoleLines, writeObserveReports } from "./report.ts";
import { ObserveSession } from "./session.ts";

export interface ObserveOptions {
  profile: Profile;
  /** Where the profile was read from, as the report names it (none: the report gives its name only). */
  profilePath?: string | undefined;
  /** The settings (callback secret, sink port and public URL, keys to mask). */
  settings: Pick<Settings, "callbackSecret" | "sinkPort" | "sinkPublicUrl" | "apiKey" | "secondApiKey">;
  /** The provider; undefined: the bundled reference provider. */
  upstream: string | undefined;
  tls: TlsMaterial | undefined;
  /** The proxy's port (0: a free one). */
  port: number;
  keepWebhook: boolean;
  /** Stop after this long (s). */
  durationS?: number | undefined;
  /** Stop once nothing passed for this long (s), after at least one exchange. */
  untilIdleS?: number | undefined;
  reportDir: string;
  /** Stops the session (SIGINT, SIGTERM). */
  signal?: AbortSignal;
  print: (line: string) => void;
  /** Told the proxy's URL once it listens (tests start the merchant then). */
  onListening?: (url: string) => void;
  /**
   * The provider runs in this process (a test's own): its retry timers share the sink's event loop,
   * so every hold of it meanwhile may delay a retry, as for the bundled provider.
   */
  providerInProcess?: boolean;
  /** Told once judged, before the reports are written (bench:observe --soak samples memory there). */
  onJudged?: (judgement: ObserveJudgement) => void;
}

export interface ObserveResult {
  judgement: ObserveJudgement;
  paths: ObserveReportPaths;
  exitCode: 0 | 1 | 2;
  stoppedBecause: string;
}

export async function runObserve(options: ObserveOptions): Promise<ObserveResult> {
  const { profile } = options;
  // As certify: never judge every signature failed for a secret the session was not given.
  if (
    !options.keepWebhook &&
    options.upstream !== undefined &&
    profile.callbacks.signature.scheme !== "none" &&
    secretOf(options, undefined) === undefined
  )
    throw new SettingsError(
      `H2H_CALLBACK_SECRET is not set: the profile "${profile.name}" says callbacks are signed (${profile.callbacks.signature.scheme}); give the secret, or use --keep-webhook to leave callbacks unobserved`,
    );
  const startedAt = new Date();
  let provider: RunningReferenceProvider | undefined;
  let sink: RunningSink | undefined;
  let proxy: RunningObserveProxy | undefined;
  const upstreamAgent = new Agent({ connect: tlsConnectOptions(options.tls) });
  const receiverAgent = new Agent();
  const sinkDir = await mkdtemp(join(tmpdir(), `h2h-observe-${process.pid}-`));
  // What the session saw is spilled to the run's temporary folder as it completes: memory stays
  // bounded however long the session runs, and the folder goes at the end.
  const session = new ObserveSession(profile.limits.maxBodyBytes, sinkDir);
  try {
    if (options.upstream === undefined) provider = await startReferenceProvider({ port: 0 });
    const upstream = options.upstream ?? (provider as RunningReferenceProvider).url;
    if (!options.keepWebhook) {
      const forwarder = callbackForwarder(
        session,
        receiverAgent,
        Math.max(30_000, 2 * profile.timeouts.callbackMs),
      );
      // The reference provider's secret stands in when none is given, as certify does.
      const settings = { ...options.settings, callbackSecret: secretOf(options, provider) } as Settings;
      sink = await startRunSink(settings, profile, sinkDir, {
        forward: (callback) => forwarder.forward(callback),
        // A long session's callbacks outnumber the sink's memory bound: the oldest leave memory for
        // its disk, never refused (a refusal would change what the provider does).
        spill: true,
      });
    }
    const running = sink;
    proxy = await startObserveProxy({
      upstream,
      dispatcher: upstreamAgent,
      session,
      sinkUrlFor: running ? (key) => running.callbackUrl({ runId: key }) : undefined,
      port: options.port,
    });
    options.print(`LISTENING ${proxy.url}`);
    options.print(`observe: point your integration at ${proxy.url} (in place of ${upstream})`);
    options.print(
      running
        ? "observe: metadata.webHook is rewritten to the sink; callbacks are handed on to your webhook"
        : "observe: --keep-webhook: webhooks are left alone, callbacks go unobserved",
    );
    options.print(`observe: ${stopWords(options)}`);
    options.onListening?.(proxy.url);
    const stoppedBecause = await untilStopped(options, session, proxy);
    options.print(`observe: stopping (${stoppedBecause})`);
    // The answers in flight are given a moment, then the proxy closes.
    await proxy.stop();
    const endedAtMs = Date.now();
    const onThisHost = isLoopback(upstream);
    const retryStalls = sink
      ? await measuredRetryStalls(session, sink, {
          sharesSinkProcess: provider !== undefined || options.providerInProcess === true,
          onThisHost,
        })
      : undefined;
    const judgement = judgeSession(session, {
      profile,
      signed: profile.callbacks.signature.scheme !== "none" && secretOf(options, provider) !== undefined,
      callbacksObserved: !options.keepWebhook,
      endedAtMs,
      targetOnThisHost: onThisHost,
      ...(retryStalls ? { retryStalls } : {}),
    });
    options.onJudged?.(judgement);
    const masker = sessionMasker(options, session, sink, provider);
    const finishedAt = new Date();
    const paths = await writeObserveReports(
      {
        judgement,
        session,
        profile,
        profilePath: options.profilePath,
        upstream,
        reference: provider !== undefined,
        startedAt,
        finishedAt,
        stoppedBecause,
        sinkRefusals: sink?.stats().rejected ?? {},
      },
      options.reportDir,
      masker,
    );
    for (const line of observeConsoleLines(judgement)) options.print(masker.text(line));
    options.print(`observe: reports in ${paths.json}${paths.junit ? `, ${paths.junit}` : ""}`);
    const exitCode =
      judgement.exchanges === 0 || judgement.provider.verdict === "not judged"
        ? 2
        : judgement.provider.verdict === "conformant" && judgement.merchant.verdict === "conformant"
          ? 0
          : 1;
    return { judgement, paths, exitCode, stoppedBecause };
  } finally {
    await proxy?.stop().catch(() => undefined);
    await sink?.stop().catch(() => undefined);
    await provider?.stop({ cutInFlight: true }).catch(() => undefined);
    await upstreamAgent.close().catch(() => undefined);
    await receiverAgent.close().catch(() => undefined);
    await rm(sinkDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function isLoopback(url: string): boolean {
  const host = URL.canParse(url) ? new URL(url).hostname.replace(/^\[|\]$/g, "") : "";
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/** More retried callbacks than this are given the whole session's stalls at once: one question each would cost more than it tells. */
const MAX_STALL_QUERIES = 200;

/**
 * How late the sink may have stamped each retried callback's deliveries, and how long the machine
 * was contended meanwhile (certify's measure, callbacks-retries.driver.ts): a retry is judged with
 * that much room to be late. Keyed by the first delivery's id.
 */
async function measuredRetryStalls(
  session: ObserveSession,
  sink: RunningSink,
  target: { sharesSinkProcess: boolean; onThisHost: boolean },
): Promise<Map<string, { observerStallMs: number; machineStallMs: number }>> {
  const spans = new Map<string, { first: string; fromMs: number; toMs: number }>();
  for (const delivery of session.eachCallback()) {
    const key = `${delivery.orderId ?? delivery.key} ${delivery.status}`;
    const span = spans.get(key);
    if (span) span.toMs = Math.max(span.toMs, delivery.receivedAtMs);
    else spans.set(key, { first: delivery.id, fromMs: delivery.receivedAtMs, toMs: delivery.receivedAtMs });
  }
  const retried = [...spans.values()].filter((span) => span.toMs > span.fromMs);
  const stalls = new Map<string, { observerStallMs: number; machineStallMs: number }>();
  if (retried.length === 0) return stalls;
  const client = new SinkClient(sink.url, sink.token);
  try {
    const ask = async (fromMs: number, toMs: number) => {
      const report = await client.stalls(Math.floor(fromMs), Math.ceil(toMs));
      return {
        observerStallMs: target.sharesSinkProcess ? report.heldUpMs : report.maxStallMs,
        machineStallMs: target.onThisHost ? (report.machineStallMs ?? 0) : 0,
      };
    };
    const whole =
      retried.length > MAX_STALL_QUERIES
        ? await ask(Math.min(...retried.map((s) => s.fromMs)), Math.max(...retried.map((s) => s.toMs)))
        : undefined;
    for (const span of retried) stalls.set(span.first, whole ?? (await ask(span.fromMs, span.toMs)));
  } catch {
    // No measure: the retries are judged within the profile's tolerance alone.
  } finally {
    await client.close();
  }
  return stalls;
}

function stopWords(options: ObserveOptions): string {
  const ways = ["Ctrl-C"];
  if (options.durationS !== undefined) ways.push(`after ${options.durationS} s`);
  if (options.untilIdleS !== undefined) ways.push(`after ${options.untilIdleS} s without traffic`);
  return `stops on ${ways.join(", or ")}; then judges both sides and writes the reports`;
}

function untilStopped(
  options: ObserveOptions,
  session: ObserveSession,
  proxy: RunningObserveProxy,
): Promise<string> {
  return new Promise((resolve) => {
    const timers: NodeJS.Timeout[] = [];
    const done = (why: string) => {
      for (const timer of timers) clearTimeout(timer);
      clearInterval(idle);
      options.signal?.removeEventListener("abort", aborted);
      resolve(why);
    };
    const aborted = () => done(String(options.signal?.reason ?? "stopped"));
    if (options.signal?.aborted) return aborted();
    options.signal?.addEventListener("abort", aborted, { once: true });
    if (options.durationS !== undefined)
      timers.push(setTimeout(() => done(`--duration ${options.durationS} s`), options.durationS * 1000));
    const idleMs = options.untilIdleS === undefined ? undefined : options.untilIdleS * 1000;
    const idle = setInterval(() => {
      if (idleMs === undefined || session.exchangeCount === 0 || proxy.inFlight() > 0) return;
      if (Date.now() - session.lastActivityMs >= idleMs) done(`--until-idle ${options.untilIdleS} s`);
    }, 100);
  });
}

function secretOf(
  options: ObserveOptions,
  provider: RunningReferenceProvider | undefined,
): string | undefined {
  return (
    options.settings.callbackSecret ??
    (provider || options.profile.name === "reference" ? REFERENCE_CALLBACK_SECRET : undefined)
  );
}

/**
 * The run's secrets, and every API key the merchant sent through the proxy: the merchant's key
 * is in its traffic whether or not the suite was given it.
 */
function sessionMasker(
  options: ObserveOptions,
  session: ObserveSession,
  sink: RunningSink | undefined,
  provider: RunningReferenceProvider | undefined,
): Masker {
  const keys = new Set<string>();
  for (const exchange of session.eachExchange()) {
    const auth = exchange.requestHeaders.authorization;
    const key = auth === undefined ? undefined : /^\s*Bearer\s+(.+?)\s*$/i.exec(auth)?.[1];
    if (key) keys.add(key);
  }
  return runMasker({
    apiKey: options.settings.apiKey,
    secondApiKey: options.settings.secondApiKey,
    callbackSecret: secretOf(options, provider),
    sinkToken: sink?.token,
    targetEnvSecrets: [...keys],
    cardNumbers: options.profile.testCards,
  });
}
