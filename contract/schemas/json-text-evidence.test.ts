/**
 * The evidence keeps an answer's bytes as received: a byte order mark stays in the body (its
 * length the Content-Length), a byte that is not UTF-8 is named with its offset, and what
 * JSON.parse forgave is recorded with the exchange, masked like the body.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExchangeRecorder, H2hClient } from "../client/index.ts";
import { createMasker } from "../kit/index.ts";

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const ENVELOPE =
  '{"data":null,"result":{"codeError":"none","message":null,"status":"success","x-request-id":"r-1"}}';

const answers: Record<string, Buffer> = {
  "/bom": Buffer.concat([BOM, Buffer.from(ENVELOPE)]),
  "/not-utf8": Buffer.concat([
    Buffer.from('{"data":{"note":"a'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"},"result":{}}'),
  ]),
  "/decoy": Buffer.from(
    '{"data":null,"result":{"status":"error","codeError":"internal_error","codeError":"none","message":null,"status":"success","x-request-id":"r-1"}}',
  ),
  "/secret-name": Buffer.from('{"result":{"sk-live-0123456789":1,"sk-live-0123456789":2}}'),
  "/clean": Buffer.from(ENVELOPE),
};

let server: Server;
let client: H2hClient;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const body = answers[req.url ?? ""] ?? Buffer.from("{}");
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  client = new H2hClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: "k",
    timeoutMs: 10_000,
  });
});
afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("an answer's bytes as received", () => {
  it("keeps a byte order mark in the body, parses past it, and names it", async () => {
    const { response } = await client.post("/bom", {});
    expect(response.body.charCodeAt(0)).toBe(0xfeff);
    expect(Buffer.byteLength(response.body)).toBe(Number(response.headers["content-length"]));
    expect(response.json).toEqual(JSON.parse(ENVELOPE));
    expect(response.jsonText?.issues.map((i) => i.problem)).toEqual(["byte-order-mark"]);
  });

  it("names bytes that are not UTF-8 by offset", async () => {
    const { response } = await client.post("/not-utf8", {});
    expect(response.body).toContain("a\ufffd\ufffd");
    expect(response.jsonText?.issues.map((i) => i.detail)).toEqual([
      "byte FF at byte 18 is not UTF-8",
      "byte FE at byte 19 is not UTF-8",
    ]);
  });

  it("names decoy members JSON.parse hides", async () => {
    const { response } = await client.post("/decoy", {});
    expect((response.json as { result: { status: string } }).result.status).toBe("success");
    expect(response.jsonText?.issues.map((i) => i.path)).toEqual(["result.codeError", "result.status"]);
  });

  it("sets nothing on a clean answer", async () => {
    const { response } = await client.post("/clean", {});
    expect(response.jsonText).toBeUndefined();
  });
});

describe("recorded", () => {
  const masker = createMasker({ secrets: ["sk-live-0123456789"], cardNumbers: ["4111111111111111"] });

  it("keeps the byte order mark and the parsed copy, and still masks by field and by value", async () => {
    const recorder = new ExchangeRecorder("spec", masker, undefined);
    const { response } = await client.post("/bom", {});
    const body = `\ufeff${JSON.stringify({ data: { cvc: "123", number: "4111111111111111" }, result: {} })}`;
    const recorded = recorder.record({
      startedAt: new Date().toISOString(),
      durationMs: 1,
      request: { method: "POST", url: "http://127.0.0.1:1/x", headers: {}, body: "{}" },
      response: { ...response, body, json: JSON.parse(body.slice(1)) },
    });
    expect(recorded.response.body.charCodeAt(0)).toBe(0xfeff);
    expect(recorded.response.body).not.toContain("4111111111111111");
    expect(recorded.response.body).not.toContain('"123"');
    expect(recorded.response.json).toMatchObject({ data: { number: "************1111" } });
    expect(recorded.response.jsonText?.issues[0]?.problem).toBe("byte-order-mark");
  });

  it("masks a secret in what the issues say", async () => {
    const recorder = new ExchangeRecorder("spec", masker, undefined);
    const exchange = await client.post("/secret-name", {});
    expect(exchange.response.jsonText?.issues[0]?.path).toContain("sk-live-0123456789");
    const recorded = recorder.record(exchange);
    expect(JSON.stringify(recorded.response.jsonText)).not.toContain("sk-live-0123456789");
    expect(recorded.response.jsonText?.issues[0]?.problem).toBe("duplicate-name");
  });
});
