/**
 * A merchant's webhook receiver for the clean-room provider, written from docs/receiver.md:
 * raw body, signature over those bytes in constant time, parse, acknowledge, work later, once per
 * order and status. Node.js only: nothing of the suite.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

const STATUSES = new Set(["succeeded", "expired", "failed_by_terminal", "succeeded_by_appeal"]);
const MAX_BODY = 32 * 1024;
const SIGNATURE_HEADER = "x-callback-signature";

export interface CleanroomReceiverOptions {
  secret: string;
  port?: number;
  /** false: the signature check is left out (a receiver gone wrong, for the battery to catch). */
  verifySignature?: boolean;
}

export interface CleanroomReceiver {
  url: string;
  /** Per order id, the statuses it has entered, each once. */
  orders: Map<string, Set<string>>;
  close(): Promise<void>;
}

function signatureHolds(raw: Buffer, header: string | undefined, secret: string): boolean {
  if (header === undefined || !/^[A-Za-z0-9+/]{43}=$/.test(header)) return false;
  const expected = createHmac("sha256", secret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(header, "base64"));
}

function readBody(request: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        request.removeAllListeners("data");
        request.resume();
        resolve(null);
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

export function startCleanroomReceiver(options: CleanroomReceiverOptions): Promise<CleanroomReceiver> {
  const orders = new Map<string, Set<string>>();
  const queue: { id: string; status: string }[] = [];
  const drain = () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const statuses = orders.get(job.id) ?? new Set<string>();
      statuses.add(job.status); // a repeat changes nothing
      orders.set(job.id, statuses);
    }
  };
  const server = createServer(async (request, response) => {
    const reply = (status: number): void => {
      response.writeHead(status, { "content-type": "text/plain" }).end(String(status));
    };
    try {
      if (request.method !== "POST") return reply(405);
      const raw = await readBody(request);
      if (raw === null) return reply(413);
      if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) return reply(415);
      const header = request.headers[SIGNATURE_HEADER];
      if (
        options.verifySignature !== false &&
        !signatureHolds(raw, Array.isArray(header) ? header[0] : header, options.secret)
      )
        return reply(401);
      let body: { order?: { id?: unknown; status?: unknown } };
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return reply(400);
      }
      const id = body?.order?.id;
      const status = body?.order?.status;
      if (typeof id !== "string" || id === "" || typeof status !== "string" || !STATUSES.has(status))
        return reply(400);
      reply(200);
      queue.push({ id, status });
      setImmediate(drain);
    } catch {
      if (!response.headersSent) reply(400);
    }
  });
  return new Promise((resolve) => {
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/h2h/callbacks`,
        orders,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
