/**
 * Which transport failures are the keep-alive race, and nothing else: a target closes an idle
 * kept-alive connection just as a request goes out on it. Only then did the request never reach
 * the target's application, and only then may it be sent again (a create sent twice is two
 * orders).
 *
 * The race shows as undici's `UND_ERR_SOCKET` "other side closed" for a request that went out on a
 * connection that had carried an earlier exchange, with none in flight, and before a byte of this
 * request's answer came. A reset or broken pipe (ECONNRESET, EPIPE) may come after the target read
 * and processed the request, and a fresh connection closing is the target's doing: neither is it.
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
}

interface RequestSend {
  socket: Socket;
  /** The socket had carried an earlier request. */
  reused: boolean;
  /** Requests still in flight on the socket when this one was written. */
  inFlight: number;
  /** The socket's bytes read before this request was written: more later is its answer. */
  bytesReadAtSend: number;
}

const sockets = new WeakMap<object, SocketUse>();
const sends = new WeakMap<object, RequestSend>();
/** The errors undici failed a request with that are the keep-alive race. */
const raceFailures = new WeakSet<object>();

function ended(request: object): void {
  const send = sends.get(request);
  if (!send) return;
  const use = sockets.get(send.socket);
  if (use) use.ended += 1;
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
    sends.set(request, {
      socket,
      reused: use.sent > 0,
      inFlight: use.sent - use.ended,
      bytesReadAtSend: socket.bytesRead,
    });
    use.sent += 1;
  });
  subscribe("undici:request:trailers", (message) => ended((message as { request: object }).request));
  subscribe("undici:request:error", (message) => {
    const { request, error } = message as { request: object; error: unknown };
    const send = sends.get(request);
    ended(request);
    if (!send || !(error instanceof Error)) return;
    const { code, socket } = error as { code?: unknown; socket?: { bytesRead?: number } };
    const bytesRead = socket?.bytesRead ?? send.socket.bytesRead;
    if (
      code === "UND_ERR_SOCKET" &&
      error.message === "other side closed" &&
      send.reused &&
      send.inFlight === 0 &&
      bytesRead === send.bytesReadAtSend
    )
      raceFailures.add(error);
  });
}

/** `connect`, with every socket it opens tracked (see {@link lostKeepAliveRace}). */
export function trackingSockets(connect: buildConnector.connector): buildConnector.connector {
  subscribeOnce();
  return (options, callback) =>
    connect(options, (...args) => {
      const [error, socket] = args;
      if (!error && socket) sockets.set(socket, { sent: 0, ended: 0 });
      callback(...args);
    });
}

/**
 * The request failed with `error` (or an error in its cause chain) because it lost the keep-alive
 * race on a connection of a tracked connector: the target never read it.
 */
export function lostKeepAliveRace(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); ) {
    seen.add(current);
    if (raceFailures.has(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
