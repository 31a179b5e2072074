/**
 * What every run against a target sets up the same way, certify's and load's alike: the masker
 * that keeps its secrets out of every report and console line, and the webhook sink that takes
 * its callbacks, configured from the target's profile.
 */
import { createMasker, type Masker, type Profile, TEST_CARD_NUMBERS } from "../contract/index.ts";
import { TEST_CARD } from "../fixtures/index.ts";
import { type RunningSink, startWebhookSink } from "../webhook-sink/index.ts";
import type { Settings } from "./settings.ts";

/** The secrets of a run; each may be absent (null or undefined). */
export interface RunSecrets {
  apiKey?: string | null | undefined;
  secondApiKey?: string | null | undefined;
  callbackSecret?: string | null | undefined;
  /** The sink's token, which guards it against fake callbacks. */
  sinkToken?: string | null | undefined;
  /** Test cards the target's profile gives, besides the suite's own. */
  cardNumbers?: readonly string[] | undefined;
}

/** Masks the run's keys, callback secret and sink token, and every test card it may order with. */
export function runMasker(secrets: RunSecrets): Masker {
  return createMasker({
    secrets: [secrets.apiKey, secrets.secondApiKey, secrets.callbackSecret, secrets.sinkToken].map(
      (secret) => secret ?? undefined,
    ),
    cardNumbers: [TEST_CARD.number, ...TEST_CARD_NUMBERS, ...(secrets.cardNumbers ?? [])],
  });
}

/** Starts the run's webhook sink where the settings say, reading callbacks as the profile says. */
export function startRunSink(settings: Settings, profile: Profile, dataDir: string): Promise<RunningSink> {
  return startWebhookSink({
    port: settings.sinkPort,
    dataDir,
    ...(settings.sinkPublicUrl ? { publicUrl: settings.sinkPublicUrl } : {}),
    ...(settings.callbackSecret ? { secret: settings.callbackSecret } : {}),
    signature: profile.callbacks.signature,
    idPath: profile.callbacks.idPath,
    statusPath: profile.callbacks.statusPath,
    // The run's store is a temporary folder, removed when the run ends: an fdatasync per callback
    // would buy nothing, and its latency (on a busy disk) would show up as callback lateness.
    sync: false,
  });
}
