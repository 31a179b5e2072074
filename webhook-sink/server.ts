/**
 * The webhook sink: records every callback (raw body, headers, method, path, arrival time, the
 * answer it gave) durably before acknowledging it, verifies signatures, and answers queries.
 *
 * Public-safe: callbacks are taken only at `/callbacks/<token>` (an unguessable token), the query
 * API needs the same token as a bearer key, everything else is refused and counted (a malformed
 * escape or request target is a 400, never a 500 or a crash), bodies have a size limit, and the
 * token is masked wherever it appears in a stored record (path, query, headers). It serves HTTPS
 * when given a certificate and key, for providers that call back only over https.
 *
 * Callback URL variants (path segments after the token: run id, order time, expected status,
 * refusals, stalls) are the contract's callback-URL grammar, built and parsed in
 * `contract/schemas/names.ts`; a stalled answer is held for `stallMs`.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import {
  readRequestBody,
  type SignatureScheme,
  verifyCallbackSignature,
  withinDepth,
} from "../contract/index.ts";
import { MachineStallSampler, StallMonitor, secretSpellings } from "../contract/kit/index.ts";
import {
  CALLBACKS_SEGMENT,
  type CallbackUrlVariant,
  callbackUrlWith,
  MALFORMED_ESCAPE,
  parseCallbackVariant,
  readPath,
  sinkCallbackUrl,
} from "../contract/schemas/names.ts";
import { decodeBody, READABLE_ENCODINGS } from "./body-decoding.ts";
import {
  CallbackStore,
  type StoredCallback,
  type StoreFile,
  type StoreProblem,
  type StoreRecovery,
} from "./store.ts";
import { CallbackTally } from "./tally.ts";

export interface SinkOptions {
  port?: number;
  host?: string;
  dataDir: string;
  /** The secret path segment and query key; generated (32 random bytes, hex) when absent. */
  token?: string;
  /** The base URL providers reach the sink at (a tunnel, say); default: the loopback URL. */
  publicUrl?: string;
  /** Verifies signatures when set. */
  secret?: string;
  signature?: SignatureScheme;
  /** Where the order id and status sit in a callback body (dotted paths). */
  idPath?: string;
  statusPath?: string;
  maxBodyBytes?: number;
  /** How long a stalled answer is held. */
  stallMs?: number;
  /** fdatasync every group commit (default true). */
  sync?: boolean;
  /** Opens the store's log for appending (a seam for tests: a disk that fills up). */
  openStoreFile?: (path: string) => Promise<StoreFile>;
  /**
   * Told when the store's writes begin to fail (once per burst: callbacks are then answered
   * `500 not-stored`) and when they succeed again; say it on the console.
   */
  onStoreProblem?: (problem: StoreProblem) => void;
  /** Serve HTTPS with this certificate (PEM, may carry its chain) and key; read them with `readTlsFiles`. */
  tls?: { cert: string; key: string; passphrase?: string };
  /**
   * Bounds on what is kept: at most this many callbacks, this many body bytes in all, and this
   * many deliveries of one order (callbacks with no order id count as one order), so that a flood
   * cannot fill memory or crowd out other orders' callbacks. Past a bound a callback is refused
   * (503, as a sink that cannot store it), counted in `excess`, and never stored.
   */
  maxCallbacks?: number;
  maxStoredBytes?: number;
  maxDeliveriesPerOrder?: number;
  /** Called once, with the first callback refused for a bound. */
  onFirstExcess?: (excess: SinkExcess) => void;
  /**
   * Spill instead of refusing: past `maxCallbacks` or `maxStoredBytes`, the oldest callbacks leave
   * memory (they stay in the store's file on disk, and in the delivery tally) and the new one is
   * kept, so a long load run loses none with bounded memory. The query API lists those in memory.
   */
  spill?: boolean;
  /** Called once, when the first callback leaves memory for the disk. */
  onFirstSpill?: () => void;
  /**
   * Load-run mode: callbacks are tallied here and not stored (no disk, nothing kept per callback,
   * no per-order delivery count, so no /refuse or /stall); the query API then lists none. See tally.ts.
   */
  tally?: CallbackTally;
  /**
   * Observe mode: each callback is handed on (to the merchant's own receiver) and that answer is
   * the sink's, so that the provider's retries follow the receiver as they would without the sink.
   * The URL's refuse/stall/ack variants do not apply then.
   */
  forward?: (callback: ForwardedCallback) => Promise<ForwardAnswer>;
}

