/**
 * Opening the target of a run, certify's and load's alike: the bundled reference provider when no
 * URL or image is given, the run's webhook sink, the H2H_TARGET_IMAGE container, and the masker
 * that knows every secret of the run, the sink's token with them.
 */
import type { Profile } from "../contract/index.ts";
import type { Masker } from "../contract/kit/index.ts";
import {
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import type { RunningSink, SinkOptions } from "../webhook-sink/index.ts";
import { type RunSecrets, runMasker, startRunSink } from "./run-setup.ts";
import type { Settings } from "./settings.ts";
import {
  type RunningTargetContainer,
  secretEnvValues,
  startTargetContainer,
  TargetContainerError,
  type TargetContainerRecord,
  type TargetContainerSettings,
} from "./target-container.ts";

/** The target of a run, opened, with the sink that takes its callbacks. */
export interface OpenedTarget {
  baseUrl: string;
  /** The bundled reference provider, when the run started it (no URL, no image). */
  provider: RunningReferenceProvider | undefined;
  container: RunningTargetContainer | undefined;
  /** Why the H2H_TARGET_IMAGE container did not get ready, and its record (logs), when it did not. */
  containerFailure: string | undefined;
  containerRecord: TargetContainerRecord | undefined;
  sink: RunningSink;
  /** Every secret of the run, the sink's token with them. */
  secrets: RunSecrets;
  masker: Masker;
  /** Stops the container, the provider and the sink (each once). */
  close(): Promise<void>;
}

export interface OpenTargetOptions {
  runId: string;
  /** Where the sink keeps what it takes. */
  sinkDir: string;
  print: (line: string) => void;
  /** How the sink keeps callbacks: a load run tallies them. */
  sinkMode?: Pick<SinkOptions, "tally">;
}

/**
 * Starts what the settings ask for. A container that does not get ready is reported in
 * `containerFailure`, not thrown; what started is stopped again when a later step throws.
 */
export async function openTarget(
  settings: Settings,
  profile: Profile,
  containerSettings: TargetContainerSettings | undefined,
  options: OpenTargetOptions,
): Promise<OpenedTarget> {
  let provider: RunningReferenceProvider | undefined;
  let sink: RunningSink | undefined;
  let container: RunningTargetContainer | undefined;
  const close = async () => {
    if (container) await container.stop();
    // The run is over: no callback attempt still in flight (to an unreachable webhook URL) is waited for.
    if (provider) await provider.stop({ cutInFlight: true });
    if (sink) await sink.stop();
  };
  try {
    if (settings.baseUrl === undefined && !containerSettings)
      provider = await startReferenceProvider({ port: 0 });
    sink = await startRunSink(settings, profile, options.sinkDir, options.sinkMode);
    // The sink's token guards it against fake callbacks: it is masked like a secret.
    const secrets: RunSecrets = {
      apiKey: settings.apiKey,
      secondApiKey: settings.secondApiKey,
      callbackSecret: settings.callbackSecret,
      baseUrl: settings.baseUrl,
      sinkToken: sink.token,
      targetEnvSecrets: secretEnvValues(containerSettings),
      tlsPassphrase: settings.tls.passphrase,
      cardNumbers: profile.testCards,
    };
    const masker = runMasker(secrets);
    let containerRecord: TargetContainerRecord | undefined;
    let containerFailure: string | undefined;
    if (containerSettings) {
      try {
        container = await startTargetContainer(containerSettings, {
          runId: options.runId,
          // What the container prints is masked with the sink's token too.
          print: (line) => options.print(masker.text(line)),
        });
      } catch (error) {
        if (!(error instanceof TargetContainerError)) throw error;
        containerFailure = masker.text(error.message);
        containerRecord = error.record;
      }
    }
    const baseUrl =
      settings.baseUrl ??
      (containerRecord ? `http://127.0.0.1:${containerRecord.port}` : undefined) ??
      container?.url ??
      (provider as RunningReferenceProvider).url;
    return { baseUrl, provider, container, containerFailure, containerRecord, sink, secrets, masker, close };
  } catch (error) {
    await close();
    throw error;
  }
}
