/**
 * Which transport failures are the keep-alive race, and nothing else: a target closes an idle
 * kept-alive connection just as a request goes out on it. Only then did the request never reach
 * the target's application, and only then may it be sent again (a create sent twice is two
 * orders; RFC 9110 §9.2.2: a non-idempotent request is not retried without a means to know it
 * was never applied).
 *
 * The race shows as undici's `UND_ERR_SOCKET` "other side closed" for a request that went out on a
 * connection that had carried an earlier exchange, with none in flight, and before a byte of this
 * request's answer came. That alone also fits a target that read the request, processed it and
 * closed without answering; so the close must also be one an idle timer explains:
 *
 * - the connection had been idle at least as long as the target said it keeps idle connections
 *   (its last `Keep-Alive: timeout=N`), less the margin the client itself keeps under it (a
 *   client held up past its own margin met the target's timer), or
 * - the target's close (FIN) had already arrived when the request was written.
 *
 * A connection idle for less, or a target that announced nothing, closed it for another reason:
 * the request may have been processed, and is not sent again. A reset or broken pipe (ECONNRESET,
 * EPIPE) may come after the target read and processed the request, and a fresh connection closing
 * is the target's doing: neither is the race.
 *
 * What undici's diagnostics channels publish for each request (the socket it was written on, when
 * it ended, how it failed) is kept per socket of ours, for this request alone.
 */
import { subscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import type { buildConnector } from "undici";

interface SocketUse {
  /** Requests written on the socket so far. */
  sent: number;
  /** Of those, the ones that ended (answered in full, or failed). */
  ended: number;
  /** When the last of them ended (performance.now()): the connection is idle since. */
  lastEndedAt?: number;
  /** The idle timeout the target announced in its last answer on the socket (Keep-Alive: timeout=N), ms. */
  keepAliveMs?: number;
  /** The target's FIN arrived (performance.now()). */
  closedAt?: number;
  /** The client's own margin under an announced idle timeout. */
  marginMs: number;
  /** The target sent an answer no request on the socket asked for (undici's "bad response"). */
  unsolicitedAnswer?: true;
  /** Called once, when the socket carries an answer no request asked for. */
  onUnsolicited?: (() => void)[];
}

interface RequestSend {
  socket: Socket;
  /** The socket had carried an earlier request. */
  reused: boolean;
  /** Requests still in flight on the socket when this one was written. */
  inFlight: number;
  /** The socket's bytes read before this request was written: more later is its answer. */
  bytesReadAtSend: number;
  /** How long the connection had been idle when this request was written, ms. */
  idleMs: number;
  /** The idle timeout the target had announced on the connection, ms. */
  keepAliveMs: number | undefined;
  /** The target's FIN had arrived before this request was written. */
  closedBeforeSend: boolean;
  marginMs: number;
  /** When the request was written (ms since the epoch). */
  sentAtMs: number;
  /** When its answer's head came (ms since the epoch). */
  answeredAtMs?: number;
}

/** What the client learns of one request's way over the wire (see {@link trafficOf}). */
export interface RequestTraffic {
  /** When it was written on a connection (ms since the epoch). */
  sentAtMs: number;
  /** When its answer's head came (ms since the epoch). */
  answeredAtMs?: number;
  /** The connection it went out on had carried an earlier exchange. */
  reused: boolean;
  /**
   * Calls `listener` when the connection carries an answer no request asked for (at once, if it
   * already has): an answer on it may then be another request's.
   */
  whenUnsolicited(listener: () => void): void;
}

/** Why a request that met a closed connection was, or was not, the keep-alive race. */
export interface ClosedConnection {
  /** The keep-alive race: the target never read the request; it may be sent again. */
  race: boolean;
  /** The request went out on a connection that had carried an earlier exchange. */
  reused: boolean;
  /** How long that connection had been idle, ms (0 on a fresh one). */
  idleMs: number;
  /** The idle timeout the target announced (Keep-Alive: timeout=N), ms. */
  keepAliveMs?: number;
  /** The circumstances in words, for the exchange's evidence. */
  explanation: string;
}

/** How many of a connection's latest exchanges a stray answer found later is told to. */
const UNSOLICITED_WATCH = 16;

const sockets = new WeakMap<object, SocketUse>();
const sends = new WeakMap<object, RequestSend>();
/** The errors undici failed a request with on a closed connection, and what was known then. */
const closedFailures = new WeakMap<object, ClosedConnection>();
/** Each request's send, by the body the client handed undici (a Buffer undici keeps as it is). */
const sendsByBody = new WeakMap<Buffer, RequestSend>();
/** Each failed request's send, by the error undici failed it with. */
const sendsByError = new WeakMap<object, RequestSend>();

function ended(request: object): void {
  const send = sends.get(request);
  if (!send) return;
  const use = sockets.get(send.socket);
  if (!use) return;
  use.ended += 1;
  use.lastEndedAt = performance.now();
}

/** `Keep-Alive: timeout=N` (RFC 9112 obsoleted it, servers still send it) in undici's raw headers, ms. */
function keepAliveTimeoutOf(headers: unknown): number | undefined {
  if (!Array.isArray(headers)) return undefined;
  for (let i = 0; i + 1 < headers.length; i += 2) {
    if (String(headers[i]).toLowerCase() !== "keep-alive") continue;
    const match = /(?:^|[,\s])timeout\s*=\s*(\d+)/i.exec(String(headers[i + 1]));
    if (match) return Number(match[1]) * 1000;
  }
  return undefined;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 3 : 1)} s`;

/** What of a request's send decides whether a close before its answer was the keep-alive race. */
export type CloseCircumstances = Pick<
  RequestSend,
  "reused" | "inFlight" | "idleMs" | "keepAliveMs" | "closedBeforeSend" | "marginMs"
>;

/** Whether "other side closed", before a byte of the answer, was the keep-alive race, and why. */
export function judgeClose(send: CloseCircumstances): ClosedConnection {
  const base = {
    reused: send.reused,
    idleMs: Math.round(send.idleMs),
    ...(send.keepAliveMs !== undefined ? { keepAliveMs: send.keepAliveMs } : {}),
  };
  if (!send.reused)
    return { ...base, race: false, explanation: "closed on a new connection, before any answer" };
  if (send.inFlight > 0)
    return { ...base, race: false, explanation: "closed with an earlier request still in flight" };
  if (send.closedBeforeSend)
    return {
      ...base,
      race: true,
      explanation: `the target had closed the connection (idle ${seconds(send.idleMs)}) before the request was written`,
    };
  if (send.keepAliveMs !== undefined && send.idleMs >= send.keepAliveMs - send.marginMs)
    return {
      ...base,
      race: true,
      explanation: `idle ${seconds(send.idleMs)}, at the target's announced Keep-Alive timeout=${send.keepAliveMs / 1000} (less the client's ${seconds(send.marginMs)} margin)`,
    };
  return {
    ...base,
    race: false,
    explanation:
      send.keepAliveMs === undefined
        ? `closed after the request was written, on a connection idle ${seconds(send.idleMs)}; the target announced no idle timeout, so no idle close explains it`
        : `closed after the request was written, on a connection idle ${seconds(send.idleMs)}, well within the target's announced Keep-Alive timeout=${send.keepAliveMs / 1000}`,
  };
}