/** A callback as the sink hands it on: the bytes and headers as the provider sent them. */
export interface ForwardedCallback {
  /** The callback URL's run segment: whom the callback is for. */
  runId: string | null;
  method: string;
  headers: Record<string, string>;
  raw: Buffer;
  json: unknown;
  orderId: string | null;
  status: string | null;
  signature: StoredCallback["signature"];
  receivedAtMs: number;
  deliveryOfOrder: number;
}

/** The answer the sink gives the provider in place of its own. */
export interface ForwardAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Callbacks refused for the sink's bounds: counted, never stored. */
export interface SinkExcess {
  callbacks: number;
  /** Their body bytes. */
  bytes: number;
  /** How many each bound refused. */
  byBound: { callbacks: number; bytes: number; perOrder: number };
  /** The bounds. */
  limits: { maxCallbacks: number; maxStoredBytes: number; maxDeliveriesPerOrder: number };
}

/** Defaults: some 32 MiB of bodies kept (the memory the records take is a few times that). */
export const DEFAULT_SINK_MAX_CALLBACKS = 5_000;
export const DEFAULT_SINK_MAX_STORED_BYTES = 32 * 1024 * 1024;
export const DEFAULT_SINK_MAX_DELIVERIES_PER_ORDER = 50;

/**
 * Refusals that are the sink's or its set-up's doing, not the sender's: the store could not write
 * (`not-stored`), a callback with this sink's token came under another path than its public URL's
 * (`callback-prefix`), or the sink failed (`internal-error`).
 */
export const RUN_FAULT_REFUSALS = ["not-stored", "callback-prefix", "internal-error"] as const;

export interface SinkStats {
  /** Callbacks in memory (the query API lists these). */
  stored: number;
  /** With `spill`: callbacks that left memory for the disk only. */
  spilled?: number;
  rejected: Record<string, number>;
  /** Callbacks refused for the sink's bounds, when any were. */
  excess?: SinkExcess;
}

export interface RunningSink {
  /** Loopback base URL of the sink (the query API lives under it); https:// when it serves TLS. */
  url: string;
  /** The certificate it serves (PEM), when it serves HTTPS: give it to `SinkClient` to pin. */
  certificate: string | undefined;
  port: number;
  token: string;
  /** What the start dropped from the store's log (torn lines, never acknowledged), if anything. */
  storeRecovery: StoreRecovery | undefined;
  /** The callback URL to put in `metadata.webHook`. */
  callbackUrl(variant?: CallbackUrlVariant): string;
  stats(): SinkStats;
  stop(): Promise<void>;
}

export interface CallbackFilter {
  orderId?: string;
  status?: string;
  runId?: string;
  /** Arrival time bounds, ms since the epoch, inclusive. */
  since?: number;
  until?: number;
}

export function matches(record: StoredCallback, filter: CallbackFilter): boolean {
  return (
    (filter.orderId === undefined || record.orderId === filter.orderId) &&
    (filter.status === undefined || record.status === filter.status) &&
    (filter.runId === undefined || record.runId === filter.runId) &&
    (filter.since === undefined || record.receivedAtMs >= filter.since) &&
    (filter.until === undefined || record.receivedAtMs <= filter.until)
  );
}

/** A body the sink could not read: the answer's status, the counted reason and what was wrong. */
type Unreadable = { status: number; reason: string; detail: string };

/** The bounds' key of unreadable callbacks: no order id can collide with it. */
const UNREADABLE = "\u0000unreadable";

