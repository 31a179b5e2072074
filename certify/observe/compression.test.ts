/**
 * Compressed answers through the proxy: passed to the merchant byte for byte, judged decoded. A
 * coding the merchant did not accept fails the provider; one that cannot be decoded leaves that
 * answer not judged, by name; a decompression bomb is decoded no further than the evidence cap.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { readProfile } from "../../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import { REFERENCE_API_KEYS, startReferenceProvider } from "../../fixtures/providers/reference/index.ts";
import { acceptsCoding } from "./decoding.ts";
import { judgeSession } from "./judge.ts";
import { runObserve } from "./observe.ts";
import { callbackForwarder, startObserveProxy } from "./proxy.ts";
import { ObserveSession } from "./session.ts";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

let lastPlainId = "";

type Coder = (accepted: string | undefined, body: Buffer) => { coding: string; body: Buffer } | undefined;

/** The reference provider behind a front that compresses its answers as `code` says: a bad provider, or a good one. */
async function compressingProvider(code: Coder) {
  const provider = await startReferenceProvider({ port: 0, processingDelayMs: 50 });
  closers.push(() => provider.stop({ cutInFlight: true }));
  const agent = new Agent();
  closers.push(() => agent.close());
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = { ...req.headers } as Record<string, string>;
    delete headers.host;
    delete headers["accept-encoding"];
    const answer = await request(`${provider.url}${req.url}`, {
      method: req.method as "POST",
      headers,
      body: Buffer.concat(chunks),
      dispatcher: agent,
    });
    const body = Buffer.from(await answer.body.arrayBuffer());
    const id = (JSON.parse(body.toString("utf8")) as { data?: { id?: unknown } | null }).data?.id;
    if (typeof id === "string") lastPlainId = id;
    const coded = code(req.headers["accept-encoding"], body);
    res.writeHead(answer.statusCode, {
      "content-type": String(answer.headers["content-type"]),
      ...(coded ? { "content-encoding": coded.coding } : {}),
    });
    res.end(coded ? coded.body : body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An observing proxy in front of `upstream`, recording into a session of its own. */
async function observingProxy(upstream: string) {
  const observed = new ObserveSession(65_536);
  const agent = new Agent();
  closers.push(() => agent.close());
  const proxy = await startObserveProxy({
    upstream,
    dispatcher: agent,
    session: observed,
    sinkUrlFor: undefined,
  });
  closers.push(() => proxy.stop());
  return { observed, proxy };
}

/** The session judged against the reference profile, unsigned, with no callbacks watched. */
async function judged(observed: ObserveSession) {
  return judgeSession(observed, {
    profile: await readProfile(REFERENCE_PROFILE_PATH),
    signed: false,
    callbacksObserved: false,
  });
}

/** A mobile-commerce creation sent through a proxy as gzip (whatever `body` is); the session. */
async function gzipRequest(body: string | Buffer) {
  const { observed, proxy } = await observingProxy(await compressingProvider(() => undefined));
  await (
    await request(`${proxy.url}/api/v1/payin/mobile-commerce/h2h`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-encoding": "gzip",
        authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}`,
      },
      body,
    })
  ).body.arrayBuffer();
  return observed;
}

/** One creation and one confirmation through the proxy, asking for `acceptEncoding`; what the merchant got, and the judgement. */
async function session(code: Coder, acceptEncoding: string | undefined) {
  const { observed, proxy } = await observingProxy(await compressingProvider(code));
  const received: { encoding: string | undefined; body: Buffer }[] = [];
  const post = async (path: string, body: unknown) => {
    const answer = await request(`${proxy.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}`,
        ...(acceptEncoding !== undefined ? { "accept-encoding": acceptEncoding } : {}),
      },
      body: JSON.stringify(body),
    });
    const bytes = Buffer.from(await answer.body.arrayBuffer());
    received.push({ encoding: answer.headers["content-encoding"] as string | undefined, body: bytes });
    return bytes;
  };
  await post("/api/v1/payin/mobile-commerce/h2h", {
    methodID: 101,
    amount: 1500,
    merchantOrderID: `gz-${Date.now()}`,
  });
  // The order id, from the front's plain answer before it was compressed.
  const orderId = lastPlainId;
  await post(`/api/v1/orders/${orderId}/mobile-commerce-confirm/h2h`, { code: "1111" });
  return { observed, received, judgement: await judged(observed) };
}

const gzip: Coder = (accepted, body) =>
  accepted?.includes("gzip") ? { coding: "gzip", body: gzipSync(body) } : undefined;
const alwaysBr: Coder = (_accepted, body) => ({ coding: "br", body: brotliCompressSync(body) });
const corruptGzip: Coder = (_accepted, body) => ({
  coding: "gzip",
  body: Buffer.concat([gzipSync(body).subarray(0, 12), Buffer.from("not deflate data at all")]),
});
const unknownCoding: Coder = (_accepted, body) => ({ coding: "x-squeeze", body });

const failedChecks = (checks: { check: string; status: string; required: boolean }[]) =>
  checks.filter((c) => c.status === "failed" && c.required).map((c) => c.check);

describe("observe: compressed answers", () => {
  it("passes a gzip answer the merchant accepted byte for byte, and judges it decoded: conformant", async () => {
    const { observed, received, judgement } = await session(gzip, "gzip, deflate");
    // The merchant got gzip bytes as the provider sent them.
    expect(received.map((r) => r.encoding)).toEqual(["gzip", "gzip"]);
    expect(received[0]?.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const [creation] = [...observed.eachExchange()];
    expect(creation?.response?.encoding).toMatchObject({ codings: ["gzip"], decoded: true });
    expect(JSON.parse(creation?.response?.body.text ?? "")).toMatchObject({ result: { codeError: "none" } });
    expect(failedChecks(judgement.provider.checks)).toEqual([]);
    expect(judgement.provider.verdict).toBe("conformant");
    const coding = judgement.provider.checks.filter((c) => c.check === "envelope.content-coding-accepted");
    expect(coding.map((c) => c.status)).toEqual(["passed", "passed"]);
    // The answer's own checks ran on the decoded JSON.
    expect(
      judgement.provider.checks.some((c) => c.check === "fields.order-record" && c.status === "passed"),
    ).toBe(true);
  }, 30_000);

  it("fails the provider for a coding the merchant's Accept-Encoding did not accept", async () => {
    const { judgement } = await session(alwaysBr, "gzip");
    expect(failedChecks(judgement.provider.checks)).toEqual([
      "envelope.content-coding-accepted",
      "envelope.content-coding-accepted",
    ]);
    expect(
      judgement.provider.checks.find((c) => c.check === "envelope.content-coding-accepted")?.detail,
    ).toContain('Content-Encoding br, which the request\'s Accept-Encoding "gzip" does not accept');
    // The body itself decoded, and was judged.
    expect(judgement.provider.checks.some((c) => c.check === "envelope.shape" && c.status === "passed")).toBe(
      true,
    );
  }, 30_000);

  it("leaves an answer it cannot decode not judged, by name and reason, never a violation", async () => {
    for (const coder of [corruptGzip, unknownCoding]) {
      const { judgement } = await session(coder, undefined);
      expect(failedChecks(judgement.provider.checks)).toEqual([]);
      const coding = judgement.provider.checks.filter((c) => c.check === "envelope.content-coding-accepted");
      expect(coding.map((c) => c.status)).toEqual(["not evaluated", "not evaluated"]);
      expect(coding[0]?.detail).toMatch(
        coder === corruptGzip
          ? /could not be decoded.*does not decode as gzip/
          : /x-squeeze is not one this Node decodes/,
      );
      // No check judged the undecoded bytes as the provider's JSON.
      expect(judgement.provider.checks.some((c) => c.check === "envelope.shape")).toBe(false);
    }
  }, 30_000);

  it("decodes a gzip bomb no further than the evidence cap", async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, "a"));
    const target = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(bomb);
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => target.close(resolve)));
    const { observed, proxy } = await observingProxy(
      `http://127.0.0.1:${(target.address() as AddressInfo).port}`,
    );
    const before = process.memoryUsage().arrayBuffers;
    const answer = await request(`${proxy.url}/api/v1/payin/mobile-commerce/h2h`, {
      method: "POST",
      body: "{}",
    });
    // The merchant gets the bomb's bytes as sent.
    expect(Buffer.from(await answer.body.arrayBuffer()).equals(bomb)).toBe(true);
    const [exchange] = [...observed.eachExchange()];
    expect(exchange?.response?.body.cut).toBe(true);
    expect(exchange?.response?.body.text.length).toBeLessThanOrEqual(65_536);
    expect(exchange?.response?.encoding?.problem).toBe(
      "decodes to more than 65536 bytes: the first 65536 kept",
    );
    // Nowhere near the 50 MiB the bomb decodes to.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  }, 30_000);

  it("hands a gzip callback on as sent, and keeps it decoded for judging", async () => {
    const seen: Buffer[] = [];
    const receiver = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      seen.push(Buffer.concat(chunks));
      res.writeHead(200).end("ok");
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => receiver.close(resolve)));
    const observed = new ObserveSession(65_536);
    const key = observed.webhookKey(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    const agent = new Agent();
    closers.push(() => agent.close());
    const text = '{"id":"o-1","status":"succeeded"}';
    const raw = gzipSync(text);
    await callbackForwarder(observed, agent, 5_000).forward({
      runId: key,
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      raw,
      json: JSON.parse(text),
      orderId: "o-1",
      status: "succeeded",
      signature: "not-checked",
      receivedAtMs: Date.now(),
      deliveryOfOrder: 1,
    });
    expect(seen[0]?.equals(raw)).toBe(true);
    const [delivery] = [...observed.eachCallback()];
    expect(delivery?.body.text).toBe(text);
    expect(delivery?.encoding).toMatchObject({ codings: ["gzip"], decoded: true, wireBytes: raw.length });
  });

  it("judges a gzip request the merchant sent decoded", async () => {
    const observed = await gzipRequest(
      gzipSync(JSON.stringify({ methodID: 101, amount: 1500, merchantOrderID: `gzq-${Date.now()}` })),
    );
    const [exchange] = [...observed.eachExchange()];
    expect(exchange?.requestEncoding).toMatchObject({ codings: ["gzip"], decoded: true });
    expect(JSON.parse(exchange?.requestBody.text ?? "")).toMatchObject({ methodID: 101 });
    const judgement = await judged(observed);
    const bodyValid = judgement.merchant.checks.find((c) => c.check === "merchant.request-body-valid");
    expect(bodyValid?.status, bodyValid?.detail).toBe("passed");
  }, 30_000);

  it("leaves a request that does not decode not judged, by name, never the merchant's violation", async () => {
    // Sent as gzip, but plain JSON: it does not decode.
    const judgement = await judged(await gzipRequest('{"methodID":101,"amount":1500}'));
    const bodyValid = judgement.merchant.checks.find((c) => c.check === "merchant.request-body-valid");
    expect(bodyValid?.status).toBe("not evaluated");
    expect(bodyValid?.detail).toMatch(/its body is not decoded: the body does not decode as gzip/);
    expect(judgement.merchant.failed).toBe(0);
  }, 30_000);

  it("shows the decoded answer in the reports, and says it was decoded", async () => {
    const upstream = await compressingProvider(gzip);
    const reportDir = await mkdtemp(join(tmpdir(), "h2h-observe-gzip-"));
    closers.push(() => rm(reportDir, { recursive: true, force: true }));
    const stop = new AbortController();
    const result = await runObserve({
      profile: await readProfile(REFERENCE_PROFILE_PATH),
      settings: {
        callbackSecret: undefined,
        sinkPort: 0,
        sinkPublicUrl: undefined,
        apiKey: undefined,
        secondApiKey: undefined,
      },
      upstream,
      tls: undefined,
      port: 0,
      keepWebhook: true,
      reportDir,
      signal: stop.signal,
      print: () => {},
      onListening: (url) => {
        request(`${url}/api/v1/payin/mobile-commerce/h2h`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "accept-encoding": "gzip",
            authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}`,
          },
          body: JSON.stringify({ methodID: 101, amount: 1500 }),
        })
          .then((answer) => answer.body.arrayBuffer())
          .finally(() => stop.abort("done"));
      },
    });
    expect(result.judgement.provider.verdict).toBe("conformant");
    const report = JSON.parse(await readFile(result.paths.json, "utf8")) as {
      exchanges: { response: { body: { text: string }; encoding: unknown } }[];
    };
    expect(report.exchanges[0]?.response.encoding).toMatchObject({ codings: ["gzip"], decoded: true });
    expect(JSON.parse(report.exchanges[0]?.response.body.text ?? "")).toMatchObject({
      result: { codeError: "none" },
    });
    const har = JSON.parse(await readFile(result.paths.har as string, "utf8")) as {
      log: { entries: { response: { content: { text: string } } }[] };
    };
    expect(JSON.parse(har.log.entries[0]?.response.content.text ?? "")).toMatchObject({
      data: { status: "payment_pending" },
    });
  }, 30_000);

  it("reads Accept-Encoding as RFC 9110 does", () => {
    expect(acceptsCoding(undefined, "br")).toBe(true);
    expect(acceptsCoding("", "gzip")).toBe(false);
    expect(acceptsCoding("gzip, deflate", "gzip")).toBe(true);
    expect(acceptsCoding("gzip;q=0, br", "gzip")).toBe(false);
    expect(acceptsCoding("x-gzip", "gzip")).toBe(true);
    expect(acceptsCoding("*", "zstd")).toBe(true);
    expect(acceptsCoding("*, br;q=0", "br")).toBe(false);
    expect(acceptsCoding("identity", "gzip")).toBe(false);
  });
});
