import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { H2hClient, TransportError } from "./h2h-client.ts";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A JSON server; `drop(nth, total)` true: the nth request on its connection (the total-th in all)
 * is dropped unanswered, the connection closed.
 */
async function serve(options: {
  keepAliveTimeout?: number;
  drop?: (nth: number, total: number) => boolean;
  /** How a dropped request's connection ends: closed (FIN), reset (RST), or closed mid-answer. */
  dropWith?: "close" | "reset" | "partial-answer";
}) {
  const perSocket = new WeakMap<Socket, number>();
  const connections = { count: 0, requests: 0 };
  let total = 0;
  const server = createServer((req, res) => {
    const nth = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, nth);
    total += 1;
    connections.requests = total;
    const drop = options.drop?.(nth, total) ?? false;
    req.resume();
    req.on("end", () => {
      if (drop) {
        if (options.dropWith === "reset") req.socket.resetAndDestroy();
        else if (options.dropWith === "partial-answer")
          req.socket.end("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n");
        else req.socket.destroy();
        return;
      }
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ result: { code: 0 }, nth }));
    });
  });
  server.on("connection", () => {
    connections.count += 1;
  });
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, connections };
}
const client = (baseUrl: string) => new H2hClient({ baseUrl, apiKey: "k", timeoutMs: 2_000 });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("H2hClient on kept-alive connections the target closes", () => {
  it("survives a server that closes idle keep-alive sockets after 50 ms, whatever the pause between requests", async () => {
    const { url } = await serve({ keepAliveTimeout: 50 });
    const h2h = client(url);
    try {
      for (let i = 0; i < 40; i++) {
        const exchange = await h2h.post("/x", { i });
        expect(exchange.response.status).toBe(200);
        await pause(i % 8 === 0 ? 0 : 35 + (i % 5) * 7);
      }
    } finally {
      await h2h.close();
    }
  });

  // The target read the second request before it closed: 20 ms idle is no idle close of a target
  // that keeps idle connections 5 s (Node's Keep-Alive: timeout=5), so it may have processed it.
  it("never sends a request again when a connection idle far less than the target's timeout closes on it", async () => {
    const { url, connections } = await serve({ drop: (nth) => nth === 2 });
    const h2h = client(url);
    try {
      expect((await h2h.post("/x", {})).reconnected).toBeUndefined();
      await pause(20);
      const failure = await h2h.post("/x", {}).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TransportError);
      expect((failure as TransportError).staleConnection).toBe(false);
      expect((failure as TransportError).fault).toBe("no answer");
      expect((failure as TransportError).message).toMatch(
        /idle 0\.0\d\d s, well within the target's announced Keep-Alive timeout=5; not sent again/,
      );
      expect(connections.requests).toBe(2);
      expect(connections.count).toBe(1);
    } finally {
      await h2h.close();
    }
  });

  it("still fails an exchange, as a transport fault, when a fresh connection closes unanswered", async () => {
    const { url } = await serve({ drop: () => true });
    const h2h = client(url);
    try {
      const failure = await h2h.post("/x", {}).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TransportError);
      expect((failure as TransportError).causeCode).toBe("UND_ERR_SOCKET");
      expect((failure as TransportError).staleConnection).toBe(false);
    } finally {
      await h2h.close();
    }
  });

  // The target read these requests before the connection went: sending one again would make a
  // second order.
  it("never sends a create again after a reset on a kept-alive connection: a transport fault, named as such", async () => {
    const { url, connections } = await serve({ drop: (nth) => nth === 2, dropWith: "reset" });
    const h2h = client(url);
    try {
      await h2h.post("/x", {});
      await pause(20);
      const failure = await h2h.post("/x", {}).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TransportError);
      expect((failure as TransportError).causeCode).toBe("ECONNRESET");
      expect((failure as TransportError).staleConnection).toBe(false);
      expect((failure as TransportError).message).toContain(
        "not sent again: the target may have processed it",
      );
      expect(connections.requests).toBe(2);
      expect(connections.count).toBe(1);
    } finally {
      await h2h.close();
    }
  });

  it("never sends it again when part of this request's answer came before the close, on a reused connection", async () => {
    const { url, connections } = await serve({ drop: (nth) => nth === 2, dropWith: "partial-answer" });
    const h2h = client(url);
    try {
      await h2h.post("/x", {});
      await pause(20);
      const failure = await h2h.post("/x", {}).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TransportError);
      expect((failure as TransportError).staleConnection).toBe(false);
      expect(connections.requests).toBe(2);
    } finally {
      await h2h.close();
    }
  });

  it("never sends it again when a fresh connection closes after part of the answer", async () => {
    const { url, connections } = await serve({ drop: () => true, dropWith: "partial-answer" });
    const h2h = client(url);
    try {
      const failure = await h2h.post("/x", {}).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TransportError);
      expect((failure as TransportError).staleConnection).toBe(false);
      expect((failure as TransportError).message).toContain("not sent again");
      expect(connections.requests).toBe(1);
    } finally {
      await h2h.close();
    }
  });
});
