/**
 * Reading a request's body on the server side, bounded: the reference provider and the webhook
 * sink both refuse bodies over a limit without holding them in memory.
 */
import type { IncomingMessage } from "node:http";

/**
 * Calls `onBody` once: with the whole body in the tick of its end, or with undefined as soon as it
 * exceeds `limit` bytes (the rest is drained, not kept): no promise, so an answer written there leaves
 * at once (the reference provider's hot path, bench:provider). `onError` if the stream breaks.
 */
export function onRequestBody(
  req: IncomingMessage,
  limit: number,
  onBody: (body: Buffer | undefined) => void,
  onError: (error: Error) => void,
): void {
  let chunks: Buffer[] = [];
  let size = 0;
  // Past the limit the listener stays on and drops what it gets, which drains the rest as taking
  // it off and resuming would.
  req.on("data", (chunk: Buffer) => {
    if (size > limit) return;
    size += chunk.length;
    if (size <= limit) return void chunks.push(chunk);
    // Over the limit: answer now, while the rest is drained and dropped.
    chunks = [];
    onBody(undefined);
  });
  // on, not once: "end" comes once, and once wraps the listener in two more objects per request.
  req.on("end", () => {
    if (size <= limit) onBody(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
  });
  req.once("error", onError);
}

/** {@link onRequestBody} as a promise. Plain events: an async iterator costs several ticks per request. */
export function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => onRequestBody(req, limit, resolve, reject));
}
