/**
 * What an observe session saw: every exchange between the merchant and the provider, and every
 * callback between the provider and the merchant's receiver, with the bodies kept within the
 * evidence cap (the profile's limits.maxBodyBytes, as certify keeps them).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { appendRecord, linesOf, readWriteFailures } from "../../contract/index.ts";

/** A body as kept: its first `cap` bytes, and its real size. */
export interface KeptBody {
  /** UTF-8 text of the bytes kept. */
  text: string;
  bytes: number;
  /** Set when only the first bytes were kept. */
  cut?: true;
}

/** How a body that named a Content-Encoding was read. */
export interface BodyEncoding {
  /** The codings named by Content-Encoding, in the order they were applied (identity dropped). */
  codings: string[];
  /** Whether the body kept is the decoded one. */
  decoded: boolean;
  /** The body's size as sent (compressed). */
  wireBytes: number;
  /** Why it was not decoded, or where decoding stopped. */
  problem?: string;
  /** `unsupported`: a coding this Node cannot decode; `corrupt`: the bytes do not decode as named. */
  failure?: "unsupported" | "corrupt";
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
  /** Set when the request named a Content-Encoding: `requestBody` is then the decoded body, if it decoded. */
  requestEncoding?: BodyEncoding;
  /** Set when the proxy rewrote metadata.webHook: the merchant's own URL (the body kept is the merchant's). */
  webhookRewritten?: { original: string; key: string };
  response?: {
    status: number;
    headers: Record<string, string>;
    body: KeptBody;
    /** Set when the answer named a Content-Encoding: `body` is then the decoded body, if it decoded. */
    encoding?: BodyEncoding;
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
  /** Set when the callback named a Content-Encoding: `body` is then the decoded body, if it decoded. */
  encoding?: BodyEncoding;
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
  /** The bytes kept, as they came: a compressed body is decoded from them. */
  raw(): Buffer {
    return Buffer.concat(this.chunks);
  }
  body(): KeptBody {
    const bytes = Buffer.concat(this.chunks);
    return this.total > this.kept
      ? { text: bytes.toString("utf8"), bytes: this.total, cut: true }
      : { text: bytes.toString("utf8"), bytes: this.total };
  }
}

/** A spill record that could not be written: the file, and the disk's error (ENOSPC, ...). */
export interface SpillFailure {
  file: string;
  code: string;
}

/** Spill lines are written once this many (UTF-16 units, near enough bytes) wait: memory stays small. */
const SPILL_BATCH_BYTES = 256 * 1024;

const seqOf = (id: string): number => Number(id.slice(1));

/**
 * What the session holds. With a spill folder (the run's temporary folder), each exchange and
 * callback delivery is appended to a JSONL file there once it is complete, and leaves memory:
 * only those in flight stay, so an hour-long session holds no more than a short one. Without
 * one (unit tests), everything stays in memory.
 */
export class ObserveSession {
  /** In memory only: every exchange (without a spill folder), or those in flight. */
  private readonly held: ObservedExchange[] = [];
  private readonly heldCallbacks: ObservedCallbackDelivery[] = [];
  /** The merchant's webhook URL by the key put in the rewritten URL. */
  readonly webhooks = new Map<string, string>();
  /** Callbacks to a key the session never gave out: refused, counted. */
  unknownKeyCallbacks = 0;
  private nextExchange = 1;
  private nextCallback = 1;
  private nextKey = 1;
  /** The spill file; undefined without a spill folder, or once the disk refused a line. */
  private spillFile: string | undefined;
  /** Lines not yet written: written in batches, a write per exchange costing the proxy throughput. */
  private pending: string[] = [];
  private pendingBytes = 0;
  /** Set once a record could not be spilled: the evidence is incomplete, judging would mislead. */
  spillFailure: SpillFailure | undefined;
  lastActivityMs = Date.now();
  constructor(
    readonly capBytes: number,
    readonly spillDir?: string,
  ) {
    this.spillFile = spillDir ? join(spillDir, `observed-${process.pid}.jsonl`) : undefined;
  }

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

