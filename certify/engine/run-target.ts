/**
 * Opening a certification's target, shared by `npm run certify` (runner.ts) and the `contract`
 * Vitest project's global setup (vitest-global-setup.ts), so that both certify the same target,
 * with the same settings, sink and run context: the settings read and checked, the bundled
 * reference provider or the H2H_TARGET_IMAGE container started when no URL is given, the sink
 * started, the target tried once, and the run context the specs inject built.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import {
  CHECK_REGISTRY,
  type ExchangeRecorder,
  endpointPath,
  H2hClient,
  OPERATION,
  type Profile,
  readProfile,
  TransportError,
} from "../../contract/index.ts";
import {
  isLoopbackUrl,
  type Masker,
  summarizeTlsFiles,
  type TlsMaterial,
  type TlsSummary,
  tlsSummaryLines,
} from "../../contract/kit/index.ts";
import {
  type OpenedTarget,
  openTarget,
  type RunSettings,
  rateLimitRetryOf,
  readTargetContainerSettings,
  readTlsSettings,
  runMasker,
  type Settings,
  secretEnvValues,
  shortSecretWarnings,
  type TargetContainerSettings,
  targetSettingsOf,
  withReferenceDefaults,
} from "../../run-setup/index.ts";
import { heldUpMeasure } from "./held-up.ts";
import { invalidApiKeyDiagnosis, rateLimitedDiagnosis } from "./preflight.ts";
import {
  describeProbeSettings,
  type ProbeOverrides,
  type ProbeSettings,
  type RerunBase,
  readProbeSettings,
  rerunBaseOf,
} from "./probe-settings.ts";
import type { RunContext } from "./run-context.ts";

/** What the user gave, read and checked before a request is sent or a server started. */
export interface RunInputs {
  settings: Settings;
  profile: Profile;
  probes: ProbeSettings;
  /** H2H_TARGET_IMAGE: the container to start as the target, or undefined. */
  containerSettings: TargetContainerSettings | undefined;
  tls: TlsMaterial | undefined;
  tlsSummary: TlsSummary | undefined;
  /** What is masked before the sink's token exists (the secrets of the settings). */
  masker: Masker;
  /** The secrets too short to be masked everywhere, named (shortSecretWarnings). */
  secretWarnings: string[];
  /** What the command that re-runs one failed check repeats of this run's settings. */
  rerun: RerunBase;
}

/** Reads and checks the run's settings, profile, probes and TLS files (exit 64 on a bad one). */
export async function readRunInputs(run: RunSettings, probeOverrides?: ProbeOverrides): Promise<RunInputs> {
  const initial = targetSettingsOf(run);
  const profile = await readProfile(initial.profilePath, new Set(CHECK_REGISTRY.keys()));
  const settings = withReferenceDefaults(initial, profile.name, profile.callbacks.signature.scheme);
  const probes = readProbeSettings(run, probeOverrides);
  const containerSettings = readTargetContainerSettings(run);
  // TLS files read and checked now (exit 64 naming the variable), before any request.
  const tls = readTlsSettings(settings);
  const tlsSummary = tls ? summarizeTlsFiles(settings.tls, tls) : undefined;
  const secrets = {
    ...settings,
    targetEnvSecrets: secretEnvValues(containerSettings),
    tlsPassphrase: settings.tls.passphrase,
    cardNumbers: profile.testCards,
  };
  const masker = runMasker(secrets);
  const secretWarnings = shortSecretWarnings(secrets);
  return {
    settings,
    profile,
    probes,
    containerSettings,
    tls,
    tlsSummary,
    masker,
    secretWarnings,
    rerun: rerunBaseOf(run),
  };
}

export type { OpenedTarget };

/** Opens the run's target (run-setup/ does it for load too), its sink's data in `runDir`. */
export function openRunTarget(
  inputs: RunInputs,
  options: { runId: string; runDir: string; print: (line: string) => void },
): Promise<OpenedTarget> {
  return openTarget(inputs.settings, inputs.profile, inputs.containerSettings, {
    runId: options.runId,
    sinkDir: join(options.runDir, "sink"),
    print: options.print,
  });
}

