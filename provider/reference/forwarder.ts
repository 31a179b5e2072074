/**
 * A loopback HTTP forwarder put in front of a provider: to pick an upstream per request, to watch
 * the answers, or to hold each exchange back a while, as a slow network would (latency the suite
 * must hold against: a correct provider stays conformant behind it).
 */
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from "node:http";
import type { AddressInfo } from "node:net";
import { SeededRandom } from "../../contract/index.ts";

export interface ForwarderOptions {
  /** The base URL (scheme, host, port) this request goes to; its path and query are kept. */
  upstreamOf(req: IncomingMessage): string;
  /** Sees the upstream's answer before it is passed on; must not read its body. */
  onAnswer?(req: IncomingMessage, answer: IncomingMessage): void;
  /**
   * How long to hold this exchange (ms): the request before it is passed on, and the answer once
   * the upstream gave it. The client waits for both; the upstream acts only after the first.
   */
  holdOf?(req: IncomingMessage): Hold;
  /**
   * The path and headers sent upstream in place of the request's (a gateway's path prefix
   * stripped, a key swapped); undefined answers 404 without passing the request on.
   */
  rewrite?(req: IncomingMessage): { path: string; headers: IncomingHttpHeaders } | undefined;
}

export interface Hold {
  requestMs: number;
  answerMs: number;
}

export interface RunningForwarder {
  url: string;
  /** How many exchanges were held back, and the longest hold, both legs (ms). */
  delays(): { count: number; maxMs: number };
  close(): Promise<void>;
}

/** A loopback HTTP server that passes each request, unchanged, to the upstream chosen for it. */
export async function startForwarder(options: ForwarderOptions): Promise<RunningForwarder> {
  const held = { count: 0, maxMs: 0 };
  const server = createServer((req, res) => {
    const hold = options.holdOf?.(req) ?? { requestMs: 0, answerMs: 0 };
    const requestMs = Math.max(0, hold.requestMs);
    const answerMs = Math.max(0, hold.answerMs);
    if (requestMs + answerMs > 0) {
      held.count += 1;
      held.maxMs = Math.max(held.maxMs, requestMs + answerMs);
    }
    const upstream = new URL(options.upstreamOf(req));
    const sent = options.rewrite ? options.rewrite(req) : { path: req.url, headers: req.headers };
    if (!sent) {
      req.resume();
      res.writeHead(404, { "content-type": "text/plain" }).end("not behind this forwarder's prefix");
      return;
    }
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: sent.path,
        headers: sent.headers,
      },
      (answer) => {
        options.onAnswer?.(req, answer);
        const pass = () => {
          if (res.destroyed) {
            answer.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        };
        if (answerMs > 0) setTimeout(pass, answerMs);
        else pass();
      },
    );
    forward.on("error", () => res.destroy());
    // The request's body is read at once and sent on after the hold, whole.
    if (requestMs > 0) {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => setTimeout(() => forward.end(Buffer.concat(chunks)), requestMs));
    } else req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    delays: () => ({ ...held }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/**
 * Latency drawn from `seed`: each exchange held a random 0 to `maxMs` ms (uniform), split at
 * random between the request (before the target sees it) and the answer (after it acted). So the
 * target acts anywhere within the time the client measures: at its start, its end or between.
 * The same seed gives the same sequence.
 */
export function seededJitter(seed: number, maxMs: number): () => Hold {
  if (!Number.isFinite(maxMs) || maxMs < 0)
    throw new Error(`jitter of ${maxMs} ms: give a number of milliseconds ≥ 0`);
  const random = new SeededRandom(seed);
  return () => {
    const totalMs = Math.round(random.next() * maxMs);
    const requestMs = Math.round(random.next() * totalMs);
    return { requestMs, answerMs: totalMs - requestMs };
  };
}

/** `upstreamUrl` behind exchanges held 0 to `maxMs` ms each, drawn from `seed`. */
export function startJitterProxy(
  upstreamUrl: string,
  maxMs: number,
  seed: number,
): Promise<RunningForwarder> {
  const hold = seededJitter(seed, maxMs);
  return startForwarder({ upstreamOf: () => upstreamUrl, holdOf: () => hold() });
}
