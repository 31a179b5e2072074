import { getEventListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type Exchange,
  H2hClient,
  parseRetryAfter,
  rateLimitWait,
  requestTimeout,
  TransportError,
} from "./h2h-client.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const LIMIT = 64 * 1024;
/** A compressed body that decodes to 200 MB of zeros (about 200 KB on the wire). */
const GZIP_BOMB = gzipSync(Buffer.alloc(200 * 1024 * 1024), { level: 9 });
const JSON_BODY = JSON.stringify({
  data: { rate: 19.4111111111111, note: "ü" },
  result: { codeError: "none" },
});

let server: Server;
let baseUrl: string;
/** Bytes each route wrote before the client went away. */
const written = new Map<string, number>();

/** Writes `total` bytes of `fill` in 64 KiB chunks, respecting backpressure, until done or the client leaves. */
function stream(res: ServerResponse, path: string, total: number, fill = "x") {
  const chunk = Buffer.alloc(64 * 1024, fill);
  let sent = 0;
  written.set(path, 0);
  const pump = () => {
    while (sent < total) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      written.set(path, sent);
      if (!res.write(piece)) return void res.once("drain", pump);
    }
    res.end();
  };
  res.on("error", () => {});
  pump();
}

/** Requests per rate-limited route: `/limited/<n>/<retry-after>/<tag>` answers 429 to its first n. */
const limitedCalls = new Map<string, number>();
function rateLimitedRoute(req: IncomingMessage, res: ServerResponse): boolean {
  const match = /^\/limited\/(\d+)\/([^/]*)\/[\w-]+$/.exec(req.url ?? "");
  if (!match) return false;
  const calls = (limitedCalls.get(req.url as string) ?? 0) + 1;
  limitedCalls.set(req.url as string, calls);
  if (calls <= Number(match[1])) {
    res.writeHead(429, match[2] === "none" ? {} : { "retry-after": match[2] as string });
    res.end('{"codeError":"rate_limited"}');
  } else {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ calls }));
  }
  return true;
}

/** Answers held by `/held`, sent when released. */
const held: (() => void)[] = [];

const routes: Record<string, Handler> = {
  "/held": (_req, res) => {
    res.on("error", () => {});
    held.push(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"late":true}');
    });
  },
  "/small": (_req, res) => {
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(JSON_BODY),
    });
    res.end(JSON_BODY);
  },
  "/big-declared": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(5 * 1024 * 1024) });
    stream(res, "/big-declared", 5 * 1024 * 1024);
  },
  "/big-chunked": (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    stream(res, "/big-chunked", 1024 * 1024);
  },
  "/endless": (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    stream(res, "/endless", 1024 * 1024 * 1024);
  },
  "/multibyte": (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    // 'é' is 2 bytes: the limit falls inside the last one.
    res.end(`${"a".repeat(LIMIT - 1)}é${"b".repeat(100)}`);
  },
  "/gzip": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end(gzipSync(JSON_BODY));
  },
  "/br": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "br" });
    res.end(brotliCompressSync(JSON_BODY));
  },
  "/deflate": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "deflate" });
    res.end(deflateSync(JSON_BODY));
  },
  "/gzip-then-br": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip, br" });
    res.end(brotliCompressSync(gzipSync(JSON_BODY)));
  },
  "/gzip-bomb": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.on("error", () => {});
    res.end(GZIP_BOMB);
  },
  "/corrupt-gzip": (_req, res) => {
    const gz = gzipSync(JSON_BODY);
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end(Buffer.concat([gz.subarray(0, 20), Buffer.from("not gzip at all, not at all")]));
  },
  "/zstd": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "x-unknown" });
    res.end("\u0028\u00b5\u002f\u00fd binary");
  },
  "/rate-limited": (_req, res) => {
    res.writeHead(429, { "content-type": "application/json", "retry-after": "7" });
    res.end('{"result":{"codeError":"too_many_requests"}}');
  },
  "/rate-limited-date": (_req, res) => {
    const now = Date.parse("2026-11-22T03:00:00Z");
    res.writeHead(429, {
      date: new Date(now).toUTCString(),
      "retry-after": new Date(now + 90_000).toUTCString(),
    });
    res.end();
  },
  "/auth-echo": (req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ authorization: req.headers.authorization ?? null }));
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const handler = routes[req.url ?? ""];
    if (rateLimitedRoute(req, res)) return;
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function client(options: Partial<ConstructorParameters<typeof H2hClient>[0]> = {}) {
  return new H2hClient({ baseUrl, apiKey: "key-1", timeoutMs: 10_000, maxBodyBytes: LIMIT, ...options });
}

