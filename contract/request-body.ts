/**
 * Reading a request's body on the server side, bounded: the reference provider and the webhook
 * sink both refuse bodies over a limit without holding them in memory.
 */
import type { IncomingMessage } from "node:http";

/**
 * The whole body, or undefined once it exceeds `limit` bytes (the rest is drained, not kept).
 * Plain events: an async iterator costs several ticks per request on the servers' hot path.
 */
export function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.once("end", () =>
      resolve(size > limit ? undefined : chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)),
    );
    req.once("error", reject);
  });
}
