/**
 * What an observe session saw: every exchange between the merchant and the provider, and every
 * callback between the provider and the merchant's receiver, with the bodies kept within the
 * evidence cap (the profile's limits.maxBodyBytes, as certify keeps them).
 */

/** A body as kept: its first `cap` bytes, and its real size. */
export interface KeptBody {
  /** UTF-8 text of the bytes kept. */
  text: string;
  bytes: number;
  /** Set when only the first bytes were kept. */
  cut?: true;
}

/** One request of the merchant's and the provider's answer, as they passed the proxy. */
export interface ObservedExchange {
  id: string;
  startedAtMs: number;
  durationMs: number;
  method: string;
  /** The path and query, as the merchant sent them. */
  path: string;
  requestHeaders: Record<string, string>;
  requestBody: KeptBody;
  /** Set when the proxy rewrote metadata.webHook: the merchant's own URL (the body kept is the merchant's). */
  webhookRewritten?: { original: string; key: string };
  response?: {
    status: number;
    headers: Record<string, string>;
    body: KeptBody;
  };
  /** Why no answer came from the provider (unreachable, reset): the provider's transport, not its contract. */
  transportFault?: string;
  /** The merchant went away before the answer reached it (its own timeout, say). */
  merchantGaveUp?: true;
}

/** One delivery of a callback, and the merchant receiver's answer to it. */
export interface ObservedCallbackDelivery {
  id: string;
  receivedAtMs: number;
  orderId: string | null;
  status: string | null;
  json: unknown;
  headers: Record<string, string>;
  body: KeptBody;
  signature: "valid" | "invalid" | "missing" | "malformed" | "not-checked";
  /** The webhook URL's key: which creation the callback is for. */
  key: string | null;
  /** The merchant receiver's answer; absent when none came (`error` says why). */
  answer?: { status: number; body: KeptBody; durationMs: number };
  error?: string;
}

export const keepBody = (bytes: Buffer, cap: number): KeptBody =>
  bytes.length > cap
    ? { text: bytes.subarray(0, cap).toString("utf8"), bytes: bytes.length, cut: true }
    : { text: bytes.toString("utf8"), bytes: bytes.length };

/** The JSON a kept body holds, or undefined when it is not JSON or was cut. */
export function jsonOf(body: KeptBody): unknown {
  if (body.cut) return undefined;
  try {
    return JSON.parse(body.text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
}

/**
 * A bounded, growing capture of a stream's bytes: the first `cap` bytes are kept, the rest
 * counted. Chunks are kept as they come (no copy) until the end.
 */
export class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly cap: number) {}
  add(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.kept >= this.cap) return;
    const room = this.cap - this.kept;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }
  body(): KeptBody {
    const bytes = Buffer.concat(this.chunks);
    return this.total > this.kept
      ? { text: bytes.toString("utf8"), bytes: this.total, cut: true }
      : { text: bytes.toString("utf8"), bytes: this.total };
  }
}

/** What the session holds, with bounds: past `maxExchanges` exchanges, the oldest bodies are dropped. */
export class ObserveSession {
  readonly exchanges: ObservedExchange[] = [];
  readonly callbacks: ObservedCallbackDelivery[] = [];
  /** The merchant's webhook URL by the key put in the rewritten URL. */
  readonly webhooks = new Map<string, string>();
  /** Callbacks to a key the session never gave out: refused, counted. */
  unknownKeyCallbacks = 0;
  private nextExchange = 1;
  private nextCallback = 1;
  private nextKey = 1;
  lastActivityMs = Date.now();
  constructor(readonly capBytes: number) {}

  exchangeId(): string {
    return `x${this.nextExchange++}`;
  }
  callbackId(): string {
    return `c${this.nextCallback++}`;
  }
  webhookKey(original: string): string {
    const key = `w${this.nextKey++}`;
    this.webhooks.set(key, original);
    return key;
  }
  touch(): void {
    this.lastActivityMs = Date.now();
  }
}
