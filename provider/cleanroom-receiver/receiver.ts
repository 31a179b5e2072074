/**
 * A merchant's webhook receiver for the clean-room provider, written from docs/receiver.md alone: a
 * small Fastify app. It keeps the raw body, verifies the signature over those bytes in constant
 * time, parses, acknowledges at once, works later, and takes each order's status once. Fastify and
 * Node.js only: nothing of the suite.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import Fastify from "fastify";

/** The clean-room provider's callbacks: the order under `order`, an HMAC-SHA256 in base64, no prefix. */
const PATH = "/h2h/callbacks";
const SIGNATURE_HEADER = "x-callback-signature";
const STATUSES = new Set(["succeeded", "expired", "failed_by_terminal", "succeeded_by_appeal"]);
/** A callback is a few hundred bytes; more is refused (413) before it is read in full. */
const MAX_BODY = 64 * 1024;

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

/** The HMAC of the bytes that came, compared in constant time with the header's. */
function signatureHolds(raw: Buffer, header: string | undefined, secret: string): boolean {
  // A SHA-256 digest in base64 is 44 characters: anything else cannot hold, and timingSafeEqual
  // needs two buffers of one length.
  if (header === undefined || !/^[A-Za-z0-9+/]{43}=$/.test(header)) return false;
  const expected = createHmac("sha256", secret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(header, "base64"));
}

/** The order id and status of a callback, or why it is none. */
function callbackOf(raw: Buffer): { id: string; status: string } | string {
  let body: { order?: { id?: unknown; status?: unknown } } | null;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {
    return "the body is not JSON";
  }
  const id = body?.order?.id;
  const status = body?.order?.status;
  if (typeof id !== "string" || id === "") return "no order.id";
  if (typeof status !== "string" || !STATUSES.has(status)) return "order.status is not a callback status";
  return { id, status };
}

export async function startCleanroomReceiver(options: CleanroomReceiverOptions): Promise<CleanroomReceiver> {
  const orders = new Map<string, Set<string>>();
  const queue: { id: string; status: string }[] = [];
  // The work after the answer: the merchant's own bookkeeping, here a map. A repeat changes nothing.
  const drain = () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const statuses = orders.get(job.id) ?? new Set<string>();
      statuses.add(job.status);
      orders.set(job.id, statuses);
    }
  };

  const app = Fastify({ logger: false, bodyLimit: MAX_BODY });
  // The raw bytes, never a parsed body: the provider signed what it sent, and JSON serialised
  // again is other bytes. Only application/json is taken; Fastify answers 415 for any other type
  // and 413 for a body over the limit.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => {
    done(null, body);
  });

  app.post(PATH, async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const header = request.headers[SIGNATURE_HEADER];
    if (
      options.verifySignature !== false &&
      !signatureHolds(raw, Array.isArray(header) ? header[0] : header, options.secret)
    )
      return reply.code(401).send("signature does not hold");
    const callback = callbackOf(raw);
    if (typeof callback === "string") return reply.code(400).send(callback);
    // Acknowledge at once; the work is queued after the answer, so the provider never waits on it.
    queue.push(callback);
    setImmediate(drain);
    return reply.code(200).send("ok");
  });

  await app.listen({ port: options.port ?? 0, host: "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  return {
    url: `http://127.0.0.1:${port}${PATH}`,
    orders,
    close: async () => {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}