/** 4xx for a body the sink cannot read; a 415 says which codings it reads (RFC 9110 §15.5.16). */
function answerUnreadable(res: ServerResponse, unreadable: Unreadable, stored?: number): void {
  if (unreadable.status === 415) res.setHeader("accept-encoding", READABLE_ENCODINGS);
  json(res, unreadable.status, {
    error: unreadable.reason,
    detail: unreadable.detail,
    ...(stored !== undefined ? { stored } : {}),
  });
}

/** The receiver's answer, as it gave it (hop-by-hop headers aside: this is another connection). */
function answerForwarded(res: ServerResponse, answer: ForwardAnswer): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers))
    if (!HOP_BY_HOP.has(name.toLowerCase())) headers[name] = value;
  headers["content-length"] = String(answer.body.length);
  res.writeHead(answer.status, headers);
  res.end(answer.body);
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "upgrade",
  "proxy-connection",
  "te",
  "trailer",
]);

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{16,128}$/;
const MAX_WAIT_MS = 120_000;

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function headerMap(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export async function startWebhookSink(options: SinkOptions): Promise<RunningSink> {
  const token = options.token ?? randomBytes(32).toString("hex");
  if (!TOKEN_FORMAT.test(token))
    throw new Error("sink token must be 16 to 128 characters of A-Z, a-z, 0-9, _ or -");
  const maxBodyBytes = options.maxBodyBytes ?? 256 * 1024;
  const stallMs = options.stallMs ?? 6_000;
  const idPath = options.idPath ?? "id";
  const statusPath = options.statusPath ?? "status";
  const signature = options.signature ?? { scheme: "none" };
  const store = await CallbackStore.open({
    dataDir: options.dataDir,
    maxDecodedBytes: maxBodyBytes,
    sync: options.sync ?? true,
    ...(options.openStoreFile ? { openFile: options.openStoreFile } : {}),
    ...(options.onStoreProblem ? { onProblem: options.onStoreProblem } : {}),
  });
  const stalls = new StallMonitor();
  const machine = new MachineStallSampler();

  // What a load run's delivery is computed from (GET /api/delivery): one packed number per order,
  // fed by every callback and trigger note, whatever the store keeps in memory.
  // Observe mode (`forward`) keeps none: it judges from what it hands on, and a tally's state per
  // run would grow with every order, each creation's callback URL being a run of its own.
  const deliveryTally = options.tally ?? (options.forward ? undefined : new CallbackTally());
  let notes = 0;
  if (!options.tally) for (const record of store.records) deliveryTally?.add(record, 0);
  const deliveriesByOrder = new Map<string, number>();
  for (const record of store.records) {
    if (record.orderId !== null)
      deliveriesByOrder.set(record.orderId, (deliveriesByOrder.get(record.orderId) ?? 0) + 1);
  }
  const excess: SinkExcess = {
    callbacks: 0,
    bytes: 0,
    byBound: { callbacks: 0, bytes: 0, perOrder: 0 },
    limits: {
      maxCallbacks: options.maxCallbacks ?? DEFAULT_SINK_MAX_CALLBACKS,
      maxStoredBytes: options.maxStoredBytes ?? DEFAULT_SINK_MAX_STORED_BYTES,
      maxDeliveriesPerOrder: options.maxDeliveriesPerOrder ?? DEFAULT_SINK_MAX_DELIVERIES_PER_ORDER,
    },
  };
  /** Callbacks taken but not yet on disk (they count against the bounds already). */
  let pendingKept = 0;
  /** What is kept: callbacks, body bytes, and deliveries per order ("" for those with no order id). */
  let keptBytes = store.records.reduce((sum, r) => sum + Math.floor((r.bodyBase64.length * 3) / 4), 0);
  const keptByOrder = new Map<string, number>();
  for (const record of store.records) {
    const key = record.bodyProblem ? UNREADABLE : (record.orderId ?? "");
    keptByOrder.set(key, (keptByOrder.get(key) ?? 0) + 1);
  }
  /** The bound a callback of this order and size would pass, or undefined when it may be kept. */
  const boundPassed = (orderKey: string, bytes: number): keyof SinkExcess["byBound"] | undefined =>
    options.spill
      ? (keptByOrder.get(orderKey) ?? 0) >= excess.limits.maxDeliveriesPerOrder
        ? "perOrder"
        : undefined
      : store.records.length + pendingKept >= excess.limits.maxCallbacks
        ? "callbacks"
        : keptBytes + bytes > excess.limits.maxStoredBytes
          ? "bytes"
          : (keptByOrder.get(orderKey) ?? 0) >= excess.limits.maxDeliveriesPerOrder
            ? "perOrder"
            : undefined;
  let spilled = 0;
  /** With `spill`: the oldest callbacks leave memory until it is within the bounds again (the disk keeps them). */
  const spillOldest = () => {
    if (!options.spill) return;
    while (
      store.records.length > 1 &&
      (store.records.length > excess.limits.maxCallbacks || keptBytes > excess.limits.maxStoredBytes)
    ) {
      const oldest = store.records.shift() as StoredCallback;
      keptBytes -= Math.floor((oldest.bodyBase64.length * 3) / 4);
      spilled += 1;
      if (spilled === 1) options.onFirstSpill?.();
    }
  };
  spillOldest();
  // The token, in any spelling a sender repeats it in (path, query, headers), never reaches the store.
  const tokenSpellings = secretSpellings(token);
  const maskToken = (text: string) => text.replace(tokenSpellings, "<token>");
  const rejected: Record<string, number> = {};
  const reject = (res: ServerResponse, status: number, reason: string) => {
    rejected[reason] = (rejected[reason] ?? 0) + 1;
    json(res, status, { error: reason });
  };
  /** Long-polls waiting for more matching callbacks; `missing` counts down as they arrive. */
  const waiters = new Set<{ filter: CallbackFilter; missing: number; wake: () => void }>();
  const stalled = new Set<NodeJS.Timeout>();

  function checkSignature(raw: Buffer, headers: Record<string, string>): StoredCallback["signature"] {
    if (signature.scheme === "none" || options.secret === undefined) return "not-checked";
    const verdict = verifyCallbackSignature(
      raw,
      headers[signature.header.toLowerCase()],
      options.secret,
      signature,
    );
    return verdict.valid ? "valid" : verdict.reason === "mismatch" ? "invalid" : verdict.reason;
  }

  async function receiveCallback(
    req: IncomingMessage,
    res: ServerResponse,
    variantSegments: string[],
  ): Promise<void> {
    const began = performance.now();
    const variant = parseCallbackVariant(variantSegments);
    if (variant === MALFORMED_ESCAPE) {
      req.resume();
      return reject(res, 400, "bad-escape");
    }
    if (!variant) {
      req.resume();
      return reject(res, 404, "bad-callback-path");
    }
    if (variant.triggeredAtMs !== null) {
      // A load run's trigger note, not a callback: when the order's confirmation was answered.
      req.resume();
      if (variant.runId === null || variant.orderId === null || variant.sentAtMs === null)
        return reject(res, 400, "bad-trigger-note");
      deliveryTally?.note(
        variant.runId,
        variant.orderId,
        variant.sentAtMs,
        variant.triggeredAtMs,
        variant.expectedStatus,
      );
      notes += 1;
      res.writeHead(204).end();
      return;
    }
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > maxBodyBytes) {
      req.resume();
      return reject(res, 413, "body-too-large");
    }
    const raw = await readRequestBody(req, maxBodyBytes);
    if (raw === undefined) {
      res.setHeader("connection", "close");
      return reject(res, 413, "body-too-large");
    }
    const headers = headerMap(req);
    const storedHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) storedHeaders[name] = maskToken(value);
    // Read through its Content-Encoding; the raw bytes stay what is signed, stored and shown.
    const contentEncoding = headers["content-encoding"]?.trim() || null;
    const decoded = await decodeBody(raw, contentEncoding, maxBodyBytes);
    let unreadable: Unreadable | undefined = decoded.ok ? undefined : decoded;
    let parsed: unknown = null;
    if (decoded.ok) {
      try {
        // Nested 10,000 deep, a body would overflow the stack of every answer listing it.
        parsed = withinDepth(JSON.parse(decoded.body.toString("utf8")));
      } catch (error) {
        unreadable = {
          status: 400,
          reason: "not-json",
          detail: `the body is not JSON: ${(error as Error).message}`,
        };
      }
    }
    const orderIdValue = unreadable ? undefined : readPath(parsed, idPath);
    const statusValue = unreadable ? undefined : readPath(parsed, statusPath);
    const orderId =
      typeof orderIdValue === "string" || typeof orderIdValue === "number" ? String(orderIdValue) : null;
    // An unreadable body is kept under a key of its own, never under an order (nor "no order id").
    const orderKey = unreadable ? UNREADABLE : (orderId ?? "");
    if (unreadable) rejected[unreadable.reason] = (rejected[unreadable.reason] ?? 0) + 1;
    // Bounded: past a bound the callback is counted and refused, never stored (not tallied runs).
    const bound = options.tally ? undefined : boundPassed(orderKey, raw.length);
    if (bound !== undefined) {
      excess.callbacks += 1;
      excess.bytes += raw.length;
      excess.byBound[bound] += 1;
      if (excess.callbacks === 1) options.onFirstExcess?.(structuredClone(excess));
      // Unreadable whatever the bounds: a retry would not make it readable.
      if (unreadable) return answerUnreadable(res, unreadable);
      return reject(res, 503, "sink-full");
    }
    const deliveryOfOrder = orderId === null || options.tally ? 1 : (deliveriesByOrder.get(orderId) ?? 0) + 1;
    if (orderId !== null && !options.tally) deliveriesByOrder.set(orderId, deliveryOfOrder);
    const now = Date.now();
    const signatureVerdict = checkSignature(raw, headers);
    const forwarded = options.forward
      ? await options.forward({
          runId: variant.runId,
          method: req.method ?? "POST",
          headers,
          raw,
          json: parsed,
          orderId,
          status: typeof statusValue === "string" ? statusValue : null,
          signature: signatureVerdict,
          receivedAtMs: now,
          deliveryOfOrder,
        })
      : undefined;
    const refused = !forwarded && !unreadable && deliveryOfOrder <= variant.refuse;
    const stall = !forwarded && !unreadable && !refused && deliveryOfOrder <= variant.stall;
    const record: StoredCallback = {
      seq: store.allocateSeq(),
      receivedAt: new Date(now).toISOString(),
      receivedAtMs: now,
      method: req.method ?? "POST",
      path: maskToken(req.url ?? ""),
      runId: variant.runId,
      sentAtMs: variant.sentAtMs,
      expectedStatus: variant.expectedStatus,
      headers: storedHeaders,
      bodyBase64: raw.toString("base64"),
      json: parsed,
      contentType: headers["content-type"] ?? null,
      contentEncoding,
      bodyProblem: unreadable ? unreadable.detail : null,
      orderId,
      status: typeof statusValue === "string" ? statusValue : null,
      deliveryOfOrder,
      signature: signatureVerdict,
      answeredWith: forwarded
        ? forwarded.status
        : unreadable
          ? unreadable.status
          : refused || stall
            ? 503
            : variant.ack,
    };
    // A refusal is answered before the disk: the provider retries it whatever happens to the
    // record, and its retry timer starts from this answer. Waiting for the group commit here put
    // the disk's latency (hundreds of ms on a busy machine) into every retry interval the
    // callbacks.retry-policy check measures, as if the provider had retried late.
    if (refused) json(res, 503, { stored: record.seq });
    if (options.tally) options.tally.add(record, performance.now() - began);
    else {
      keptBytes += raw.length;
      keptByOrder.set(orderKey, (keptByOrder.get(orderKey) ?? 0) + 1);
      pendingKept += 1;
      try {
        await store.append(record);
        pendingKept -= 1;
        deliveryTally?.add(record, performance.now() - began);
        spillOldest();
      } catch (error) {
        pendingKept -= 1;
        keptBytes -= raw.length;
        keptByOrder.set(orderKey, (keptByOrder.get(orderKey) ?? 1) - 1);
        // Not on disk, so not acknowledged: the provider will deliver it again. The answer names
        // the error's code only: the store's path is for the console, not for whoever called.
        rejected["not-stored"] = (rejected["not-stored"] ?? 0) + 1;
        const code = (error as { code?: unknown }).code;
        // The receiver has it already: its answer stands, as it would without the sink between.
        if (forwarded) return answerForwarded(res, forwarded);
        if (!refused)
          json(res, 500, { error: "not-stored", detail: typeof code === "string" ? code : "write failed" });
        return;
      }
      for (const waiter of waiters) {
        if (matches(record, waiter.filter)) {
          waiter.missing -= 1;
          if (waiter.missing <= 0) waiter.wake();
        }
      }
    }
    if (forwarded) return answerForwarded(res, forwarded);
    if (stall) {
      const timer = setTimeout(() => {
        stalled.delete(timer);
        if (!res.writableEnded) json(res, 503, { stored: record.seq, stalled: true });
      }, stallMs);
      stalled.add(timer);
      return;
    }
    if (refused) return;
    if (unreadable) return answerUnreadable(res, unreadable, record.seq);
    // A 204 carries no body; any other 2xx the URL asks for acknowledges like 200.
    if (record.answeredWith === 204) res.writeHead(204).end();
    else json(res, record.answeredWith, { stored: record.seq });
  }

  function filterFrom(params: URLSearchParams): CallbackFilter {
    const filter: CallbackFilter = {};
    for (const key of ["orderId", "status", "runId"] as const) {
      const value = params.get(key);
      if (value !== null) filter[key] = value;
    }
    for (const key of ["since", "until"] as const) {
      const value = params.get(key);
      if (value === null) continue;
      const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
      if (Number.isNaN(ms)) throw new Error(`${key}: "${value}" is neither ms since the epoch nor a date`);
      filter[key] = ms;
    }
    return filter;
  }

  async function query(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const auth = req.headers.authorization ?? "";
    const given = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() ?? "";
    if (!sameSecret(given, token)) return reject(res, 401, "query-unauthorized");
    let filter: CallbackFilter;
    try {
      filter = filterFrom(url.searchParams);
    } catch (error) {
      return json(res, 400, { error: String((error as Error).message) });
    }
    const select = () => store.records.filter((record) => matches(record, filter));
    if (url.pathname === "/api/callbacks") return json(res, 200, { callbacks: select() });
    if (url.pathname === "/api/stats")
      return json(res, 200, {
        stored: store.records.length,
        spilled,
        notes,
        rejected,
        ...(excess.callbacks > 0 ? { excess } : {}),
      });
    if (url.pathname === "/api/delivery") {
      // A load run's delivery from the sink alone: every callback and trigger note of the run.
      const runId = url.searchParams.get("runId");
      const windowMs = Number(url.searchParams.get("windowMs"));
      if (runId === null || !Number.isFinite(windowMs) || windowMs <= 0)
        return json(res, 400, { error: "runId and windowMs (ms, > 0) are required" });
      if (deliveryTally === undefined)
        return json(res, 404, {
          error: "no delivery tally: this sink hands its callbacks on (observe mode) and tallies none",
        });
      return json(res, 200, {
        tally: deliveryTally.summary(runId, windowMs),
        intake: deliveryTally.intakeSummary(),
        notes,
      });
    }
    if (url.pathname === "/api/stalls") {
      // How late the sink may have stamped the arrivals in [since, until].
      const since = filter.since ?? 0;
      const until = filter.until ?? Date.now();
      return json(res, 200, {
        maxStallMs: stalls.maxStallMs(since, until),
        heldUpMs: stalls.heldUpMs(since, until),
        covered: stalls.covers(since),
        // The machine's CPU contention meanwhile, which slows a target in another process.
        machineStallMs: machine.stallMs(since, until),
        machineSource: machine.source,
      });
    }
    if (url.pathname === "/api/callbacks/wait") {
      const minCount = Math.max(1, Number(url.searchParams.get("minCount") ?? 1) || 1);
      const timeoutMs = Math.min(
        MAX_WAIT_MS,
        Math.max(0, Number(url.searchParams.get("timeoutMs") ?? 10_000) || 0),
      );
      const already = select().length;
      if (already < minCount) {
        await new Promise<void>((resolve) => {
          const waiter = { filter, missing: minCount - already, wake: () => finish() };
          const timer = setTimeout(() => finish(), timeoutMs);
          const finish = () => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve();
          };
          waiters.add(waiter);
          req.socket.once("close", finish);
        });
      }
      const found = select();
      return json(res, 200, { timedOut: found.length < minCount, callbacks: found });
    }
    return reject(res, 404, "unknown-path");
  }

  // A tunnel may forward the public URL's whole path: callbacks are taken under its path as well
  // as at the root, for a tunnel that strips it.
  const prefix =
    options.publicUrl !== undefined && URL.canParse(options.publicUrl)
      ? new URL(options.publicUrl).pathname.split("/").filter(Boolean)
      : [];
  const routedSegments = (segments: string[]): string[] => {
    if (prefix.length === 0 || !prefix.every((part, i) => segments[i] === part)) return segments;
    const rest = segments.slice(prefix.length);
    return rest[0] === CALLBACKS_SEGMENT ? rest : segments;
  };
  /** A callback for this sink under another prefix than its public URL's: the set-up is wrong, not the sender. */
  const carriesToken = (segments: string[]) =>
    segments.some((part, i) => i > 0 && segments[i - 1] === CALLBACKS_SEGMENT && sameSecret(part, token));

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://sink.invalid");
    } catch {
      req.resume();
      reject(res, 400, "bad-request-target");
      return;
    }
    const segments = routedSegments(url.pathname.split("/").filter(Boolean));
    let handled: Promise<void>;
    if (segments[0] === CALLBACKS_SEGMENT && segments[1] !== undefined && sameSecret(segments[1], token)) {
      if (req.method === "GET" || req.method === "HEAD") {
        req.resume();
        reject(res, 405, "callback-method");
        return;
      }
      handled = receiveCallback(req, res, segments.slice(2));
    } else if (segments[0] === "api" && req.method === "GET") {
      handled = query(req, res, url);
    } else {
      req.resume();
      reject(
        res,
        404,
        segments[0] === CALLBACKS_SEGMENT
          ? "bad-token"
          : carriesToken(segments)
            ? "callback-prefix"
            : "unknown-path",
      );
      return;
    }
    handled.catch(() => {
      // Counted, and never a crash; the error's text stays out of the answer.
      if (!res.headersSent) reject(res, 500, "internal-error");
      else res.destroy();
    });
  };
  const server: Server = options.tls
    ? (createHttpsServer({ keepAliveTimeout: 10_000, ...options.tls }, handle) as unknown as Server)
    : createServer({ keepAliveTimeout: 10_000 }, handle);
  // A TLS handshake that fails (a scanner, a provider with the wrong trust) is the client's problem.
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? "127.0.0.1";
  const url = `${options.tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const base = (options.publicUrl ?? url).replace(/\/+$/, "");

  return {
    url,
    certificate: options.tls?.cert,
    port,
    token,
    storeRecovery: store.recovery,
    callbackUrl: (variant = {}) => callbackUrlWith(sinkCallbackUrl(base, token), variant),
    stats: () => ({
      stored: store.records.length,
      spilled,
      rejected: { ...rejected },
      ...(excess.callbacks > 0 ? { excess: structuredClone(excess) } : {}),
    }),
    async stop() {
      stalls.stop();
      machine.stop();
      for (const timer of stalled) clearTimeout(timer);
      for (const waiter of waiters) waiter.wake();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 500).unref();
      });
      await store.close();
    },
  };
}
