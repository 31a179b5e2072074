/**
 * `npm run sink`: starts the webhook sink alone, e.g. behind a tunnel for a provider that must
 * reach a public URL. Prints the callback URL (with its token) and how to query it.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { REFERENCE_PROFILE_PATH } from "../certify/settings.ts";
import { loadProfile } from "../contract/profile.ts";
import { readTlsFiles, TlsConfigError } from "../contract/tls.ts";
import { REFERENCE_CALLBACK_SECRET } from "../fixtures/reference-provider/conventions.ts";
import { startWebhookSink } from "../webhook-sink/index.ts";
import { numberFlag, runCli, UsageError } from "./cli.ts";

const USAGE = `usage: npm run sink -- [options]
  --port N           port (default: H2H_SINK_PORT, else a free port)
  --host ADDR        address to listen on (default: 127.0.0.1)
  --public-url URL   base URL providers reach the sink at (default: H2H_SINK_PUBLIC_URL, else the loopback URL)
  --data-dir DIR     where callbacks are stored (default: H2H_SINK_DATA_DIR, else .sink-data)
  --token TOKEN      the secret path token (default: H2H_SINK_TOKEN, else generated and printed)
  --tls-cert FILE    serve HTTPS with this certificate (PEM; default: H2H_SINK_TLS_CERT)
  --tls-key FILE     ... and this private key (PEM; default: H2H_SINK_TLS_KEY)
Signature scheme and the id/status paths come from the profile (H2H_PROFILE); the secret from
H2H_CALLBACK_SECRET (the reference secret when the profile is the reference one).`;

await runCli(async () => {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "public-url": { type: "string" },
        "data-dir": { type: "string" },
        token: { type: "string" },
        "tls-cert": { type: "string" },
        "tls-key": { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const env = process.env;
  const profile = await loadProfile(env.H2H_PROFILE ? resolve(env.H2H_PROFILE) : REFERENCE_PROFILE_PATH);
  const secret =
    env.H2H_CALLBACK_SECRET || (profile.name === "reference" ? REFERENCE_CALLBACK_SECRET : undefined);
  const publicUrl = (values["public-url"] as string | undefined) ?? env.H2H_SINK_PUBLIC_URL;
  if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) {
    throw new UsageError(`--public-url / H2H_SINK_PUBLIC_URL "${publicUrl}" is not an http(s) URL`);
  }
  const dataDir = resolve(
    (values["data-dir"] as string | undefined) ?? env.H2H_SINK_DATA_DIR ?? ".sink-data",
  );
  const certFile = (values["tls-cert"] as string | undefined) ?? (env.H2H_SINK_TLS_CERT || undefined);
  const keyFile = (values["tls-key"] as string | undefined) ?? (env.H2H_SINK_TLS_KEY || undefined);
  let tls: { cert: string; key: string } | undefined;
  if (certFile !== undefined || keyFile !== undefined) {
    try {
      const material = readTlsFiles(
        {
          ...(certFile ? { certFile: resolve(certFile) } : {}),
          ...(keyFile ? { keyFile: resolve(keyFile) } : {}),
        },
        { certFile: "--tls-cert", keyFile: "--tls-key" },
      );
      tls = { cert: material.cert as string, key: material.key as string };
    } catch (error) {
      if (error instanceof TlsConfigError) throw new UsageError(error.message);
      throw error;
    }
  }
  const sink = await startWebhookSink({
    port: numberFlag("port", (values.port as string | undefined) ?? env.H2H_SINK_PORT) ?? 0,
    host: (values.host as string | undefined) ?? "127.0.0.1",
    dataDir,
    token: (values.token as string | undefined) ?? env.H2H_SINK_TOKEN,
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    ...(secret !== undefined ? { secret } : {}),
    signature: profile.callbacks.signature,
    idPath: profile.callbacks.idPath,
    statusPath: profile.callbacks.statusPath,
    ...(tls ? { tls } : {}),
  });
  console.log(`LISTENING ${sink.url}`);
  console.log(`webhook sink listening on ${sink.url}, storing in ${dataDir}`);
  console.log(`  callback URL (metadata.webHook): ${sink.callbackUrl()}`);
  console.log(
    `  query: curl${tls ? ` --cacert ${certFile}` : ""} -H "Authorization: Bearer ${sink.token}" ${sink.url}/api/callbacks?orderId=<id>`,
  );
  console.log(
    `  signatures: ${secret && profile.callbacks.signature.scheme !== "none" ? `verified (${profile.callbacks.signature.scheme})` : "not verified"}. Ctrl-C stops.`,
  );
  await new Promise<void>((resolveStop) => {
    process.once("SIGINT", () => resolveStop());
    process.once("SIGTERM", () => resolveStop());
  });
  const stats = sink.stats();
  await sink.stop();
  console.log(`stopped: ${stats.stored} callbacks stored, rejected: ${JSON.stringify(stats.rejected)}`);
  return 0;
});