describe("H2hClient: bounded answers", () => {
  it("keeps a small answer whole, parsed, with its size", async () => {
    const { response } = await client().post("/small", {});
    expect(response.body).toBe(JSON_BODY);
    expect(response.json).toEqual(JSON.parse(JSON_BODY));
    expect(response.truncated).toBeUndefined();
    expect(response.size).toEqual({ bytes: Buffer.byteLength(JSON_BODY), from: "content-length" });
  });

  it("cuts an answer over the limit, keeps what was read, takes the real size from Content-Length and stops reading", async () => {
    const { response } = await client().post("/big-declared", {});
    expect(response.truncated).toBe(true);
    expect(response.limitBytes).toBe(LIMIT);
    expect(response.body).toBe("x".repeat(LIMIT));
    expect(response.json).toBeUndefined();
    expect(response.size).toEqual({ bytes: 5 * 1024 * 1024, from: "content-length" });
    // The connection was cut: the server could not write the whole 5 MB.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written.get("/big-declared") ?? 0).toBeLessThan(5 * 1024 * 1024);
  });

  it("counts the real size of a chunked answer within the probe bound", async () => {
    const { response } = await client().post("/big-chunked", {});
    expect(response.truncated).toBe(true);
    expect(response.body).toHaveLength(LIMIT);
    expect(response.size).toEqual({ bytes: 1024 * 1024, from: "counted" });
  });

  it("gives a lower bound for an endless answer and cuts it after the probe bound", async () => {
    const { response } = await client({ sizeProbeBytes: 512 * 1024 }).post("/endless", {});
    expect(response.truncated).toBe(true);
    expect(response.size?.from).toBe("at-least");
    expect(response.size?.bytes).toBeGreaterThan(LIMIT + 512 * 1024);
    expect(response.size?.bytes).toBeLessThan(4 * 1024 * 1024);
  });

  it("drops a character cut in half at the limit instead of showing a broken one", async () => {
    const { response } = await client().post("/multibyte", {});
    expect(response.truncated).toBe(true);
    expect(response.body).toBe("a".repeat(LIMIT - 1));
  });
});

