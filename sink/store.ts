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
 * A line cut short by a crash mid-write is the last line of the file; replay skips it (it was
 * never acknowledged) and the next write starts on a fresh line.
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";
import { withinDepth } from "../contract/index.ts";

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
  /** The body parsed as JSON, or null when it is not JSON. */
  json: unknown;
  contentType: string | null;
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

function fromLogLine(logged: Omit<StoredCallback, "json">): StoredCallback {
  let json: unknown = null;
  try {
    json = withinDepth(JSON.parse(Buffer.from(logged.bodyBase64, "base64").toString("utf8")));
  } catch {
    json = null;
  }
  return { ...logged, json };
}

export interface StoreOptions {
  dataDir: string;
  /** fdatasync each group commit (default), or rely on write() alone (survives a process kill, not a power cut). */
  sync: boolean;
}

export class CallbackStore {
  readonly records: StoredCallback[] = [];
  private handle: FileHandle | undefined;
  private pending: { line: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;
  private closed = false;

  private constructor(
    private readonly path: string,
    private readonly sync: boolean,
  ) {}

  static async open(options: StoreOptions): Promise<CallbackStore> {
    mkdirSync(options.dataDir, { recursive: true });
    const store = new CallbackStore(join(options.dataDir, LOG_FILE), options.sync);
    store.replay();
    store.handle = await open(store.path, "a");
    return store;
  }

  /** Reads the log; a torn last line (a crash mid-write) is skipped and fenced off with a newline. */
  private replay(): void {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return;
      throw error;
    }
    const lines = text.split("\n");
    const tornTail = text.length > 0 && !text.endsWith("\n");
    for (const [index, line] of lines.entries()) {
      if (line.trim() === "") continue;
      try {
        this.records.push(fromLogLine(JSON.parse(line) as Omit<StoredCallback, "json">));
      } catch (error) {
        const isLast = index === lines.length - 1;
        if (!(isLast && tornTail))
          throw new Error(`${this.path}: line ${index + 1} is not valid JSON: ${String(error)}`);
      }
    }
    if (tornTail) {
      const fd = openSync(this.path, "a");
      writeSync(fd, "\n");
      closeSync(fd);
    }
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
        const handle = this.handle as FileHandle;
        await handle.write(batch.map((entry) => entry.line).join(""));
        if (this.sync) await handle.datasync();
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.writing = false;
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.writing || this.pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.handle?.close();
    this.handle = undefined;
  }
}
