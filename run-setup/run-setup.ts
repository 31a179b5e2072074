/**
 * What every run against a target sets up the same way, certify's and load's alike: the masker
 * that keeps its secrets out of every report and console line, and the webhook sink that takes
 * its callbacks, configured from the target's profile.
 */
import { nearMissApiKeys, type Profile, type RateLimitRetry, TEST_CARD_NUMBERS } from "../contract/index.ts";
import { createMasker, credentialsOfUrl, type Masker, SAFE_SECRET_LENGTH } from "../contract/kit/index.ts";
import { TEST_CARD } from "../fixtures/index.ts";
import {
  DEFAULT_SINK_MAX_DELIVERIES_PER_ORDER,
  type RunningSink,
  type SinkOptions,
  startWebhookSink,
} from "../webhook-sink/index.ts";
import type { Settings } from "./settings.ts";
import { SettingsError } from "./settings-table.ts";

/** The secrets of a run; each may be absent (null or undefined). */
export interface RunSecrets {
  apiKey?: string | null | undefined;
  secondApiKey?: string | null | undefined;
  callbackSecret?: string | null | undefined;
  /** The sink's token, which guards it against fake callbacks. */
  sinkToken?: string | null | undefined;
  /** H2H_TARGET_IMAGE: values of the container's secret-looking environment (H2H_TARGET_ENV). */
  targetEnvSecrets?: readonly string[] | undefined;
  /** The target's base URL: credentials in it (user:password@) are secrets too. */
  baseUrl?: string | null | undefined;
  /** H2H_CLIENT_KEY_PASSPHRASE. */
  tlsPassphrase?: string | null | undefined;
  /** Test cards the target's profile gives, besides the suite's own. */
  cardNumbers?: readonly string[] | undefined;
}

/**
 * Masks the run's keys, callback secret, sink token, client key passphrase and target container
 * secrets, and every test card it may order with.
 */
export function runMasker(secrets: RunSecrets): Masker {
  // One masker per set of secrets in a thread: each spec file asks for the run's, and a masker
  // compiles its patterns and learns its texts when first used, which each new one did again.
  // A base URL counts by its credentials only: the reports' masker, made before the bundled
  // provider had a URL, is then the specs' one, and what they masked is not masked again.
  const key = JSON.stringify([
    secrets.apiKey,
    secrets.secondApiKey,
    secrets.callbackSecret,
    secrets.sinkToken,
    secrets.targetEnvSecrets?.length ? secrets.targetEnvSecrets : undefined,
    credentialsOfUrl(secrets.baseUrl ?? undefined),
    secrets.tlsPassphrase,
    secrets.cardNumbers,
  ]);
  const known = maskersBySecrets.get(key);
  if (known) return known;
  const masker = newRunMasker(secrets);
  if (maskersBySecrets.size >= MAX_KEPT_MASKERS) maskersBySecrets.clear();
  maskersBySecrets.set(key, masker);
  return masker;
}

/** Enough for a run's few sets of secrets (the receiver run's, a self-test's targets), bounded. */
const MAX_KEPT_MASKERS = 8;
const maskersBySecrets = new Map<string, Masker>();

function newRunMasker(secrets: RunSecrets): Masker {
  // The near misses certify sends in place of a key give the key away all but one character.
  const nearMisses = (
    secrets.apiKey ? nearMissApiKeys(secrets.apiKey, secrets.secondApiKey ?? undefined) : []
  ).map((miss) => miss.value);
  // A short key's near misses are as short: whole tokens only, as the key is.
  const keyIsLong = (secrets.apiKey ?? "").length >= SAFE_SECRET_LENGTH;
  return createMasker({
    secrets: [
      ...[
        secrets.apiKey,
        secrets.secondApiKey,
        secrets.callbackSecret,
        secrets.sinkToken,
        secrets.tlsPassphrase,
      ].map((secret) => secret ?? undefined),
      ...(secrets.targetEnvSecrets ?? []),
      ...(keyIsLong ? [] : nearMisses),
    ],
    derivedSecrets: keyIsLong ? nearMisses : [],
    cardNumbers: [TEST_CARD.number, ...TEST_CARD_NUMBERS, ...(secrets.cardNumbers ?? [])],
    urls: [secrets.baseUrl ?? undefined],
  });
}