let subscribed = false;
function subscribeOnce(): void {
  if (subscribed) return;
  subscribed = true;
  // Global channels: Node's own fetch publishes on them too; only our sockets are tracked.
  subscribe("undici:client:sendHeaders", (message) => {
    const { request, socket } = message as { request: object; socket: Socket };
    const use = sockets.get(socket);
    if (!use) return;
    const now = performance.now();
    const send: RequestSend = {
      socket,
      reused: use.sent > 0,
      inFlight: use.sent - use.ended,
      bytesReadAtSend: socket.bytesRead,
      idleMs: use.lastEndedAt === undefined ? 0 : now - use.lastEndedAt,
      keepAliveMs: use.keepAliveMs,
      closedBeforeSend: use.closedAt !== undefined || socket.readableEnded,
      marginMs: use.marginMs,
      sentAtMs: Date.now(),
    };
    sends.set(request, send);
    const body = (request as { body?: unknown }).body;
    if (Buffer.isBuffer(body)) sendsByBody.set(body, send);
    use.sent += 1;
  });
  subscribe("undici:request:headers", (message) => {
    const { request, response } = message as { request: object; response: { headers?: unknown } };
    const send = sends.get(request);
    const use = send && sockets.get(send.socket);
    if (!send || !use) return;
    send.answeredAtMs = Date.now();
    use.keepAliveMs = keepAliveTimeoutOf(response.headers);
  });
  subscribe("undici:request:trailers", (message) => ended((message as { request: object }).request));
  subscribe("undici:request:error", (message) => {
    const { request, error } = message as { request: object; error: unknown };
    const send = sends.get(request);
    ended(request);
    if (!send || !(error instanceof Error)) return;
    sendsByError.set(error, send);
    const { code, socket } = error as { code?: unknown; socket?: { bytesRead?: number } };
    const bytesRead = socket?.bytesRead ?? send.socket.bytesRead;
    if (
      code === "UND_ERR_SOCKET" &&
      error.message === "other side closed" &&
      bytesRead === send.bytesReadAtSend
    )
      closedFailures.set(error, judgeClose(send));
  });
}

/**
 * `connect`, with every socket it opens tracked (see {@link closedConnectionOf}). `marginMs` is
 * the client's own margin under a target's announced idle timeout (undici's
 * keepAliveTimeoutThreshold): a connection reused that long before the timeout was not expected
 * to meet the target's idle close.
 */
export function trackingSockets(
  connect: buildConnector.connector,
  marginMs: number,
): buildConnector.connector {
  subscribeOnce();
  return (options, callback) =>
    connect(options, (...args) => {
      const [error, socket] = args;
      if (!error && socket) {
        const use: SocketUse = { sent: 0, ended: 0, marginMs };
        sockets.set(socket, use);
        socket.once("end", () => {
          use.closedAt = performance.now();
        });
        // undici destroys a socket an answer comes on with no request in flight, with this error.
        socket.on("error", (failure: Error) => {
          if (failure.message !== "bad response") return;
          use.unsolicitedAnswer = true;
          const listeners = use.onUnsolicited ?? [];
          delete use.onUnsolicited;
          for (const listener of listeners) listener();
        });
      }
      callback(...args);
    });
}

/**
 * What is known of the closed connection a request failed on (`error`, or an error in its cause
 * chain): "other side closed" before a byte of its answer, on a socket of a tracked connector.
 * Undefined for any other failure.
 */
export function closedConnectionOf(error: unknown): ClosedConnection | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); ) {
    seen.add(current);
    const closed = closedFailures.get(current);
    if (closed) return closed;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The request failed with `error` because it lost the keep-alive race on a connection of a
 * tracked connector: the target never read it.
 */
export function lostKeepAliveRace(error: unknown): boolean {
  return closedConnectionOf(error)?.race === true;
}

/** What is known of the request undici sent with `body` (the very Buffer handed to it). */
export function trafficOf(body: Buffer): RequestTraffic | undefined {
  const send = sendsByBody.get(body);
  if (!send) return undefined;
  const use = sockets.get(send.socket);
  return {
    sentAtMs: send.sentAtMs,
    ...(send.answeredAtMs !== undefined ? { answeredAtMs: send.answeredAtMs } : {}),
    reused: send.reused,
    whenUnsolicited: (listener) => {
      if (!use) return;
      if (use.unsolicitedAnswer) return listener();
      use.onUnsolicited ??= [];
      const listeners = use.onUnsolicited;
      listeners.push(listener);
      // A stray answer shows (undici's check of an idle connection) before the next request but
      // one: only the last few exchanges can have taken another's answer; the rest are let go.
      if (listeners.length > UNSOLICITED_WATCH) listeners.shift();
    },
  };
}

/**
 * Whether the head of the answer a request failed on was taken (undici published it): false when
 * the parser refused the head itself. Undefined when the request is not one of ours.
 */
export function answerHeadTaken(error: unknown): boolean | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); ) {
    seen.add(current);
    const send = sendsByError.get(current);
    if (send) return send.answeredAtMs !== undefined;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
