/**
 * The sink's durable store: an append-only log of JSON lines, replayed into memory at start.
 *
 * Why a log and not SQLite: a callback is written once and never changed, reads are served from
 * memory, and the one hard requirement is that an acknowledged callback is on disk before the
 * acknowledgement leaves. An append is the cheapest write that gives that, needs no native
 * module, and stays readable with `cat`. Appends are group-committed: every callback that
 * arrives while a write is in progress goes into the next single write (and fdatasync), and each
 * is acknowledged only once its write (and sync) has completed.
 *
 * A write is acknowledged only when every byte of it is written (a filling disk answers short
 * writes without an error) and synced. A write that fails part way is cut back off the file, so
 * the next one starts after the last whole record. A line cut short by a crash mid-write (never
 * acknowledged) is cut off at the next start, which says what it dropped; an unreadable line
 * elsewhere (left by an older sink) is skipped and reported, never a reason not to start.
 */
import { mkdirSync, readFileSync, truncateSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { withinDepth } from "../contract/index.ts";
import { decodeBodySync } from "./body-decoding.ts";

export interface StoredCallback {
  /** Order of arrival, from 1, across restarts. */
  seq: number;
  receivedAt: string;
  receivedAtMs: number;
  method: string;
  path: string;
  /** The run id the callback URL carried, if any. */
  runId: string | null;
  /** When the order was made (ms since the epoch), if the callback URL carried it (`/at/<ms>`). */
  sentAtMs: number | null;
  /** The final status the sender expects for this order, if the URL carried it (`/expect/<status>`). */
  expectedStatus: string | null;
  headers: Record<string, string>;
  /** The raw body bytes, base64: signatures are checked on exactly what was sent. */
  bodyBase64: string;
  /** The body parsed as JSON (after undoing its Content-Encoding), or null when it is not JSON. */
  json: unknown;
  contentType: string | null;
  /** The Content-Encoding it was sent with (gzip, deflate, br...), null when none. */
  contentEncoding?: string | null;
  /**
   * Why the body could not be read (an unknown or broken encoding, not JSON), null when it could:
   * such a callback is answered 4xx and filed under no order.
   */
  bodyProblem?: string | null;
  /** The order id and status read from the body at the profile's paths, when present. */
  orderId: string | null;
  status: string | null;
  /** Deliveries of this order id seen so far, this one included. */
  deliveryOfOrder: number;
  signature: "valid" | "invalid" | "missing" | "malformed" | "not-checked";
  /** The HTTP status the sink answered with. */
  answeredWith: number;
}

export const LOG_FILE = "callbacks.jsonl";

/** The parsed body is not logged: the raw bytes are, and replay parses them again. */
function toLogLine({ json: _json, ...rest }: StoredCallback): string {
  return `${JSON.stringify(rest)}\n`;
}

/** Records of an older sink have no encoding fields: they were read as sent. */
function fromLogLine(logged: Omit<StoredCallback, "json">, maxDecodedBytes: number): StoredCallback {
  const contentEncoding = logged.contentEncoding ?? null;
  const bodyProblem = logged.bodyProblem ?? null;
  let json: unknown = null;
  if (bodyProblem === null) {
    const decoded = decodeBodySync(
      Buffer.from(logged.bodyBase64, "base64"),
      contentEncoding,
      maxDecodedBytes,
    );
    try {
      json = decoded.ok ? withinDepth(JSON.parse(decoded.body.toString("utf8"))) : null;
    } catch {
      json = null;
    }
  }
  return { ...logged, contentEncoding, bodyProblem, json };
}

/** A logged line, parsed, when it is a whole record; undefined for anything else. */
function parseLogLine(text: string): Omit<StoredCallback, "json"> | undefined {
  try {
    const value = JSON.parse(text) as Partial<StoredCallback> | null;
    return typeof value === "object" &&
      value !== null &&
      typeof value.seq === "number" &&
      typeof value.receivedAtMs === "number" &&
      typeof value.bodyBase64 === "string"
      ? (value as Omit<StoredCallback, "json">)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file the log is appended to: what the store needs of a `FileHandle` opened for appending
 * (a seam, so that tests can hand it a disk that fills up).
 */
export interface StoreFile {
  /** May write fewer bytes than asked, without an error, as a filling disk does. */
  write(buffer: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

/** What a start found unreadable in the log and dropped (never an acknowledged record). */
export interface StoreRecovery {
  path: string;
  /** Lines dropped whole or in part (a torn last line, or a torn line an older sink wrote on). */
  droppedLines: number;
  droppedBytes: number;
  /** The first few of them, by line number (from 1). */
  lineNumbers: number[];
  /** Records kept. */
  kept: number;
}

/** The store's writes began failing (once per burst), or succeed again after a burst of failures. */
export type StoreProblem =
  | { kind: "failing"; path: string; error: string }
  | { kind: "recovered"; path: string; refused: number };

export interface StoreOptions {
  dataDir: string;
  /** fdatasync each group commit (default), or rely on write() alone (survives a process kill, not a power cut). */
  sync: boolean;
  /** Opens the log for appending; default `open(path, "a")`. */
  openFile?: (path: string) => Promise<StoreFile>;
  /** Told when writes begin to fail (once per burst) and when they succeed again. */
  onProblem?: (problem: StoreProblem) => void;
  /** The bound on a body decoded at replay (the sink's body limit). */
  maxDecodedBytes?: number;
}

/** A write that did not reach the disk whole; its message names the log's path. */
export class StoreWriteError extends Error {
  override name = "StoreWriteError";
  constructor(
    message: string,
    /** The system error code when there was one (ENOSPC, EIO...), else "short-write". */
    readonly code: string,
  ) {
    super(message);
  }
}

const errorCode = (error: unknown) => (error as { code?: unknown })?.code;

export class CallbackStore {
  readonly records: StoredCallback[] = [];
  /** What the start dropped from the log, when it dropped anything. */
  recovery: StoreRecovery | undefined;
  private file: StoreFile | undefined;
  private pending: { line: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;
  private closed = false;
  /** The log's length in bytes up to the end of its last whole record. */
  private size = 0;
  /** Bytes of a failed write may still follow `size`: they are cut off before the next write. */
  private tornTail = false;
  /** Records refused since writes began failing; undefined while they succeed. */
  private refusedInBurst: number | undefined;

  private constructor(
    readonly path: string,
    private readonly sync: boolean,
    private readonly onProblem: ((problem: StoreProblem) => void) | undefined,
    private readonly maxDecodedBytes: number,
  ) {}

  static async open(options: StoreOptions): Promise<CallbackStore> {
    mkdirSync(options.dataDir, { recursive: true });
    const store = new CallbackStore(
      join(options.dataDir, LOG_FILE),
      options.sync,
      options.onProblem,
      options.maxDecodedBytes ?? 256 * 1024,
    );
    store.replay();
    store.file = await (options.openFile ?? ((path) => open(path, "a")))(store.path);
    return store;
  }

  /**
   * Reads the log. A torn last line (a crash or a full disk mid-write) is cut off the file, so
   * the next record starts on a line of its own; cutting needs no free space. A torn line
   * elsewhere is skipped, and a whole record an older sink appended right after it is kept.
   */
  private replay(): void {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return;
      throw error;
    }
    const dropped = { lines: 0, bytes: 0, lineNumbers: [] as number[] };
    const drop = (lineNumber: number, count: number) => {
      dropped.lines += 1;
      dropped.bytes += count;
      if (dropped.lineNumbers.length < 10) dropped.lineNumbers.push(lineNumber);
    };
    let start = 0;
    let lineNumber = 0;
    while (start < bytes.length) {
      lineNumber += 1;
      const newline = bytes.indexOf(0x0a, start);
      if (newline === -1) {
        // No newline: this write never completed, so it was never acknowledged.
        drop(lineNumber, bytes.length - start);
        break;
      }
      const text = bytes.subarray(start, newline).toString("utf8");
      start = newline + 1;
      if (text.trim() === "") continue;
      const whole = parseLogLine(text);
      if (whole) {
        this.records.push(fromLogLine(whole, this.maxDecodedBytes));
        continue;
      }
      const salvaged = salvage(text);
      if (salvaged) this.records.push(fromLogLine(salvaged.record, this.maxDecodedBytes));
      // A salvaged record keeps its bytes and the newline; only the torn bytes before it drop.
      drop(lineNumber, salvaged ? Buffer.byteLength(text) - salvaged.bytes : Buffer.byteLength(text) + 1);
    }
    this.size = start;
    if (start < bytes.length) truncateSync(this.path, start);
    if (dropped.lines > 0)
      this.recovery = {
        path: this.path,
        droppedLines: dropped.lines,
        droppedBytes: dropped.bytes,
        lineNumbers: dropped.lineNumbers,
        kept: this.records.length,
      };
  }

  private lastSeq = 0;

  /** The next sequence number; numbers are handed out in arrival order and never reused. */
  allocateSeq(): number {
    this.lastSeq = Math.max(this.lastSeq, this.records.at(-1)?.seq ?? 0) + 1;
    return this.lastSeq;
  }

  /** Appends a record; resolves once it is on disk. Then (and only then) it is visible to queries. */
  append(record: StoredCallback): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the callback store is closed"));
    return new Promise<void>((resolve, reject) => {
      this.pending.push({
        line: toLogLine(record),
        resolve: () => {
          this.records.push(record);
          resolve();
        },
        reject,
      });
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.writeWhole(Buffer.from(batch.map((entry) => entry.line).join("")));
      } catch (error) {
        const failure = this.failure(error);
        if (this.refusedInBurst === undefined) {
          this.refusedInBurst = 0;
          this.onProblem?.({ kind: "failing", path: this.path, error: failure.message });
        }
        this.refusedInBurst += batch.length;
        for (const entry of batch) entry.reject(failure);
        continue;
      }
      if (this.refusedInBurst !== undefined) {
        this.onProblem?.({ kind: "recovered", path: this.path, refused: this.refusedInBurst });
        this.refusedInBurst = undefined;
      }
      for (const entry of batch) entry.resolve();
    }
    this.writing = false;
  }

  /**
   * Writes every byte (looping on short writes) and syncs; on any failure cuts the file back to
   * its last whole record and throws. Never writes after bytes it could not cut off.
   */
  private async writeWhole(bytes: Buffer): Promise<void> {
    const file = this.file as StoreFile;
    if (this.tornTail) {
      await file.truncate(this.size);
      this.tornTail = false;
    }
    let written = 0;
    try {
      while (written < bytes.length) {
        const { bytesWritten } = await file.write(bytes, written, bytes.length - written);
        if (!(bytesWritten > 0))
          throw new StoreWriteError(
            `${this.path}: the disk took none of the bytes left (${written} of ${bytes.length} written)`,
            "short-write",
          );
        written += bytesWritten;
      }
      if (this.sync) await file.datasync();
    } catch (error) {
      this.tornTail = true;
      try {
        await file.truncate(this.size);
        this.tornTail = false;
      } catch {
        // Tried again before the next write, which fails rather than land after the torn bytes.
      }
      throw written > 0 && written < bytes.length
        ? new StoreWriteError(
            `${this.path}: short write, ${written} of ${bytes.length} bytes written, then ${String((error as Error).message ?? error)}`,
            String(errorCode(error) ?? "short-write"),
          )
        : error;
    }
    this.size += bytes.length;
  }

  /** The error a refused record is rejected with: its message names the log. */
  private failure(error: unknown): StoreWriteError {
    if (error instanceof StoreWriteError) return error;
    const message = String((error as Error)?.message ?? error);
    return new StoreWriteError(
      message.includes(this.path) ? message : `${this.path}: ${message}`,
      String(errorCode(error) ?? "unknown"),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.writing || this.pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.file?.close();
    this.file = undefined;
  }
}

/**
 * A whole record at the end of a torn line: an older sink wrote the next record right after a
 * short write, on the same line. `bytes` is the length of what is kept.
 */
function salvage(text: string): { record: Omit<StoredCallback, "json">; bytes: number } | undefined {
  for (let at = text.indexOf('{"seq":', 1); at > 0; at = text.indexOf('{"seq":', at + 1)) {
    const record = parseLogLine(text.slice(at));
    if (record) return { record, bytes: Buffer.byteLength(text.slice(at)) };
  }
  return undefined;
}