/**
 * A warning for each secret shorter than SAFE_SECRET_LENGTH: it is masked only where it stands
 * whole, so the reader knows. Names the variable and the length, never the value.
 */
export function shortSecretWarnings(
  secrets: RunSecrets,
  /** The variable the base URL came from (H2H_RECEIVER_URL for the receiver battery). */
  urlVariable = "H2H_BASE_URL",
): string[] {
  const named: [string, string | null | undefined][] = [
    ["H2H_API_KEY", secrets.apiKey],
    ["H2H_API_KEY_2", secrets.secondApiKey],
    ["H2H_CALLBACK_SECRET", secrets.callbackSecret],
    ["H2H_CLIENT_KEY_PASSPHRASE", secrets.tlsPassphrase],
    ...credentialsOfUrl(secrets.baseUrl ?? undefined)
      .slice(0, 1)
      .map((password): [string, string] => [`the password in ${urlVariable}`, password]),
    ...(secrets.targetEnvSecrets ?? []).map((value): [string, string] => [
      "a secret in H2H_TARGET_ENV",
      value,
    ]),
  ];
  return named
    .filter(([, value]) => typeof value === "string" && value !== "" && value.length < SAFE_SECRET_LENGTH)
    .map(
      ([name, value]) =>
        `${name} is ${[...(value as string)].length} character(s) long, shorter than ${SAFE_SECRET_LENGTH}: ` +
        "it is masked only where it stands whole (a header value, a JSON string, a query value), " +
        "not inside longer text, so that dates and ids stay readable; a longer secret is masked everywhere",
    );
}

/**
 * Starts the run's webhook sink where the settings say, reading callbacks as the profile says;
 * `mode` picks how it keeps them (a load run tallies them: see the sink's `tally` option).
 */
export async function startRunSink(
  settings: Settings,
  profile: Profile,
  dataDir: string,
  mode: Pick<SinkOptions, "tally" | "forward" | "spill"> = {},
): Promise<RunningSink> {
  try {
    return await startSink(settings, profile, dataDir, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "";
    if (code !== "EADDRINUSE" && code !== "EACCES") throw error;
    throw new SettingsError(
      `H2H_SINK_PORT ${settings.sinkPort}: the webhook sink cannot listen there (${code === "EADDRINUSE" ? "the port is in use" : "permission denied"}); ` +
        "choose a free port, or unset H2H_SINK_PORT to take any free one",
    );
  }
}

function startSink(
  settings: Settings,
  profile: Profile,
  dataDir: string,
  mode: Pick<SinkOptions, "tally" | "forward" | "spill">,
): Promise<RunningSink> {
  return startWebhookSink({
    ...mode,
    port: settings.sinkPort,
    dataDir,
    ...(settings.sinkPublicUrl ? { publicUrl: settings.sinkPublicUrl } : {}),
    ...(settings.callbackSecret ? { secret: settings.callbackSecret } : {}),
    signature: profile.callbacks.signature,
    idPath: profile.callbacks.idPath,
    statusPath: profile.callbacks.statusPath,
    // A declared retry policy's every attempt is kept, however many it declares.
    maxDeliveriesPerOrder: Math.max(
      DEFAULT_SINK_MAX_DELIVERIES_PER_ORDER,
      2 * (profile.callbacks.retryPolicy?.attempts ?? 0),
    ),
    // The run's store is a temporary folder, removed when the run ends: an fdatasync per callback
    // would buy nothing, and its latency (on a busy disk) would show up as callback lateness.
    sync: false,
    // Once per burst: the run's report then says the refused callbacks are the run's fault.
    onStoreProblem: (problem) => {
      if (problem.kind === "failing")
        console.error(`webhook sink: cannot store callbacks: ${problem.error}; answering 500 not-stored`);
    },
  });
}

/**
 * Rate limits: how the run's clients wait out a 429: Retry-After up to the profile's
 * `limits.retryAfterMaxMs`, `limits.rateLimitRetries` times per request, never past the deadline.
 */
export function rateLimitRetryOf(profile: Profile, deadlineAt: number | undefined): RateLimitRetry {
  return {
    maxWaitMs: profile.limits.retryAfterMaxMs,
    maxRetries: profile.limits.rateLimitRetries,
    ...(deadlineAt !== undefined ? { deadlineAt } : {}),
  };
}
