/**
 * The proxy on its own: bytes passed as sent, the webhook rewritten with its length, bad input
 * (an unreachable upstream, a body that is not JSON, a callback to a URL never given out).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { callbackForwarder, rewriteWebhook, startObserveProxy } from "./proxy.ts";
import { ObserveSession } from "./session.ts";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

/** An upstream that records what reached it and answers a fixed body. */
async function upstream(answer: { status: number; headers: Record<string, string>; body: string }) {
  const seen: Seen[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    seen.push({
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks),
    });
    res.writeHead(answer.status, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function proxyTo(target: string, sinkUrlFor?: (key: string) => string) {
  const session = new ObserveSession(65_536);
  const agent = new Agent();
  const proxy = await startObserveProxy({
    upstream: target,
    dispatcher: agent,
    session,
    sinkUrlFor,
    port: 0,
  });
  closers.push(() => agent.close());
  closers.push(() => proxy.stop());
  return { proxy, session };
}

const ANSWER =
  '{"data":{"id":"o-1"},  "result":{"codeError":"none","message":null,"status":"success","x-request-id":"r1"}}';

describe("the observe proxy", () => {
  it("passes a request and its answer byte for byte, and keeps a copy", async () => {
    const target = await upstream({
      status: 200,
      headers: { "content-type": "application/json", "x-extra": "1" },
      body: ANSWER,
    });
    const { proxy, session } = await proxyTo(`${target.url}/tenant`);
    const body = '{"code": "1111" ,"x":1.50}';
    const answer = await request(`${proxy.url}/api/v1/orders/o-1/ecom-confirm/h2h?q=1`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k", "x-mine": "yes" },
      body,
    });
    expect(await answer.body.text()).toBe(ANSWER);
    expect(answer.headers["x-extra"]).toBe("1");
    expect(target.seen[0]?.url).toBe("/tenant/api/v1/orders/o-1/ecom-confirm/h2h?q=1");
    expect(target.seen[0]?.body.toString()).toBe(body);
    expect(target.seen[0]?.headers["x-mine"]).toBe("yes");
    expect([...session.eachExchange()][0]?.requestBody.text).toBe(body);
    expect([...session.eachExchange()][0]?.response?.body.text).toBe(ANSWER);
  });

  it("rewrites metadata.webHook only, every other byte kept, with the new Content-Length", async () => {
    const target = await upstream({
      status: 200,
      headers: { "content-type": "application/json" },
      body: ANSWER,
    });
    const { proxy, session } = await proxyTo(
      target.url,
      (key) => `http://127.0.0.1:9/callbacks/tok/run/${key}`,
    );
    const body =
      '{ "amount" : 1500.50, "methodID":101,"metadata":{"webHook":"https:\\/\\/shop.test\\/hook"} }';
    await request(`${proxy.url}/api/v1/payin/mobile-commerce/h2h`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    }).then((a) => a.body.text());
    const sent = target.seen[0] as Seen;
    expect(sent.body.toString()).toBe(
      '{ "amount" : 1500.50, "methodID":101,"metadata":{"webHook":"http://127.0.0.1:9/callbacks/tok/run/w1"} }',
    );
    expect(Number(sent.headers["content-length"])).toBe(sent.body.length);
    expect(session.webhooks.get("w1")).toBe("https://shop.test/hook");
    // The merchant's own body is what is judged.
    expect([...session.eachExchange()][0]?.requestBody.text).toBe(body);
  });

  it("leaves a body that is not JSON alone", () => {
    expect(rewriteWebhook(Buffer.from("methodID=101"), () => "x")).toBeUndefined();
  });

  it("answers 502 in plain text when the upstream cannot be reached, recorded as a transport fault", async () => {
    const gone = await upstream({ status: 200, headers: {}, body: "" });
    const closeGone = closers.pop() as () => Promise<unknown>;
    await closeGone();
    const { proxy, session } = await proxyTo(gone.url);
    const answer = await request(`${proxy.url}/api/v1/payin/quasi-ecom/h2h`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "not json",
    });
    expect(answer.statusCode).toBe(502);
    expect(answer.headers["content-type"]).toMatch(/^text\/plain/);
    expect(await answer.body.text()).toMatch(/no answer from the provider.*ECONNREFUSED/);
    expect([...session.eachExchange()][0]?.transportFault).toMatch(/ECONNREFUSED/);
  });

  it("hands a callback to the merchant's webhook as sent, and refuses one for a URL never given out", async () => {
    const receiver = await upstream({
      status: 202,
      headers: { "content-type": "text/plain" },
      body: "taken",
    });
    const session = new ObserveSession(65_536);
    const key = session.webhookKey(`${receiver.url}/hook`);
    const agent = new Agent();
    closers.push(() => agent.close());
    const forwarder = callbackForwarder(session, agent, 5_000);
    const raw = Buffer.from('{"id":"o-1","status":"succeeded"}');
    const callback = {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": "sha256=ab", host: "sink" },
      raw,
      json: JSON.parse(raw.toString()),
      orderId: "o-1",
      status: "succeeded",
      signature: "not-checked" as const,
      receivedAtMs: Date.now(),
      deliveryOfOrder: 1,
    };
    const answer = await forwarder.forward({ ...callback, runId: key });
    expect(answer.status).toBe(202);
    expect(answer.body.toString()).toBe("taken");
    expect(receiver.seen[0]?.body.equals(raw)).toBe(true);
    expect(receiver.seen[0]?.headers["x-signature"]).toBe("sha256=ab");
    expect(receiver.seen[0]?.url).toBe("/hook");
    expect([...session.eachCallback()][0]?.answer?.status).toBe(202);
    const unknown = await forwarder.forward({ ...callback, runId: "w999" });
    expect(unknown.status).toBe(404);
    expect(session.unknownKeyCallbacks).toBe(1);
    expect(receiver.seen).toHaveLength(1);
  });
});
