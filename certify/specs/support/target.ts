/**
 * What a spec file knows about the target under certification: the run context certify
 * provides (base URL, API keys, profile, run id and directory, the sink), with clients, masking
 * and exchange recording built on it.
 */
import { basename } from "node:path";
import {
  buildContract,
  type Contract,
  callbackUrlWith,
  ExchangeRecorder,
  H2hClient,
  type JsonTextReport,
  jsonTextIssues,
  ORDER_STATUSES,
  type Profile,
  type SignatureExplanation,
} from "../../../contract/index.ts";
import { isLoopbackUrl, type Masker } from "../../../contract/kit/index.ts";
import { rateLimitRetryOf, runMasker } from "../../../run-setup/index.ts";
import { SinkClient, type StoredCallback } from "../../../webhook-sink/index.ts";
import { heldUpMeasure } from "../../engine/held-up.ts";
import { RUN_CONTEXT_KEY, type RunContext } from "../../engine/run-context.ts";
import { recordWarning } from "../../engine/run-warnings.ts";
import { beforeEach } from "../../engine/spec-api.ts";
import { provided, sayer } from "../../engine/spec-context.ts";
import { explainStoredSignature } from "../../reports/signature-evidence.ts";

export interface SpecTarget {
  baseUrl: string;
  profile: Profile;
  contract: Contract;
  /** The seven statuses of the API description plus the profile's own. */
  knownStatuses: readonly string[];
  runId: string;
  /** The generated and stateful probes' seed, depth and merchantOrderID prefix. */
  probes: RunContext["probes"];
  /** What a failed check's re-run command repeats of the run's settings. */
  rerun: RunContext["rerun"];
  /** The first merchant's key: the near-miss probes send keys one step from it. */
  apiKey: string;
  /** The second merchant's key, or undefined: cross-merchant checks are then skipped. */
  secondApiKey: string | undefined;
  /** The target runs in the sink's process (see RunContext.targetSharesSinkProcess). */
  sharesSinkProcess: boolean;
  /** The target runs on this machine (a loopback base URL): its CPU stall can slow it. */
  onThisHost: boolean;
  /** When the run stops (ms since the epoch): no wait of a spec need outlast it. */
  deadlineAt: number;
  masker: Masker;
  recorder: ExchangeRecorder;
  /** A client of the first merchant (or of `apiKey`, when given). */
  client(apiKey?: string): H2hClient;
  /** A client of the second merchant; throws when there is none (check `secondApiKey` first). */
  secondClient(): H2hClient;
  /** The webhook sink certify started; throws when there is none. */
  sink(): SpecSink;
  /** Says something the reader must know although no check failed: on the console and in every report. */
  warn(text: string): void;
  /** Tells the person running the specs something (a manual trigger): on the console only. */
  say(line: string): void;
  /** A stored callback as the callback checks take it, with why its signature failed, if it did. */
  observed(callback: StoredCallback): ObservedCallback;
}

/** What the callback checks read of one delivery. */
export interface ObservedCallback {
  json: unknown;
  receivedAtMs: number;
  signature: StoredCallback["signature"];
  answeredWith: StoredCallback["answeredWith"];
  signatureExplained?: SignatureExplanation;
  jsonText?: JsonTextReport;
  /** The body's bytes as text, masked: a retry's are compared with the first attempt's. */
  body?: string;
}

export interface SpecSink {
  client: SinkClient;
  /** The callback URL for one order's callbacks, tagged so they can be found whatever their body says. */
  callbackUrl(tag: string, options?: { refuse?: number; ack?: number }): string;
}

/** The run context certify provided, or an error that says how specs are meant to be run. */
function runContext(): RunContext {
  const context = provided<RunContext>(RUN_CONTEXT_KEY);
  if (context === undefined) {
    throw new Error(
      "no run context: contract specs are run by `npm run certify` or `npx vitest run --project contract`, which provide it (see docs/commands.md)",
    );
  }
  return context;
}

/**
 * The run's stop as a spec file sees it: the deadline passed, or Vitest cancelled the run (the
 * deadline or Ctrl-C of the certify process): Vitest then aborts the signal of each test under
 * way with a TestRunAbortError. A test's own timeout aborts only its signal, not the file's.
 */
