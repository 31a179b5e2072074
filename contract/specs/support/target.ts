/**
 * What a spec file knows about the target under certification, read from the environment that
 * `npm run certify` sets (DESIGN §1): base URL, API keys, profile, run id and run directory.
 */
import { basename } from "node:path";
import { createMasker, type Masker } from "../../../certify/masking.ts";
import { ExchangeRecorder } from "../../../certify/recorder.ts";
import { TEST_CARD } from "../../../fixtures/payloads.ts";
import { SinkClient } from "../../../webhook-sink/client.ts";
import { CHECK_REGISTRY } from "../../checks/index.ts";
import { H2hClient } from "../../h2h-client.ts";
import { loadProfile, type Profile } from "../../profile.ts";
import { buildContract, type Contract, ORDER_STATUSES } from "../../schemas.ts";

export interface SpecTarget {
  baseUrl: string;
  profile: Profile;
  contract: Contract;
  /** The seven statuses of the seed plus the profile's own. */
  knownStatuses: readonly string[];
  runId: string;
  /** The second merchant's key, or undefined: cross-merchant checks are then skipped. */
  secondApiKey: string | undefined;
  masker: Masker;
  recorder: ExchangeRecorder;
  /** A client of the first merchant (or of `apiKey`, when given). */
  client(apiKey?: string): H2hClient;
  /** A client of the second merchant; throws when there is none (check `secondApiKey` first). */
  secondClient(): H2hClient;
  /** The webhook sink certify started; throws when there is none. */
  sink(): SpecSink;
}

export interface SpecSink {
  client: SinkClient;
  /** The callback URL for one order's callbacks, tagged so they can be found whatever their body says. */
  callbackUrl(tag: string, options?: { refuse?: number }): string;
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: contract specs are run by \`npm run certify\`, which sets it (see README.md)`,
    );
  }
  return value;
}

/** Builds the target for one spec file; `specFile` is `import.meta.url` of the spec. */
export async function loadSpecTarget(specFile: string): Promise<SpecTarget> {
  const baseUrl = requiredEnv("H2H_BASE_URL");
  const apiKey = requiredEnv("H2H_API_KEY");
  const secondApiKey = process.env.H2H_API_KEY_2 || undefined;
  const profile = await loadProfile(requiredEnv("H2H_PROFILE"), new Set(CHECK_REGISTRY.keys()));
  const sinkToken = process.env.H2H_SINK_TOKEN || undefined;
  const masker = createMasker({
    secrets: [apiKey, secondApiKey, process.env.H2H_CALLBACK_SECRET, sinkToken],
    cardNumbers: [TEST_CARD.number],
  });
  const source = basename(new URL(specFile).pathname).replace(/\.spec\.ts$/, "");
  const recorder = new ExchangeRecorder(source, masker, process.env.H2H_RUN_DIR);
  const clients: H2hClient[] = [];
  const makeClient = (key: string) => {
    const client = new H2hClient({
      baseUrl,
      apiKey: key,
      timeoutMs: profile.timeouts.requestMs,
      onExchange: (exchange) => {
        exchange.id = recorder.record(exchange).id;
      },
    });
    clients.push(client);
    return client;
  };
  const first = makeClient(apiKey);
  let sink: SpecSink | undefined;
  const second = secondApiKey ? makeClient(secondApiKey) : undefined;
  return {
    baseUrl,
    profile,
    contract: buildContract(profile.gaps),
    knownStatuses: [...ORDER_STATUSES, ...profile.gaps.extraStatuses],
    runId: process.env.H2H_RUN_ID ?? `run${Date.now().toString(36)}`,
    secondApiKey,
    masker,
    recorder,
    client: (key) => (key === undefined ? first : makeClient(key)),
    secondClient: () => {
      if (!second) throw new Error("H2H_API_KEY_2 is not set");
      return second;
    },
    sink: () => {
      if (sink) return sink;
      const url = requiredEnv("H2H_SINK_URL");
      const callbackBase = requiredEnv("H2H_SINK_CALLBACK_URL").replace(/\/+$/, "");
      sink = {
        client: new SinkClient(url, requiredEnv("H2H_SINK_TOKEN")),
        callbackUrl: (tag, options = {}) =>
          `${callbackBase}/run/${encodeURIComponent(tag)}${options.refuse ? `/refuse/${options.refuse}` : ""}`,
      };
      return sink;
    },
  };
}