describe("H2hClient: compressed answers", () => {
  it.each(["/gzip", "/br", "/deflate", "/gzip-then-br"])("decodes %s", async (path) => {
    const { response } = await client().post(path, {});
    expect(response.body).toBe(JSON_BODY);
    expect(response.json).toEqual(JSON.parse(JSON_BODY));
    expect(response.contentEncoding?.decoded).toBe(true);
    expect(response.contentEncoding?.problem).toBeUndefined();
  });

  it("decodes a gzip bomb only up to the limit", async () => {
    const before = process.memoryUsage().rss;
    const { response } = await client().post("/gzip-bomb", {});
    expect(response.truncated).toBe(true);
    expect(response.body).toHaveLength(LIMIT);
    expect(response.contentEncoding).toEqual({ codings: ["gzip"], decoded: true });
    expect(response.size?.from).toBe("at-least");
    expect(response.size?.bytes).toBeLessThanOrEqual(GZIP_BOMB.length);
    // 200 MB were never expanded (a loose bound: the heap moves for other reasons too).
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it("reports corrupt compressed data and keeps what decoded", async () => {
    const { response } = await client().post("/corrupt-gzip", {});
    expect(response.contentEncoding?.decoded).toBe(false);
    expect(response.contentEncoding?.problem).toMatch(/^decoding stopped after \d+ bytes: /);
    expect(response.json).toBeUndefined();
  });

  it("reports an unsupported coding and keeps the body as received", async () => {
    const { response } = await client().post("/zstd", {});
    expect(response.contentEncoding).toEqual({
      codings: ["x-unknown"],
      decoded: false,
      problem: "unsupported Content-Encoding x-unknown: the body is kept as received",
    });
    expect(response.body).toContain("binary");
  });
});

describe("H2hClient: rate limits, credentials, failures", () => {
  it("recognises a 429 and parses Retry-After in seconds", async () => {
    const { response } = await client().post("/rate-limited", {});
    expect(response.status).toBe(429);
    expect(response.rateLimit).toEqual({ retryAfter: "7", retryAfterMs: 7000 });
  });

  it("parses a Retry-After date against the answer's own Date header", async () => {
    const { response } = await client().post("/rate-limited-date", {});
    expect(response.rateLimit?.retryAfterMs).toBe(90_000);
  });

  it("parseRetryAfter: seconds, dates, garbage", () => {
    expect(parseRetryAfter("120")).toBe(120_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 03:00:30 GMT", Date.parse("2026-11-22T03:00:00Z"))).toBe(30_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 02:00:00 GMT", Date.parse("2026-11-22T03:00:00Z"))).toBe(0);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it("never sends nor records the base URL's userinfo", async () => {
    const withCredentials = baseUrl.replace("http://", "http://user:S3cret@");
    const c = client({ baseUrl: withCredentials });
    expect(c.userinfoIgnored).toBe(true);
    expect(c.baseUrl).toBe(baseUrl);
    const exchange = await c.post("/auth-echo", {});
    expect(exchange.request.url).toBe(`${baseUrl}/auth-echo`);
    expect(exchange.response.json).toEqual({ authorization: "Bearer key-1" });
  });

  it("names the URL and the cause when nothing answers", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await client({ baseUrl: `http://127.0.0.1:${port}` })
      .post("/x", {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).causeCode).toBe("ECONNREFUSED");
    expect((error as TransportError).message).toContain(`http://127.0.0.1:${port}/x`);
  });
});

describe("H2hClient: Retry-After honoured up to a bound", () => {
  const retry = { maxWaitMs: 5_000, maxRetries: 2 };
  const recorded: Exchange[] = [];
  const limitedClient = (rateLimitRetry: typeof retry & { deadlineAt?: number } = retry) =>
    client({ rateLimitRetry, onExchange: (e) => recorded.push(e) });

  it("waits out a 429 with Retry-After: 1 and sends the request again; the final answer is judged, the 429 kept", async () => {
    recorded.length = 0;
    const started = Date.now();
    const exchange = await limitedClient().post("/limited/1/1/a", {});
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(exchange.response.status).toBe(200);
    expect(exchange.response.json).toEqual({ calls: 2 });
    expect(exchange.rateLimited).toEqual([
      { status: 429, startedAt: expect.any(String), retryAfter: "1", waitedMs: 1000 },
    ]);
    // Its timing is the attempt that was answered, after the wait: what timing checks measure.
    expect(Date.parse(exchange.startedAt)).toBeGreaterThanOrEqual(
      Date.parse(exchange.rateLimited?.[0]?.startedAt ?? "") + 1000 - 1,
    );
    // Recorded once, as the final answer with its 429 before it.
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.rateLimited).toHaveLength(1);
  });

  it("does not wait for a Retry-After over the bound: the 429 stands", async () => {
    const started = Date.now();
    const exchange = await limitedClient().post("/limited/1/3600/b", {});
    // What the client waited besides the request itself: not even the bound's 5 s.
    expect(Date.now() - started - exchange.durationMs).toBeLessThan(retry.maxWaitMs);
    expect(exchange.response.status).toBe(429);
    expect(exchange.response.rateLimit?.retryAfterMs).toBe(3_600_000);
    expect(exchange.rateLimited).toBeUndefined();
    expect(limitedCalls.get("/limited/1/3600/b")).toBe(1);
  });

  it("does not retry a 429 without Retry-After", async () => {
    const exchange = await limitedClient().post("/limited/1/none/c", {});
    expect(exchange.response.status).toBe(429);
    expect(limitedCalls.get("/limited/1/none/c")).toBe(1);
  });

  it("retries at most maxRetries times per request, then the 429 stands with the waits kept", async () => {
    const exchange = await limitedClient().post("/limited/5/0/d", {});
    expect(exchange.response.status).toBe(429);
    expect(exchange.rateLimited?.map((a) => a.waitedMs)).toEqual([0, 0]);
    expect(limitedCalls.get("/limited/5/0/d")).toBe(3);
  });

  it("never waits past the deadline", async () => {
    const started = Date.now();
    const exchange = await limitedClient({ ...retry, deadlineAt: Date.now() + 500 }).post(
      "/limited/1/1/e",
      {},
    );
    // What the client waited besides the request itself: not the Retry-After's second.
    expect(Date.now() - started - exchange.durationMs).toBeLessThan(1_000);
    expect(exchange.response.status).toBe(429);
    expect(limitedCalls.get("/limited/1/1/e")).toBe(1);
  });

  it("does not retry at all without a rateLimitRetry setting", async () => {
    const exchange = await client().post("/limited/1/0/f", {});
    expect(exchange.response.status).toBe(429);
    expect(limitedCalls.get("/limited/1/0/f")).toBe(1);
  });

  it("rateLimitWait: only a 429 with Retry-After within the bound, retries and deadline", () => {
    const answer = (status: number, retryAfterMs?: number) => ({
      status,
      ...(retryAfterMs === undefined ? {} : { rateLimit: { retryAfterMs } }),
    });
    expect(rateLimitWait(answer(429, 2000), retry, 0, 0)).toBe(2000);
    expect(rateLimitWait(answer(429, 5000), retry, 1, 0)).toBe(5000);
    expect(rateLimitWait(answer(429, 5001), retry, 0, 0)).toBeUndefined();
    expect(rateLimitWait(answer(429, 1000), retry, 2, 0)).toBeUndefined();
    expect(rateLimitWait(answer(429), retry, 0, 0)).toBeUndefined();
    expect(rateLimitWait(answer(503, 1000), retry, 0, 0)).toBeUndefined();
    expect(rateLimitWait(answer(429, 1000), undefined, 0, 0)).toBeUndefined();
    expect(rateLimitWait(answer(429, 1000), { ...retry, deadlineAt: 1000 }, 0, 0)).toBeUndefined();
    expect(rateLimitWait(answer(429, 1000), { ...retry, deadlineAt: 1001 }, 0, 0)).toBe(1000);
  });
});

describe("H2hClient: a request's timeout, and a machine that held it up", () => {
  const releaseHeld = () => {
    for (const release of held.splice(0)) release();
  };
  afterAll(releaseHeld);

  it("ends an unanswered request at timeoutMs when nothing held the machine up", async () => {
    const asked: number[] = [];
    const error = await client({
      timeoutMs: 300,
      heldUpMs: (since, until) => {
        asked.push(until - since);
        return 0;
      },
    })
      .post("/held", {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).causeCode).toBe("TIMEOUT");
    expect((error as TransportError).message).toContain("no answer within 300 ms");
    expect((error as TransportError).message).not.toContain("more");
    // Asked once, about the request's whole first window.
    expect(asked).toHaveLength(1);
    expect(asked[0]).toBeGreaterThanOrEqual(299);
  });

  it("waits as long again as the machine held the request up, and takes an answer that comes then", async () => {
    // The answer comes just after the first timeoutMs, which the machine is said to have held up.
    const exchange = await client({
      timeoutMs: 2_000,
      heldUpMs: () => {
        releaseHeld();
        return 2_000;
      },
    }).post("/held", {});
    expect(exchange.response.status).toBe(200);
    expect(exchange.response.json).toEqual({ late: true });
  });

  it("never waits longer than timeoutMs more, however long the machine is said to have held it up", async () => {
    const error = await client({ timeoutMs: 300, heldUpMs: () => 60_000 })
      .post("/held", {})
      .catch((e: unknown) => e);
    expect((error as TransportError).causeCode).toBe("TIMEOUT");
    expect((error as TransportError).message).toContain(
      "no answer within 300 ms and 300 ms more, the time this machine held the request up",
    );
  });

  it("requestTimeout: aborts at timeoutMs plus the hold measured then, no sooner", () => {
    vi.useFakeTimers();
    try {
      const windows: number[] = [];
      const timeout = requestTimeout(1_000, (since, until) => {
        windows.push(until - since);
        return 400.2;
      });
      vi.advanceTimersByTime(999);
      expect(windows).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(windows).toEqual([1_000]);
      expect(timeout.signal.aborted).toBe(false);
      vi.advanceTimersByTime(400);
      expect(timeout.signal.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(timeout.signal.aborted).toBe(true);
      expect((timeout.signal.reason as DOMException).name).toBe("TimeoutError");
      // Without a measure of holds, or once cleared, nothing is extended or aborted.
      const plain = requestTimeout(1_000);
      vi.advanceTimersByTime(1_000);
      expect(plain.signal.aborted).toBe(true);
      const cleared = requestTimeout(1_000, () => 0);
      cleared.clear();
      vi.advanceTimersByTime(5_000);
      expect(cleared.signal.aborted).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it("requestTimeout: aborts with the reason of a signal given, aborted before or after; not once cleared", () => {
    const before = new AbortController();
    before.abort(new Error("stopped before"));
    const later = new AbortController();
    const first = requestTimeout(60_000, undefined, [undefined, later.signal, before.signal]);
    expect(first.signal.aborted).toBe(true);
    expect((first.signal.reason as Error).message).toBe("stopped before");
    first.clear();

    const running = requestTimeout(60_000, undefined, [undefined, later.signal]);
    const done = requestTimeout(60_000, undefined, [later.signal]);
    done.clear();
    expect(running.signal.aborted).toBe(false);
    later.abort(new Error("the test's signal"));
    expect((running.signal.reason as Error).message).toBe("the test's signal");
    expect(done.signal.aborted).toBe(false);
    running.clear();
  });

  it("requestTimeout: one listener on a signal shared by many requests (Node warns past 10)", () => {
    const client = new AbortController();
    const requests = Array.from({ length: 20 }, () => requestTimeout(60_000, undefined, [client.signal]));
    expect(getEventListeners(client.signal, "abort")).toHaveLength(1);
    const cleared = requests.pop();
    cleared?.clear();
    client.abort(new Error("run stopped"));
    expect(requests.every((r) => (r.signal.reason as Error | undefined)?.message === "run stopped")).toBe(
      true,
    );
    expect(cleared?.signal.aborted).toBe(false);
    for (const r of requests) r.clear();
  });
});
