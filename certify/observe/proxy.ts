/**
 * The recording reverse proxy of observe mode: the merchant's integration talks to it instead of
 * the provider. Requests and answers pass byte for byte (bodies streamed, a copy kept within the
 * evidence cap), but for metadata.webHook in a creation, which points at the sink instead; and
 * each callback the sink takes is handed on to the merchant's own webhook, its answer returned.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Transform } from "node:stream";
import { type Dispatcher, request } from "undici";
import { matchEndpoint, OPERATIONS } from "../../contract/index.ts";
import type { ForwardAnswer, ForwardedCallback } from "../../webhook-sink/index.ts";
import { decodeForJudging } from "./decoding.ts";
import {
  Capture,
  keepBody,
  type ObservedCallbackDelivery,
  type ObservedExchange,
  type ObserveSession,
} from "./session.ts";

/** Headers of one connection, not of the message: never passed on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "host",
]);

/** The largest creation body read whole to rewrite its webhook; a larger one passes as it is. */
const MAX_REWRITTEN_BODY_BYTES = 1024 * 1024;

function headerRecord(headers: IncomingMessage["headers"] | Record<string, string | string[] | undefined>) {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

function passedHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) out[name] = value;
  return out;
}

const WEBHOOK_MEMBER = /"webHook"\s*:\s*("(?:[^"\\]|\\.)*")/g;

/**
 * The creation body with metadata.webHook replaced by `replacement`, every other byte kept; undefined
 * when it holds no webHook to replace (not JSON, none given, or not one unambiguous member).
 */
export function rewriteWebhook(
  raw: Buffer,
  replacement: (original: string) => string,
): { body: Buffer; original: string } | undefined {
  const text = raw.toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const metadata = (parsed as { metadata?: unknown } | null)?.metadata;
  const original = (metadata as { webHook?: unknown } | null | undefined)?.webHook;
  if (typeof original !== "string" || original === "") return undefined;
  const spots = [...text.matchAll(WEBHOOK_MEMBER)].filter(
    (match) => JSON.parse(match[1] as string) === original,
  );
  if (spots.length !== 1) return undefined;
  const [spot] = spots as [RegExpExecArray];
  const start = (spot.index as number) + spot[0].length - (spot[1] as string).length;
  const end = (spot.index as number) + spot[0].length;
  const rewritten = `${text.slice(0, start)}${JSON.stringify(replacement(original))}${text.slice(end)}`;
  return { body: Buffer.from(rewritten, "utf8"), original };
}

async function readWhole(req: IncomingMessage, limit: number): Promise<Buffer | { head: Buffer[] }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > limit) return { head: chunks };
  }
  return Buffer.concat(chunks);
}

export interface ObserveProxyOptions {
  /** The provider's base URL (an optional path prefix kept). */
  upstream: string;
  /** The connection pool to the provider (its TLS and mTLS settings). */
  dispatcher: Dispatcher;
  session: ObserveSession;
  /** The sink's URL for a webhook key; undefined with --keep-webhook (webhooks left alone). */
  sinkUrlFor: ((key: string) => string) | undefined;
  port?: number;
  host?: string;
}

export interface RunningObserveProxy {
  url: string;
  port: number;
  /** Requests still in flight. */
  inFlight(): number;
  stop(): Promise<void>;
}

