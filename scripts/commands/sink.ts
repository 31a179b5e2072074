/** `npm run sink`: the webhook sink alone, e.g. behind a tunnel for a provider that must reach a public URL. */
import { readProfile } from "../../contract/index.ts";
import { readTlsFiles, TlsConfigError } from "../../contract/kit/index.ts";
import { REFERENCE_CALLBACK_SECRET } from "../../fixtures/providers/reference/index.ts";
import { sourceName } from "../../run-setup/index.ts";
import { startWebhookSink } from "../../webhook-sink/index.ts";
import { commandSettings, defineCommand, EXIT, settingOption } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

export const sink = defineCommand({
  name: "sink",
  summary:
    "Starts the webhook sink alone and prints its callback URL (with its token) and how to query it.\n" +
    "Signature scheme and the id/status paths come from the profile (H2H_PROFILE); the secret from\n" +
    "H2H_CALLBACK_SECRET (the reference secret when the profile is the reference one).",
  options: {
    port: settingOption("sinkPort", "N"),
    host: { type: "string", value: "ADDR", description: "address to listen on (default: 127.0.0.1)" },
    "public-url": settingOption("sinkPublicUrl", "URL"),
    "data-dir": settingOption("sinkDataDir", "DIR"),
    token: settingOption("sinkToken", "TOKEN"),
    "tls-cert": settingOption("sinkTlsCert", "FILE"),
    "tls-key": settingOption("sinkTlsKey", "FILE"),
  },
  settings: "sink",
  exitCodes: BAD_SETTINGS_EXIT,
  // A missing, unreadable or mismatched certificate or key is bad usage; its message names the option.
  knownErrors: [...BAD_SETTINGS, [TlsConfigError, EXIT.usage]],
  async run(options) {
    const settings = commandSettings("sink", {
      sinkPort: options.port,
      sinkPublicUrl: options["public-url"],
      sinkDataDir: options["data-dir"],
      sinkToken: options.token,
      sinkTlsCert: options["tls-cert"],
      sinkTlsKey: options["tls-key"],
    });
    const profile = await readProfile(settings.profile);
    const secret =
      settings.callbackSecret ?? (profile.name === "reference" ? REFERENCE_CALLBACK_SECRET : undefined);
    const publicUrl = settings.sinkPublicUrl;
    const dataDir = settings.sinkDataDir;
    const certFile = settings.sinkTlsCert;
    const keyFile = settings.sinkTlsKey;
    // Named as given: the flag, or its variable.
    const labels = {
      certFile: sourceName(settings, "sinkTlsCert"),
      keyFile: sourceName(settings, "sinkTlsKey"),
    };
    const tls =
      certFile !== undefined || keyFile !== undefined
        ? readTlsFiles({ ...(certFile ? { certFile } : {}), ...(keyFile ? { keyFile } : {}) }, labels)
        : undefined;
    const running = await startWebhookSink({
      port: settings.sinkPort,
      host: options.host ?? "127.0.0.1",
      dataDir,
      token: settings.sinkToken,
      ...(publicUrl !== undefined ? { publicUrl } : {}),
      ...(secret !== undefined ? { secret } : {}),
      signature: profile.callbacks.signature,
      idPath: profile.callbacks.idPath,
      statusPath: profile.callbacks.statusPath,
      ...(tls ? { tls: { cert: tls.cert as string, key: tls.key as string } } : {}),
      maxCallbacks: settings.sinkMaxCallbacks,
      maxStoredBytes: settings.sinkMaxMiB * 1024 * 1024,
      // Said once per burst: while the disk refuses, callbacks are answered 500 and not stored.
      onStoreProblem: (problem) =>
        console.error(
          problem.kind === "failing"
            ? `sink: cannot store callbacks: ${problem.error}; answering 500 not-stored (the provider delivers them again) until a write succeeds`
            : `sink: storing callbacks again in ${problem.path}; ${problem.refused} callback(s) were answered 500 not-stored meanwhile`,
        ),
      // A load run's callbacks outnumber any memory bound: the oldest leave memory, never the disk.
      spill: true,
      onFirstSpill: () =>
        console.log(
          `sink: more than ${settings.sinkMaxCallbacks} callbacks or ${settings.sinkMaxMiB} MiB of bodies: the oldest now leave memory (the query API lists the newest); every one stays in ${dataDir} and in the load delivery count (npm run load -- --delivery-from-sink)`,
        ),
      onFirstExcess: ({ limits }) =>
        console.log(
          `sink: callbacks past ${limits.maxDeliveriesPerOrder} deliveries of one order are refused (503), counted, and not stored`,
        ),
    });
    const recovery = running.storeRecovery;
    if (recovery)
      console.error(
        `sink: ${recovery.path}: dropped ${recovery.droppedLines} unreadable line(s), ${recovery.droppedBytes} bytes (line ${recovery.lineNumbers.join(", ")}): writes torn by a crash or a full disk; ${recovery.kept} callback(s) kept`,
      );
    console.log(`LISTENING ${running.url}`);
    console.log(`webhook sink listening on ${running.url}, storing in ${dataDir}`);
    console.log(`  callback URL (metadata.webHook): ${running.callbackUrl()}`);
    console.log(
      `  query: curl${tls ? ` --cacert ${certFile}` : ""} -H "Authorization: Bearer ${running.token}" ${running.url}/api/callbacks?orderId=<id>`,
    );
    console.log(
      `  signatures: ${secret && profile.callbacks.signature.scheme !== "none" ? `verified (${profile.callbacks.signature.scheme})` : "not verified"}. Ctrl-C stops.`,
    );
    await new Promise<void>((resolveStop) => {
      process.once("SIGINT", () => resolveStop());
      process.once("SIGTERM", () => resolveStop());
    });
    const stats = running.stats();
    await running.stop();
    console.log(`stopped: ${stats.stored} callbacks stored, rejected: ${JSON.stringify(stats.rejected)}`);
    if (stats.excess)
      console.log(
        `  refused past the sink's bounds, not stored: ${stats.excess.callbacks} callbacks, ${stats.excess.bytes} bytes of bodies (${JSON.stringify(stats.excess.byBound)})`,
      );
    return EXIT.ok;
  },
});
