/**
 * A server for a benchmark, run in its own process so that it does not share an event loop
 * with the load generator:
 *   provider   the reference provider, default options
 *   bare       a bare node:http server answering a fixed order record
 *   sink       the webhook sink (default options: fdatasync per group commit) on a fresh data dir
 *   bare-ack   a bare node:http server answering 200 {"stored":1} without storing anything
 * Prints `LISTENING <url> [<callback url> <token>]` once ready and stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REFERENCE_SIGNATURE_SCHEME } from "../contract/callback-signature.ts";
import { REFERENCE_CALLBACK_SECRET, startReferenceProvider } from "../fixtures/reference-provider/index.ts";
import { startWebhookSink } from "../webhook-sink/index.ts";

/** A body of the size and shape of a mobile-commerce creation answer, so both servers write alike. */
export const FIXED_BODY = JSON.stringify({
  data: {
    id: "c67ce84c-9198-4065-a3d5-9c82c8569184",
    dateAdded: "2026-11-22T03:07:45.523Z",
    dateUpdated: "2026-11-22T03:07:45.523Z",
    orderType: "mobile_commerce",
    status: "payment_pending",
    idTransactionMerchant: null,
    amount: 1500,
    amountComission: 37.5,
    currency: "RUB",
    usdtAmount: 16.22,
    usdtAmountComission: 0.41,
    exchangeRate: 92.5,
    merchantID: "merchant-1",
    routingAttempts: [],
    paymentDetailsData: {
      methodID: 101,
      requisiteTypeCode: "link",
      mediatorName: null,
      bankCode: null,
      number: null,
      numberAdditional: null,
      link: "https://pay.sandbox.invalid/c67ce84c-9198-4065-a3d5-9c82c8569184",
    },
  },
  result: {
    codeError: "none",
    message: null,
    status: "success",
    "x-request-id": "392c8b7c-dc98-4e9d-8238-20b7f09f25f7",
  },
});

async function startBare(): Promise<{ url: string; stop(): Promise<unknown> }> {
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    // Consume the body like any real handler must before answering on a keep-alive connection.
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(FIXED_BODY),
      });
      res.end(FIXED_BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

async function startSink() {
  const dataDir = mkdtempSync(join(tmpdir(), "h2h-bench-sink-"));
  const sink = await startWebhookSink({
    dataDir,
    secret: REFERENCE_CALLBACK_SECRET,
    signature: REFERENCE_SIGNATURE_SCHEME,
    sync: process.env.SINK_SYNC !== "0",
  });
  return {
    url: `${sink.url} ${sink.callbackUrl()} ${sink.token}`,
    stop: async () => {
      await sink.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const kind = process.argv[2];
const starters: Record<string, () => Promise<{ url: string; stop(): Promise<unknown> }>> = {
  provider: () => startReferenceProvider({ port: 0 }),
  bare: () => startBare(FIXED_BODY),
  "bare-ack": () => startBare('{"stored":1}'),
  sink: startSink,
};
const start = kind === undefined ? undefined : starters[kind];
if (!start) {
  console.error(`usage: serve.ts ${Object.keys(starters).join("|")}`);
  process.exit(64);
}
const server = await start();
console.log(`LISTENING ${server.url}`);
process.once("SIGTERM", () => {
  void server.stop().then(() => process.exit(0));
});