export async function startObserveProxy(options: ObserveProxyOptions): Promise<RunningObserveProxy> {
  const { session } = options;
  const base = options.upstream.replace(/\/+$/, "");
  let inFlight = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    session.touch();
    const startedAtMs = Date.now();
    const began = performance.now();
    const path = req.url ?? "/";
    const method = req.method ?? "GET";
    const exchange: ObservedExchange = {
      id: session.exchangeId(),
      startedAtMs,
      durationMs: 0,
      method,
      path,
      requestHeaders: headerRecord(req.headers),
      requestBody: { text: "", bytes: 0 },
    };
    session.beginExchange(exchange);
    let answered = false;
    // Complete once both the answer is done and the merchant's side closed (it may give up last).
    let closed = false;
    let done = false;
    res.on("close", () => {
      if (!res.writableFinished) exchange.merchantGaveUp = true;
      closed = true;
      if (done) session.finishExchange(exchange);
    });
    const headers = passedHeaders(req.headers);
    let body: Buffer | Transform | undefined;
    // A compressed request is decoded for judging once read; the bytes sent on are the merchant's.
    let requestDecoding: Promise<void> | undefined;
    const decodeRequest = (raw: Buffer, wireBytes: number, cut: boolean) => {
      if (exchange.requestHeaders["content-encoding"] === undefined) return;
      requestDecoding = decodeForJudging(
        raw,
        wireBytes,
        cut,
        exchange.requestHeaders["content-encoding"],
        session.capBytes,
      ).then(
        (decoded) => {
          if (!decoded) return;
          exchange.requestBody = decoded.body;
          exchange.requestEncoding = decoded.encoding;
        },
        () => undefined,
      );
    };
    const pathname = URL.canParse(path, "http://proxy.invalid")
      ? new URL(path, "http://proxy.invalid").pathname
      : path;
    const endpoint = matchEndpoint(pathname);
    const creates = endpoint !== undefined && OPERATIONS[endpoint.operation].step === "create";
    if (method === "GET" || method === "HEAD") {
      req.resume();
    } else if (creates && options.sinkUrlFor !== undefined) {
      const whole = await readWhole(req, MAX_REWRITTEN_BODY_BYTES);
      if (Buffer.isBuffer(whole)) {
        exchange.requestBody = keepBody(whole, session.capBytes);
        decodeRequest(whole.subarray(0, session.capBytes), whole.length, whole.length > session.capBytes);
        const sinkUrlFor = options.sinkUrlFor;
        let key = "";
        const rewritten = rewriteWebhook(whole, (original) => {
          key = session.webhookKey(original);
          return sinkUrlFor(key);
        });
        if (rewritten) {
          exchange.webhookRewritten = { original: rewritten.original, key };
          body = rewritten.body;
          // The body changed length: the length said must be the new one.
          delete headers["content-length"];
          delete headers["Content-Length"];
          headers["content-length"] = String(rewritten.body.length);
        } else body = whole;
      } else {
        // Too large to rewrite: passed on as it is, the rest streamed after the head.
        const capture = new Capture(session.capBytes);
        const tee = capturing(capture);
        for (const chunk of whole.head) tee.write(chunk);
        req.pipe(tee);
        tee.on("end", () => {
          exchange.requestBody = capture.body();
          decodeRequest(capture.raw(), capture.total, exchange.requestBody.cut === true);
        });
        body = tee;
      }
    } else {
      const capture = new Capture(session.capBytes);
      const tee = capturing(capture);
      req.pipe(tee);
      tee.on("end", () => {
        exchange.requestBody = capture.body();
        decodeRequest(capture.raw(), capture.total, exchange.requestBody.cut === true);
      });
      body = tee;
    }
    inFlight += 1;
    try {
      const answer = await request(`${base}${path.startsWith("/") ? path : `/${path}`}`, {
        method: method as Dispatcher.HttpMethod,
        headers,
        ...(body !== undefined ? { body } : {}),
        dispatcher: options.dispatcher,
      });
      const capture = new Capture(session.capBytes);
      const answerHeaders = passedHeaders(answer.headers);
      if (!res.destroyed) res.writeHead(answer.statusCode, answerHeaders);
      answered = true;
      for await (const chunk of answer.body) {
        capture.add(chunk as Buffer);
        if (res.destroyed) continue;
        if (!res.write(chunk)) await Promise.race([once(res, "drain"), once(res, "close")]);
      }
      const kept = capture.body();
      const answerRecord = headerRecord(answer.headers);
      // Passed on compressed, as sent; judged decoded, within the same cap. Decoded before the
      // answer ends, so that a session stopped once it has ended judges it as decoded.
      const decoded = await decodeForJudging(
        capture.raw(),
        capture.total,
        kept.cut === true,
        answerRecord["content-encoding"],
        session.capBytes,
      ).catch(() => undefined);
      await requestDecoding;
      exchange.response = {
        status: answer.statusCode,
        headers: answerRecord,
        body: decoded?.body ?? kept,
        ...(decoded ? { encoding: decoded.encoding } : {}),
      };
      res.end();
    } catch (error) {
      const reason = describeTransportError(error);
      exchange.transportFault = reason;
      if (!answered && !res.headersSent) {
        // Never an API envelope: the proxy does not speak for the provider.
        const text = `h2h-certify observe: no answer from the provider at ${base}: ${reason}\n`;
        res.writeHead(502, {
          "content-type": "text/plain; charset=utf-8",
          "content-length": Buffer.byteLength(text),
        });
        res.end(text);
      } else res.destroy();
    } finally {
      inFlight -= 1;
      exchange.durationMs = performance.now() - began;
      await requestDecoding;
      session.touch();
      done = true;
      if (closed) session.finishExchange(exchange);
    }
  }

  const server: Server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end(`h2h-certify observe: ${describeTransportError(error)}\n`);
      } else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    inFlight: () => inFlight,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 500).unref();
      }),
  };
}