function runStopSignal(deadlineAt: number): AbortSignal {
  const cancelled = new AbortController();
  beforeEach(({ signal }) => {
    signal.addEventListener(
      "abort",
      () => {
        if ((signal.reason as Error | undefined)?.name === "TestRunAbortError")
          cancelled.abort(signal.reason);
      },
      { once: true },
    );
  });
  return AbortSignal.any([cancelled.signal, AbortSignal.timeout(Math.max(0, deadlineAt - Date.now()))]);
}

/** Builds the target for one spec file; `specFile` is `import.meta.url` of the spec. */
export function loadSpecTarget(specFile: string): SpecTarget {
  const context = runContext();
  const { baseUrl, apiKey, profile } = context;
  const secondApiKey = context.secondApiKey ?? undefined;
  const masker = runMasker({
    ...context,
    sinkToken: context.sink.token,
    tlsPassphrase: context.tls?.passphrase,
    cardNumbers: profile.testCards,
  });
  const source = basename(new URL(specFile).pathname).replace(/\.spec\.[jt]s$/, "");
  const recorder = new ExchangeRecorder(source, masker, context.runDir, profile.limits.maxBodyBytes);
  const stopped = runStopSignal(context.deadlineAt);
  const say = sayer();
  const onThisHost = context.targetSharesSinkProcess || isLoopbackUrl(baseUrl);
  const heldUpMs = heldUpMeasure(onThisHost);
  const makeClient = (key: string) =>
    new H2hClient({
      baseUrl,
      apiKey: key,
      timeoutMs: profile.timeouts.requestMs,
      maxBodyBytes: profile.limits.maxBodyBytes, // bounded evidence
      ...(context.tls ? { tls: context.tls } : {}), // H2H_CA_FILE, H2H_CLIENT_CERT/KEY
      // A 429 with a short Retry-After is waited out, never past the run's deadline.
      rateLimitRetry: rateLimitRetryOf(profile, context.deadlineAt),
      signal: stopped,
      // A request the machine held up gets that much longer: a loaded machine is not a slow target.
      heldUpMs,
      onExchange: (exchange) => {
        exchange.id = recorder.record(exchange).id;
      },
    });
  const first = makeClient(apiKey);
  let sink: SpecSink | undefined;
  const second = secondApiKey ? makeClient(secondApiKey) : undefined;
  return {
    baseUrl,
    profile,
    contract: buildContract(profile.gaps),
    knownStatuses: [...ORDER_STATUSES, ...(profile.gaps.extraStatuses ?? [])],
    runId: context.runId,
    probes: context.probes,
    rerun: context.rerun,
    apiKey,
    secondApiKey,
    sharesSinkProcess: context.targetSharesSinkProcess,
    onThisHost,
    deadlineAt: context.deadlineAt,
    masker,
    recorder,
    client: (key) => (key === undefined ? first : makeClient(key)),
    secondClient: () => {
      if (!second) throw new Error("no second merchant's API key (H2H_API_KEY_2) was given");
      return second;
    },
    observed: (callback) => {
      const signatureExplained = explainStoredSignature(
        callback,
        profile.callbacks.signature,
        context.callbackSecret,
      );
      // The bytes as the sink received them, not the value it parsed.
      const jsonText = jsonTextIssues(Buffer.from(callback.bodyBase64, "base64"));
      return {
        json: callback.json,
        receivedAtMs: callback.receivedAtMs,
        signature: callback.signature,
        answeredWith: callback.answeredWith,
        ...(signatureExplained ? { signatureExplained } : {}),
        ...(jsonText ? { jsonText: masker.value(jsonText) } : {}),
        body: masker.text(Buffer.from(callback.bodyBase64, "base64").toString("utf8")),
      };
    },
    say,
    warn: (text) => {
      const masked = masker.text(text);
      say(`warning: ${masked}`);
      recordWarning(context.runDir, masked);
    },
    sink: () => {
      sink ??= {
        client: new SinkClient(context.sink.url, context.sink.token),
        callbackUrl: (tag, options = {}) =>
          callbackUrlWith(context.sink.callbackUrl, {
            runId: tag,
            ...(options.refuse ? { refuse: options.refuse } : {}),
            ...(options.ack !== undefined ? { ack: options.ack } : {}),
          }),
      };
      return sink;
    },
  };
}