  /** An exchange has begun: held until {@link finishExchange}. */
  beginExchange(exchange: ObservedExchange): void {
    this.held.push(exchange);
  }
  /** An exchange is complete: spilled, and out of memory. */
  finishExchange(exchange: ObservedExchange): void {
    if (this.spillDir === undefined) return;
    const at = this.held.indexOf(exchange);
    if (at !== -1) this.held.splice(at, 1);
    this.spill({ x: exchange });
  }
  /** A callback delivery has begun (handed on to the merchant's receiver). */
  beginCallback(delivery: ObservedCallbackDelivery): void {
    this.heldCallbacks.push(delivery);
  }
  /** A callback delivery is complete (the receiver answered, or did not): spilled. */
  finishCallback(delivery: ObservedCallbackDelivery): void {
    if (this.spillDir === undefined) return;
    const at = this.heldCallbacks.indexOf(delivery);
    if (at !== -1) this.heldCallbacks.splice(at, 1);
    this.spill({ c: delivery });
  }

  private spill(record: { x: ObservedExchange } | { c: ObservedCallbackDelivery }): void {
    if (this.spillFailure) return;
    const line = `${JSON.stringify(record)}\n`;
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= SPILL_BATCH_BYTES) this.flush();
  }

  /** Writes the lines not yet written; after a refused write, none is (the file stays whole lines). */
  flush(): void {
    if (this.pending.length === 0 || this.spillFailure) return;
    const file = this.spillFile as string;
    const lines = this.pending.join("");
    this.pending = [];
    this.pendingBytes = 0;
    if (!appendRecord(file, lines)) {
      const marked = readWriteFailures(this.spillDir as string).find((f) => f.file === file);
      this.spillFailure = { file, code: marked?.code ?? "EIO" };
    }
  }

  /** Exchanges begun (complete or in flight). */
  get exchangeCount(): number {
    return this.nextExchange - 1;
  }
  /** Callback deliveries handed on (those to an unknown key are refused, not recorded). */
  get callbackCount(): number {
    return this.nextCallback - 1 - this.unknownKeyCallbacks;
  }

  /**
   * Every exchange, in the order they began: read back from the spill file a line at a time,
   * with those still in flight. Out-of-order completions wait in a small buffer only until the
   * ones begun before them are read.
   */
  *eachExchange(): Generator<ObservedExchange> {
    if (this.spillDir === undefined) {
      yield* this.held;
      return;
    }
    const waiting = new Map<number, ObservedExchange>();
    for (const e of this.held) waiting.set(seqOf(e.id), e);
    let next = 1;
    for (const record of this.spilled()) {
      if (!("x" in record)) continue;
      waiting.set(seqOf(record.x.id), record.x);
      for (let e = waiting.get(next); e !== undefined; e = waiting.get(next)) {
        waiting.delete(next);
        next += 1;
        yield e;
      }
    }
    // What is left: in flight at the end, or after a gap (a record the disk refused).
    yield* [...waiting.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => e);
  }

  /**
   * Every callback delivery, in the order they came. All are read at once: judging groups them by
   * order anyway, and a session has a few per order.
   */
  *eachCallback(): Generator<ObservedCallbackDelivery> {
    if (this.spillDir === undefined) {
      yield* this.heldCallbacks;
      return;
    }
    const all: ObservedCallbackDelivery[] = [];
    for (const record of this.spilled()) if ("c" in record) all.push(record.c);
    all.push(...this.heldCallbacks);
    yield* all.sort((a, b) => seqOf(a.id) - seqOf(b.id));
  }

  private *spilled(): Generator<{ x: ObservedExchange } | { c: ObservedCallbackDelivery }> {
    this.flush();
    const file = this.spillFile ?? (this.spillFailure?.file as string | undefined);
    if (file === undefined || !existsSync(file)) return;
    try {
      for (const line of linesOf(file)) {
        if (line.trim() === "") continue;
        let record: { x: ObservedExchange } | { c: ObservedCallbackDelivery };
        try {
          record = JSON.parse(line);
        } catch {
          // A line torn by a full disk: the spill failure already makes the session not judged.
          continue;
        }
        yield record;
      }
    } catch (error) {
      // A spill the disk refused may not read back either: what was read is all there is, and
      // the session is not judged. Any other failure to read is the run's to report.
      if (this.spillFailure === undefined) throw error;
    }
  }
}