function capturing(capture: Capture): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      capture.add(chunk);
      done(null, chunk);
    },
  });
}

function describeTransportError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = (error as { code?: string }).code ?? cause?.code;
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return code ? `${code} (${message})` : message;
}

export interface CallbackForwarder {
  forward(callback: ForwardedCallback): Promise<ForwardAnswer>;
}

/**
 * Hands each callback the sink takes to the merchant's webhook it was meant for, with the
 * provider's method, headers and bytes, and records the receiver's answer; a callback for a URL
 * the session never gave out is refused (404) and counted.
 */
export function callbackForwarder(
  session: ObserveSession,
  dispatcher: Dispatcher,
  timeoutMs: number,
): CallbackForwarder {
  return {
    async forward(callback) {
      session.touch();
      const original = callback.runId === null ? undefined : session.webhooks.get(callback.runId);
      const delivery = {
        id: session.callbackId(),
        receivedAtMs: callback.receivedAtMs,
        orderId: callback.orderId,
        status: callback.status,
        json: callback.json,
        headers: callback.headers,
        body: keepBody(callback.raw, session.capBytes),
        signature: callback.signature,
        key: callback.runId,
      } as ObservedCallbackDelivery;
      if (original === undefined) {
        session.unknownKeyCallbacks += 1;
        return plain(404, "h2h-certify observe: this callback URL was never given to the provider\n");
      }
      session.beginCallback(delivery);
      const began = performance.now();
      try {
        const answer = await request(original, {
          method: callback.method as Dispatcher.HttpMethod,
          headers: passedHeaders(callback.headers),
          body: callback.raw,
          dispatcher,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const bytes = Buffer.from(await answer.body.arrayBuffer());
        delivery.answer = {
          status: answer.statusCode,
          body: keepBody(bytes, session.capBytes),
          durationMs: performance.now() - began,
        };
        return { status: answer.statusCode, headers: headerRecord(answer.headers), body: bytes };
      } catch (error) {
        delivery.error = describeTransportError(error);
        return plain(502, `h2h-certify observe: the merchant's receiver did not answer: ${delivery.error}\n`);
      } finally {
        // The receiver got the provider's bytes; the body kept for judging is decoded.
        const decoded = await decodeForJudging(
          callback.raw.subarray(0, session.capBytes),
          callback.raw.length,
          callback.raw.length > session.capBytes,
          callback.headers["content-encoding"],
          session.capBytes,
        ).catch(() => undefined);
        if (decoded) {
          delivery.body = decoded.body;
          delivery.encoding = decoded.encoding;
        }
        session.finishCallback(delivery);
        session.touch();
      }
    },
  };
}

const plain = (status: number, text: string): ForwardAnswer => ({
  status,
  headers: { "content-type": "text/plain; charset=utf-8" },
  body: Buffer.from(text, "utf8"),
});
