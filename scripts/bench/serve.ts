/**
 * A server for a benchmark, run in its own process so that it does not share an event loop
 * with the load generator:
 *   provider   the reference provider, default options
 *   bare       a bare node:http server answering a fixed order record
 *   sink       the webhook sink (default options: fdatasync per group commit) on a fresh data dir
 *   bare-ack   a bare node:http server answering 200 {"stored":1} without storing anything
 *   canned     a bare node:http server answering the reference provider's own mobile-commerce
 *              creation and confirmation answers, by path (for k6's cost without a provider's)
 * Prints `LISTENING <url> [<callback url> <token>]` once ready, `RSS <bytes> <heap used>`
 * every BENCH_RSS_EVERY_MS ms when that is set, and `PEAK_RSS <bytes>` when it stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { endpointPath } from "../../contract/index.ts";
import {
  buildMobileCommerceOrderRequest,
  SAMPLE_ORDER_RECORD,
  sampleSuccessEnvelope,
} from "../../fixtures/index.ts";
import {
  boundHeapGrowth,
  createReferenceProvider,
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  REFERENCE_SIGNATURE,
  startReferenceProvider,
} from "../../fixtures/providers/reference/index.ts";
import { startWebhookSink } from "../../webhook-sink/index.ts";

/** A body of the size and shape of a mobile-commerce creation answer, so both servers write alike. */
export const FIXED_BODY = JSON.stringify(sampleSuccessEnvelope(SAMPLE_ORDER_RECORD));

/** A bare node:http server answering each request with `answer(its URL)`, a fixed body per path. */
async function startBare(
  answer: string | ((url: string) => string),
): Promise<{ url: string; stop(): Promise<unknown> }> {
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const body = typeof answer === "string" ? answer : answer(req.url ?? "/");
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
    signature: REFERENCE_SIGNATURE,
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

/** The reference provider's own answers to one mobile-commerce create → confirm, from its handler. */
function cannedOrderAnswers(): { create: string; confirm: string } {
  const provider = createReferenceProvider({ processingDelayMs: 600_000 });
  try {
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}`,
    };
    const create = provider.request({
      method: "POST",
      url: endpointPath("createMobileCommerceOrder"),
      headers,
      body: JSON.stringify(buildMobileCommerceOrderRequest({ methodID: 101, amount: 1500 })),
    });
    const id = (JSON.parse(create.body) as { data: { id: string } }).data.id;
    const confirm = provider.request({
      method: "POST",
      url: endpointPath("confirmMobileCommerceOrder", id),
      headers,
      body: JSON.stringify({ code: "1111" }),
    });
    if (create.status !== 200 || confirm.status !== 200)
      throw new Error(`the reference provider refused the canned order: ${create.body} ${confirm.body}`);
    return { create: create.body, confirm: confirm.body };
  } finally {
    void provider.stop();
  }
}

function startCanned(): Promise<{ url: string; stop(): Promise<unknown> }> {
  const answers = cannedOrderAnswers();
  return startBare((url) => (url.includes("-confirm/") ? answers.confirm : answers.create));
}

const kind = process.argv[2];
const starters: Record<string, () => Promise<{ url: string; stop(): Promise<unknown> }>> = {
  // As `npm run provider` serves it: with its heap kept near what it holds.
  provider: () => {
    boundHeapGrowth();
    return startReferenceProvider({ port: 0 });
  },
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
const rssEvery = Number(process.env.BENCH_RSS_EVERY_MS ?? 0);
const sampler =
  rssEvery > 0
    ? setInterval(
        () => console.log(`RSS ${process.memoryUsage.rss()} ${process.memoryUsage().heapUsed}`),
        rssEvery,
      )
    : undefined;
process.once("SIGTERM", () => {
  if (sampler) clearInterval(sampler);
  // maxRSS is in KiB: the most this process ever held, whatever the samples missed.
  console.log(`PEAK_RSS ${process.resourceUsage().maxRSS * 1024}`);
  void server.stop().then(() => process.exit(0));
});