/** What the run says of itself before the specs start: the target, the probes, what is missing. */
export function describeRun(inputs: RunInputs, target: OpenedTarget): string[] {
  const { settings, profile, containerSettings, tlsSummary } = inputs;
  const what = target.provider
    ? " (bundled reference provider)"
    : containerSettings
      ? ` (container of ${containerSettings.image})`
      : "";
  return [
    `h2h-certify: certifying ${target.baseUrl}${what} with profile "${profile.name}"`,
    `  ${describeProbeSettings(inputs.probes)}`,
    ...(settings.secondApiKey ? [] : ["  H2H_API_KEY_2 is not set: cross-merchant checks will be skipped"]),
    ...(tlsSummary ? tlsSummaryLines(tlsSummary) : []).map((line) => `  TLS: ${line}`),
    ...inputs.secretWarnings.map((warning) => `warning: ${warning}`),
  ];
}

/** Tries the target once with a request that creates nothing; a transport failure ends the run. */
async function tryReachTarget(
  baseUrl: string,
  apiKey: string | undefined,
  profile: Profile,
  recorder: ExchangeRecorder,
  tls: TlsMaterial | undefined,
  deadlineAt: number,
): Promise<string | undefined> {
  const client = new H2hClient({
    rateLimitRetry: rateLimitRetryOf(profile, deadlineAt),
    baseUrl,
    apiKey,
    timeoutMs: profile.timeouts.requestMs,
    heldUpMs: heldUpMeasure(isLoopbackUrl(baseUrl)),
    maxBodyBytes: profile.limits.maxBodyBytes, // bounded evidence
    ...(tls ? { tls } : {}),
    onExchange: (exchange) => {
      exchange.id = recorder.record(exchange).id;
    },
  });
  try {
    await client.post(endpointPath(OPERATION.createMobileCommerceOrder), {});
    return undefined;
  } catch (error) {
    if (error instanceof TransportError) {
      // Only a target that could not be reached is unreachable: a broken or lost answer is named as such.
      const reached = {
        framing: "the target answered, but not in valid HTTP/1.1",
        desync: "the target answered, but with an answer no request asked for",
        "no answer": "the target was reached, but closed the connection without an answer",
      } as const;
      const said = reached[error.fault as keyof typeof reached];
      return said
        ? `${said} (transport fault, ${error.fault}): ${error.message}`
        : `cannot reach the target: ${error.message}`;
    }
    throw error;
  } finally {
    await client.close();
  }
}

/**
 * Why nothing of the target can be judged, or undefined: its container did not get ready, it does
 * not answer, or its answer to one request says the key is refused or the run rate limited. The
 * request is recorded by `recorder`.
 */
export async function whyNotJudgeable(
  inputs: RunInputs,
  target: OpenedTarget,
  recorder: ExchangeRecorder,
  deadlineAt: number,
): Promise<string | undefined> {
  return (
    target.containerFailure ??
    (await tryReachTarget(
      target.baseUrl,
      inputs.settings.apiKey,
      inputs.profile,
      recorder,
      inputs.tls,
      deadlineAt,
    )) ??
    invalidApiKeyDiagnosis(recorder.exchanges) ??
    rateLimitedDiagnosis(recorder.exchanges)
  );
}

/** The run context the contract specs inject (see run-context.ts). */
export function runContextOf(
  inputs: RunInputs,
  target: OpenedTarget,
  run: { runId: string; runDir: string; deadlineAt: number; targetInThisProcess?: boolean | undefined },
): RunContext {
  const { settings, profile, probes, tls } = inputs;
  return {
    baseUrl: target.baseUrl,
    apiKey: settings.apiKey as string,
    secondApiKey: settings.secondApiKey ?? null,
    callbackSecret: settings.callbackSecret ?? null,
    profile,
    profilePath: settings.profilePath,
    runId: run.runId,
    runDir: run.runDir,
    sink: { url: target.sink.url, token: target.sink.token, callbackUrl: target.sink.callbackUrl() },
    tls: tls ?? null,
    targetEnvSecrets: target.secrets.targetEnvSecrets ?? [],
    deadlineAt: run.deadlineAt,
    targetSharesSinkProcess: target.provider !== undefined || run.targetInThisProcess === true,
    probes: {
      seed: probes.seed,
      depth: probes.depth,
      merchantOrderIdPrefix: probes.merchantOrderIdPrefix,
    },
    rerun: inputs.rerun,
  };
}

/** A new run's id: when it started, and a few random hex digits. */
export function newRunId(startedAt: Date): string {
  return `run-${startedAt.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "")}-${randomBytes(3).toString("hex")}`;
}
