/** `npm run sink`: the webhook sink alone, e.g. behind a tunnel for a provider that must reach a public URL. */
import { resolve } from "node:path";
import { readProfile, readTlsFiles, TlsConfigError } from "../../contract/index.ts";
import { REFERENCE_CALLBACK_SECRET } from "../../fixtures/reference-provider/index.ts";
import { profilePathFrom, userDirectory } from "../../target/index.ts";
import { startWebhookSink } from "../../webhook-sink/index.ts";
import { defineCommand, EXIT, numberFlag, UsageError } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

export const sink = defineCommand({
  name: "sink",
  summary:
    "Starts the webhook sink alone and prints its callback URL (with its token) and how to query it.\n" +
    "Signature scheme and the id/status paths come from the profile (H2H_PROFILE); the secret from\n" +
    "H2H_CALLBACK_SECRET (the reference secret when the profile is the reference one).",
  options: {
    port: { type: "string", value: "N", description: "port (default: H2H_SINK_PORT, else a free port)" },
    host: { type: "string", value: "ADDR", description: "address to listen on (default: 127.0.0.1)" },
    "public-url": {
      type: "string",
      value: "URL",
      description:
        "base URL providers reach the sink at (default: H2H_SINK_PUBLIC_URL, else the loopback URL)",
    },
    "data-dir": {
      type: "string",
      value: "DIR",
      description: "where callbacks are stored (default: H2H_SINK_DATA_DIR, else .sink-data)",
    },
    token: {
      type: "string",
      value: "TOKEN",
      description: "the secret path token (default: H2H_SINK_TOKEN, else generated and printed)",
    },
    "tls-cert": {
      type: "string",
      value: "FILE",
      description: "serve HTTPS with this certificate (PEM, may carry its chain; default: H2H_SINK_TLS_CERT)",
    },
    "tls-key": {
      type: "string",
      value: "FILE",
      description: "... and this private key (PEM; default: H2H_SINK_TLS_KEY)",
    },
  },
  environment: [
    "H2H_SINK_PORT, H2H_SINK_PUBLIC_URL, H2H_SINK_DATA_DIR, H2H_SINK_TOKEN,",
    "H2H_SINK_TLS_CERT, H2H_SINK_TLS_KEY  defaults of the options above",
    "H2H_PROFILE          target profile file (default: fixtures/profiles/reference.json)",
    "H2H_CALLBACK_SECRET  secret to verify callback signatures",
  ],
  exitCodes: BAD_SETTINGS_EXIT,
  // A missing, unreadable or mismatched certificate or key is bad usage; its message names the option.
  knownErrors: [...BAD_SETTINGS, [TlsConfigError, EXIT.usage]],
  async run(options) {
    const env = process.env;
    const profile = await readProfile(profilePathFrom(env));
    const secret =
      env.H2H_CALLBACK_SECRET || (profile.name === "reference" ? REFERENCE_CALLBACK_SECRET : undefined);
    const publicUrl = options["public-url"] ?? env.H2H_SINK_PUBLIC_URL;
    if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) {
      throw new UsageError(`--public-url / H2H_SINK_PUBLIC_URL "${publicUrl}" is not an http(s) URL`);
    }
    const port = options.port ?? env.H2H_SINK_PORT;
    const cwd = userDirectory(env);
    const dataDir = resolve(cwd, options["data-dir"] ?? env.H2H_SINK_DATA_DIR ?? ".sink-data");
    const certFile = options["tls-cert"] ?? (env.H2H_SINK_TLS_CERT || undefined);
    const keyFile = options["tls-key"] ?? (env.H2H_SINK_TLS_KEY || undefined);
    const tls =
      certFile !== undefined || keyFile !== undefined
        ? readTlsFiles(
            {
              ...(certFile ? { certFile: resolve(cwd, certFile) } : {}),
              ...(keyFile ? { keyFile: resolve(cwd, keyFile) } : {}),
            },
            { certFile: "--tls-cert", keyFile: "--tls-key" },
          )
        : undefined;
    const running = await startWebhookSink({
      port: port === undefined ? 0 : numberFlag("port", port),
      host: options.host ?? "127.0.0.1",
      dataDir,
      token: options.token ?? env.H2H_SINK_TOKEN,
      ...(publicUrl !== undefined ? { publicUrl } : {}),
      ...(secret !== undefined ? { secret } : {}),
      signature: profile.callbacks.signature,
      idPath: profile.callbacks.idPath,
      statusPath: profile.callbacks.statusPath,
      ...(tls ? { tls: { cert: tls.cert as string, key: tls.key as string } } : {}),
    });
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
    return EXIT.ok;
  },
});
