/**
 * A server for a benchmark, run in its own process so that it does not share an event loop
 * with the load generator:
 *   provider   the reference provider, default options
 *   bare       a bare node:http server answering a fixed order record
 *   sink       the webhook sink (default options: fdatasync per group commit) on a fresh data dir
 *   bare-ack   a bare node:http server answering 200 {"stored":1} without storing anything
 *   canned     a bare node:http server answering the reference provider's own mobile-commerce
 *              creation and confirmation answers, by path (for k6's cost without a provider's)
 * Prints `LISTENING <url> [<callback url> <token>]` once ready and stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REFERENCE_SIGNATURE_SCHEME } from "../contract/callback-signature.ts";
import { REFERENCE_CALLBACK_SECRET, startReferenceProvider } from "../fixtures/reference-provider/index.ts";
import { OrderBook, toConfirmationResult, toOrderRecord } from "../fixtures/reference-provider/order-book.ts";
import { SAMPLE_ORDER_RECORD, sampleSuccessEnvelope } from "../fixtures/samples.ts";
import { startWebhookSink } from "../webhook-sink/index.ts";

/** A body of the size and shape of a mobile-commerce creation answer, so both servers write alike. */
export const FIXED_BODY = JSON.stringify(sampleSuccessEnvelope(SAMPLE_ORDER_RECORD));

async function startBare(body: string): Promise<{ url: string; stop(): Promise<unknown> }> {
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    // Consume the body like any real handler must before answering on a keep-alive connection.
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
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

/** The reference provider's answers to one mobile-commerce create → confirm, made by its own order book. */
function cannedOrderAnswers(): { create: string; confirm: string } {
  const book = new OrderBook({
    lifetimeMs: 30_000,
    processingDelayMs: 1_000_000,
    effects: {},
    onStatusEntered: () => {},
  });
  try {
    const created = book.create("merchant-1", "mobile_commerce", {
      methodID: 101,
      amount: 1500,
      trafficType: "mixed",
    });
    const create = JSON.stringify(sampleSuccessEnvelope(toOrderRecord(created)));
    const { order, timer } = book.confirm("merchant-1", "mobile_commerce", created.id, "1111");
    return { create, confirm: JSON.stringify(sampleSuccessEnvelope(toConfirmationResult(order, timer))) };
  } finally {
    book.shutdown();
  }
}

async function startCanned(): Promise<{ url: string; stop(): Promise<unknown> }> {
  const answers = cannedOrderAnswers();
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const body = req.url?.includes("-confirm/") ? answers.confirm : answers.create;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
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

const kind = process.argv[2];
const starters: Record<string, () => Promise<{ url: string; stop(): Promise<unknown> }>> = {
  provider: () => startReferenceProvider({ port: 0 }),
  bare: () => startBare(FIXED_BODY),
  "bare-ack": () => startBare('{"stored":1}'),
  canned: startCanned,
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
