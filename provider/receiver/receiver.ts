/**
 * The reference webhook receiver: the merchant's side of the callbacks, done right, as
 * docs/receiver.md shows it. For each POST it
 *
 * 1. reads the raw body, refusing one over 64 KiB (413) and one that is not JSON by its
 *    Content-Type (415);
 * 2. verifies the signature over those raw bytes, in constant time (401 when it does not hold);
 * 3. parses the body and reads the order id and status at the profile's paths (400 when either
 *    is missing, or the status is not one of the four callback statuses);
 * 4. acknowledges at once (200), and does the work later, once per order and status: a repeat
 *    of a callback already taken is acknowledged again and changes nothing.
 *
 * Its faults (faults.ts) are the mistakes a merchant's receiver makes; the receiver battery's
 * self-test names the check that catches each.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CALLBACK_STATUSES, type Profile, verifyCallbackSignature } from "../../contract/index.ts";
import { type ReceiverFaultName, receiverFaultsOf } from "./faults.ts";

/** A callback is a few hundred bytes: anything past this is refused before it is read whole. */
export const RECEIVER_MAX_BODY_BYTES = 64 * 1024;

export interface ReferenceReceiverOptions {
  /** The provider's callback conventions: the paths of id and status, the signature scheme. */
  profile: Profile;
  /** The callback secret (H2H_CALLBACK_SECRET); null only where the profile signs nothing. */
  secret: string | null;
  /** The merchant's orders, when it refuses callbacks of others (profile callbacks.unknownOrder "refuse"). */
  knownOrders?: ReadonlySet<string>;
  faults?: readonly ReceiverFaultName[];
  port?: number;
  host?: string;
}

/** What the receiver did with a callback it took, once per order and status. */
export interface HandledCallback {
  orderId: string;
  status: string;
}

export interface RunningReferenceReceiver {
  url: string;
  /** The callbacks worked on, in order: each order and status once, however often it came. */
  handled: HandledCallback[];
  stop(): Promise<void>;
}

/** The value at a dotted path of a parsed body. */
function at(body: unknown, path: string): unknown {
  let node = body;
  for (const key of path.split(".")) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

type Answer = { status: number; reason: string };
const answer = (status: number, reason: string): Answer => ({ status, reason });

/** Reads the raw body, or gives up past the limit (the rest is not read). */
function rawBody(request: IncomingMessage, limit: number): Promise<Buffer | "too large"> {
  return new Promise((resolve, reject) => {
    if (Number(request.headers["content-length"] ?? 0) > limit) return resolve("too large");
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners("data");
        request.resume();
        resolve("too large");
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

export function startReferenceReceiver(options: ReferenceReceiverOptions): Promise<RunningReferenceReceiver> {
  const { profile, secret } = options;
  const faults = receiverFaultsOf(options.faults ?? []);
  const scheme = profile.callbacks.signature;
  const handled: HandledCallback[] = [];
  const taken = new Set<string>();
  const unknownOrderRefused =
    profile.callbacks.unknownOrder === "refuse" && options.knownOrders !== undefined;

  /** The work after the acknowledgement: once per order and status (idempotent). */
  const work = (orderId: string, status: string) => {
    const key = `${orderId}\n${status}`;
    if (taken.has(key)) return;
    taken.add(key);
    handled.push({ orderId, status });
  };

  async function judge(request: IncomingMessage): Promise<Answer & { work?: HandledCallback }> {
    if (request.method !== "POST") return answer(405, "callbacks are POSTed");
    const raw = await rawBody(request, RECEIVER_MAX_BODY_BYTES);
    if (raw === "too large") return answer(413, `a callback is at most ${RECEIVER_MAX_BODY_BYTES} bytes`);
    const contentType = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
    const json = (): unknown => JSON.parse(raw.toString("utf8"));
    if (contentType !== "application/json" && !faults.has("acknowledges-malformed-json"))
      return answer(415, "a callback is application/json");
    if (scheme.scheme === "hmac-sha256" && !faults.has("accepts-bad-signature")) {
      const header = request.headers[scheme.header.toLowerCase()];
      const value = Array.isArray(header) ? header[0] : header;
      // The signature is over the bytes as they came, never over a re-serialised body.
      let signed: Uint8Array | string = raw;
      if (faults.has("verifies-reserialised-body")) {
        try {
          signed = JSON.stringify(json());
        } catch {}
      }
      const given =
        faults.has("accepts-any-prefix") && value ? scheme.prefix + value.replace(/^[^=]*=/, "") : value;
      if (!verifyCallbackSignature(signed, given, secret ?? "", scheme).valid)
        return answer(401, "the signature does not hold");
    }
    let body: unknown;
    try {
      body = json();
    } catch {
      if (faults.has("server-error-on-not-json")) return answer(500, "crashed on a body that is not JSON");
      if (faults.has("hangs-on-not-json")) return new Promise(() => {});
      if (faults.has("acknowledges-malformed-json")) return answer(200, "taken, unread");
      return answer(400, "the body is not JSON");
    }
    const orderId = at(body, profile.callbacks.idPath);
    const status = at(body, profile.callbacks.statusPath);
    if (typeof orderId !== "string" || orderId === "") return answer(400, "no order id");
    if (!(CALLBACK_STATUSES as readonly unknown[]).includes(status)) {
      if (faults.has("crashes-on-unknown-status")) throw new Error(`unknown status ${String(status)}`);
      return answer(400, "no callback status");
    }
    const window = profile.callbacks.replayWindowSeconds;
    const datePath = profile.callbacks.dateUpdatedPath;
    if (window !== undefined && datePath && !faults.has("acknowledges-replay")) {
      const date = Date.parse(String(at(body, datePath)));
      if (!(Math.abs(Date.now() - date) <= window * 1000)) return answer(401, "outside the replay window");
    }
    if (
      unknownOrderRefused &&
      !options.knownOrders?.has(orderId) &&
      !faults.has("acknowledges-unknown-order")
    )
      return answer(404, "no such order");
    const key = `${orderId}\n${status}`;
    if (faults.has("server-error-on-duplicate") && taken.has(key)) return answer(500, "already handled");
    if (faults.has("server-error-after-final") && [...taken].some((k) => k.startsWith(`${orderId}\n`)))
      return answer(500, "the order is already final");
    // Taken now, so that a duplicate right behind it is seen (the fault above needs it too).
    if (faults.has("server-error-on-duplicate") || faults.has("server-error-after-final"))
      work(orderId, String(status));
    return { ...answer(200, "taken"), work: { orderId, status: String(status) } };
  }

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    judge(request)
      .then(async (result) => {
        if (faults.has("slow-ack"))
          await new Promise((r) => setTimeout(r, profile.timeouts.callbackMs + 500));
        response.writeHead(result.status, { "content-type": "application/json", connection: "keep-alive" });
        response.end(JSON.stringify({ received: result.status < 300, reason: result.reason }));
        // Acknowledged first, worked on after: the provider never waits on the merchant's work.
        const job = result.work;
        if (job) setImmediate(() => work(job.orderId, job.status));
      })
      .catch(() => {
        response.writeHead(500).end();
      });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${options.host ?? "127.0.0.1"}:${port}/webhooks/h2h`,
        handled,
        stop: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
