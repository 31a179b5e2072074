/**
 * The HTTP client the suite talks to a target with (undici). Every call is recorded as an
 * {@link Exchange}, the evidence reports and HAR files are made of. Every call has a timeout,
 * and a transport failure names the URL and the cause (a TLS failure precisely: unknown CA,
 * hostname mismatch, expired, client certificate required or refused).
 *
 * Evidence is bounded: an answer is read only up to a limit (64 KiB by default); what was read is
 * kept, and the exchange says it was cut and how big the answer really was. A compressed answer
 * (Content-Encoding gzip, deflate, br) is decoded within the same limit, so a gzip bomb never
 * expands beyond it; another coding is kept undecoded and reported as unsupported.
 */
import { pipeline, type Readable, Transform } from "node:stream";
import * as zlib from "node:zlib";
import { Agent, request } from "undici";
import {
  answerHeadTaken,
  CappedBytes,
  closedConnectionOf,
  describeTlsFailure,
  type TlsAwareConnector,
  type TlsFailure,
  type TlsMaterial,
  tlsAwareConnector,
  tlsConnectOptions,
  trackingSockets,
  trafficOf,
} from "../kit/index.ts";
import {
  endpointPath,
  type JsonTextReport,
  jsonTextIssues,
  OPERATIONS_BY_KIND,
  type OperationName,
  ORDER_KIND,
  type OrderKind,
  withinDepth,
  withoutBom,
} from "../schemas/index.ts";

/** How much of an answer is kept, unless the client is told otherwise. */
// An H2H answer is a few KB; every kept answer lands in four reports, so the default bounds the
// run's memory whatever size the target's answers are (docs/reports.md).
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** How much more of an answer without Content-Length is read (and dropped) to learn its size. */
export const DEFAULT_SIZE_PROBE_BYTES = 8 * 1024 * 1024;

/**
 * Set on a recorded body the evidence bound cut: reports keep each body up to a limit in bytes as
 * written in JSON (escapes counted), and a run's bodies up to a bound for the whole run.
 */
export interface EvidenceCut {
  /** The body's size as written in JSON (escapes counted, quotes not) before the cut. */
  serialisedBytes: number;
  /** The limit it was cut at, in those bytes (0: dropped). */
  limitBytes: number;
  /** Set when the body was dropped because the run's bodies had reached their bound. */
  runBound?: true;
}

export interface ExchangeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body exactly as sent (in a recorded exchange: cut as `evidenceCut` says). */
  body: string;
  /** Recorded exchanges only: the body was cut to bound the evidence. */
  evidenceCut?: EvidenceCut;
}

/** An answer's real size, as far as the client learnt it. */
export interface BodySize {
  /** Bytes on the wire (the compressed size, when compressed). */
  bytes: number;
  /** content-length: as the target declared it; counted: read to the end; at-least: reading stopped before the end. */
  from: "content-length" | "counted" | "at-least";
}

export interface ContentEncodingInfo {
  /** The codings named by Content-Encoding, in the order they were applied. */
  codings: string[];
  /** Whether `body` is the decoded answer. */
  decoded: boolean;
  /** Why not, or where decoding stopped: an unsupported coding, or corrupt compressed data. */
  problem?: string;
}

export interface RateLimitInfo {
  /** The Retry-After header as sent, if any. */
  retryAfter?: string;
  /** Retry-After as a delay in ms (seconds, or an HTTP date against the answer's Date), if it parses. */
  retryAfterMs?: number;
}

export interface ExchangeResponse {
  status: number;
  headers: Record<string, string>;
  /**
   * The body as received (decoded as UTF-8, a byte order mark kept, a byte that is not UTF-8 shown
   * as U+FFFD); only its first `limitBytes` when `truncated`.
   */
  body: string;
  /** The body parsed as JSON (past a byte order mark), or undefined when it is not JSON (or was cut). */
  json: unknown;
  /** Set when the bytes break strict JSON where JSON.parse forgives it (json-text.ts): what, where. */
  jsonText?: JsonTextReport;
  /** Set (true) when the body was cut at the client's limit. */
  truncated?: true;
  /** Set with `truncated`: the limit the body was cut at, in (decoded) bytes. */
  limitBytes?: number;
  /** The answer's real size. */
  size?: BodySize;
  /** Set when the answer had a Content-Encoding other than identity. */
  contentEncoding?: ContentEncodingInfo;
  /** Set on a 429 (Too Many Requests): the target rate-limits the client. */
  rateLimit?: RateLimitInfo;
  /** Recorded exchanges only: the body was cut to bound the evidence (not the answer's size). */
  evidenceCut?: EvidenceCut;
}

/** Rate limits: one 429 answer that was waited out and the request sent again. */
export interface RateLimitedAttempt {
  status: number;
  startedAt: string;
  /** The Retry-After header as sent. */
  retryAfter?: string;
  /** How long the client waited before sending the request again. */
  waitedMs: number;
}

export interface Exchange {
  /** Set by a recorder (`onExchange`), so evidence can point at the recorded copy. */
  id?: string;
  /** The endpoint called, when it is one of the four. */
  operation?: OperationName;
  startedAt: string;
  durationMs: number;
  request: ExchangeRequest;
  response: ExchangeResponse;
  /**
   * The 429 answers that came before `response`, each waited out (Retry-After within the
   * client's bound) before the request was sent again; `response` is the final answer.
   */
  rateLimited?: RateLimitedAttempt[];
  /**
   * A kept-alive connection the target had closed when this request went out on it (undici's
   * "other side closed" on a reused connection, before any answer, that had been idle as long as
   * the target said it keeps idle connections): the target never read it, so it was sent once
   * more on a new connection, and `response` is that answer.
   */
  reconnected?: { startedAt: string; code: string; detail: string };
  /**
   * The answer cannot be trusted to be this request's: the connection carried an answer no
   * request asked for (an HTTP desync), before this exchange was recorded or after (then set on
   * this object only, which the checks read). The checks that would judge it are not evaluated.
   */
  transportFault?: { kind: "desync"; detail: string };
  /** The check this request probes ({@link SendOptions.probeOf}). */
  probeOf?: string;
}

/**
 * What kind of transport fault an exchange met, for the reports: the target could not be reached
 * (refused, unknown host, TLS), did not answer in time, closed or reset the connection after the
 * request went out (no answer: it may have processed it), answered with broken HTTP/1.1 framing,
 * or answered what no request asked for (a desync).
 */
export type TransportFaultKind = "unreachable" | "timeout" | "no answer" | "framing" | "desync" | "other";

const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The kind of a transport failure, from its code (TLS failures are `unreachable`). */
export function transportFaultKind(causeCode: string, tls: boolean): TransportFaultKind {
  if (tls || UNREACHABLE_CODES.has(causeCode)) return "unreachable";
  if (
    causeCode === "TIMEOUT" ||
    causeCode === "UND_ERR_HEADERS_TIMEOUT" ||
    causeCode === "UND_ERR_BODY_TIMEOUT"
  )
    return "timeout";
  if (causeCode === "HTTP_DESYNC") return "desync";
  if (
    causeCode.startsWith("HPE_") ||
    causeCode === "HTTP_FRAMING" ||
    causeCode === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH"
  )
    return "framing";
  if (CLOSED_CONNECTION_CODES.has(causeCode)) return "no answer";
  return "other";
}

/** No answer: the target could not be reached, or did not answer in time. */
export class TransportError extends Error {
  readonly url: string;
  readonly causeCode: string;
  /** What kind of fault it is; only `unreachable` means the target could not be reached at all. */
  readonly fault: TransportFaultKind;
  /** Set when the failure is a TLS one: which, and how to fix it. */
  readonly tls: TlsFailure | undefined;
  /**
   * The request lost the keep-alive race: "other side closed" on a reused connection with no other
   * request in flight, before a byte of its answer (connection-reuse.ts). Only this is sent again.
   */
  staleConnection = false;
  constructor(url: string, causeCode: string, detail: string) {
    const tls = describeTlsFailure(causeCode);
    super(
      tls
        ? `${url}: TLS ${tls.problem}: ${tls.explanation} (${causeCode}: ${detail})`
        : `${url}: ${causeCode} (${detail})`,
    );
    this.name = "TransportError";
    this.url = url;
    this.causeCode = causeCode;
    this.tls = tls;
    this.fault = transportFaultKind(causeCode, tls !== undefined);
  }
}

export interface H2hClientOptions {
  baseUrl: string;
  apiKey: string | undefined;
  /** Per-request timeout (connect, headers and body alike). */
  timeoutMs: number;
  /** Called with every completed exchange, e.g. to record it for the report. */
  onExchange?: (exchange: Exchange) => void;
  /** At most this many bytes of an answer are kept (decoded bytes, when compressed). Default 64 KiB. */
  maxBodyBytes?: number;
  /**
   * Past the limit, up to this many more bytes of an answer without Content-Length are read and
   * dropped to learn its size; then the connection is cut. Default 8 MiB.
   */
  sizeProbeBytes?: number;
  /** Extra trusted CAs and a client certificate (read them with `readTlsFiles`). */
  tls?: TlsMaterial;
  /** How a 429 with Retry-After is waited out; without it a 429 is never retried. */
  rateLimitRetry?: RateLimitRetry;
  /** The run was stopped (its deadline, Ctrl-C): every request and wait of this client ends now. */
  signal?: AbortSignal;
  /**
   * How long this machine held the client up between two moments (ms since the epoch): a request
   * not answered within `timeoutMs` gets that much longer, once, so that a loaded machine is never
   * taken for a slow target. Without it a request ends at `timeoutMs`.
   */
  heldUpMs?: (sinceMs: number, untilMs: number) => number;
}

/**
 * Rate limits: a 429 whose Retry-After is at most `maxWaitMs` is waited out and the
 * request sent again, up to `maxRetries` times per request. A longer Retry-After, none, or a wait
 * that would end after `deadlineAt` is not waited: the 429 stands.
 */
export interface RateLimitRetry {
  maxWaitMs: number;
  maxRetries: number;
  /** Epoch ms: no wait may end after it (the run's deadline). */
  deadlineAt?: number;
}

/** The wait before sending a request again after this 429, or undefined when it must stand. */
export function rateLimitWait(
  response: Pick<ExchangeResponse, "status" | "rateLimit">,
  retry: RateLimitRetry | undefined,
  retriesSoFar: number,
  nowMs: number = Date.now(),
): number | undefined {
  if (!retry || response.status !== 429 || retriesSoFar >= retry.maxRetries) return undefined;
  const wait = response.rateLimit?.retryAfterMs;
  if (wait === undefined || wait > retry.maxWaitMs) return undefined;
  if (retry.deadlineAt !== undefined && nowMs + wait >= retry.deadlineAt) return undefined;
  return wait;
}

export interface SendOptions {
  operation?: OperationName;
  /** Overrides the client's API key for this call; `null` sends no Authorization header. */
  apiKey?: string | null;
  /** Sends this text as the body instead of JSON-serialising `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /**
   * The check this request probes: where a profile waives that check, what its answer would make
   * fail elsewhere (a 5xx) is reported, not required.
   */
  probeOf?: string;
  /** Ends this call early (e.g. its test's own signal), besides the client's signal and timeout. */
  signal?: AbortSignal;
}

/**
 * For each signal given to requests, the controllers of its requests under way: the signal has one
 * listener that aborts them all, however many requests share it (one each would pass Node's
 * warning bound of 10 on the client's signal).
 */
const underWayBySignal = new WeakMap<AbortSignal, Set<AbortController>>();

/** Aborts `controller` with `signal`'s reason when `signal` aborts; the function returned undoes it. */
function abortAlong(signal: AbortSignal, controller: AbortController): () => void {
  let underWay = underWayBySignal.get(signal);
  if (underWay === undefined) {
    const controllers = new Set<AbortController>();
    underWay = controllers;
    underWayBySignal.set(signal, controllers);
    signal.addEventListener(
      "abort",
      () => {
        for (const each of controllers) each.abort(signal.reason);
        controllers.clear();
      },
      { once: true },
    );
  }
  const controllers = underWay;
  controllers.add(controller);
  return () => controllers.delete(controller);
}

/**
 * A request's timeout: `timeoutMs`, then once more as long as `heldUpMs` says the machine held the
 * request up in that time (never more than `timeoutMs`: no more than the delay it excuses). Its
 * signal also aborts, with their reason, when one of `signals` (the client's, the call's) does.
 */
export function requestTimeout(
  timeoutMs: number,
  heldUpMs?: (sinceMs: number, untilMs: number) => number,
  signals: readonly (AbortSignal | undefined)[] = [],
): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  // Not AbortSignal.any, which costs more than the rest of a request's set-up and keeps each
  // request's signal in the long-lived client signal until a GC.
  const given = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const aborted = given.find((signal) => signal.aborted);
  if (aborted) controller.abort(aborted.reason);
  const releases = aborted ? [] : given.map((signal) => abortAlong(signal, controller));
  const release = () => {
    for (const undo of releases) undo();
  };
  const startedAt = Date.now();
  const expire = (extraMs: number) =>
    controller.abort(
      new DOMException(
        extraMs > 0
          ? `no answer within ${timeoutMs} ms and ${extraMs} ms more, the time this machine held the request up`
          : `no answer within ${timeoutMs} ms`,
        "TimeoutError",
      ),
    );
  const dueAt = startedAt + timeoutMs;
  let timer = setTimeout(() => {
    // Held up in the request's own window only: a timer that fired late was held up in it, and that
    // time is counted once, not again as the time waited since.
    const extraMs = heldUpMs ? Math.min(timeoutMs, Math.max(0, Math.ceil(heldUpMs(startedAt, dueAt)))) : 0;
    const leftMs = dueAt + extraMs - Date.now();
    if (extraMs === 0 || leftMs <= 0) return expire(extraMs);
    timer = setTimeout(() => expire(extraMs), leftMs);
    timer.unref();
  }, timeoutMs);
  timer.unref();
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      release();
    },
  };
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function waitUnlessAborted(ms: number, signals: (AbortSignal | undefined)[]): Promise<void> {
  const given = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const signal = given.length > 0 ? AbortSignal.any(given) : undefined;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

/** The answer parsed, nested at most MAX_JSON_DEPTH deep (deeper overflows every walk of it). */
function parseJson(text: string): unknown {
  try {
    return withinDepth(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * Retry-After as a delay in ms: delay-seconds, or an HTTP date measured against `nowMs` (the
 * answer's own Date header where there is one, so clock skew does not count). Undefined when
 * absent or unparseable.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function rateLimitOf(headers: Record<string, string>): RateLimitInfo {
  const retryAfter = headers["retry-after"];
  const serverNow = headers.date ? Date.parse(headers.date) : Number.NaN;
  const retryAfterMs = parseRetryAfter(retryAfter, Number.isNaN(serverNow) ? Date.now() : serverNow);
  return {
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

const DECODERS: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  "x-gzip": () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};
const zstd = (zlib as unknown as { createZstdDecompress?: () => Transform }).createZstdDecompress;
if (zstd) DECODERS.zstd = () => zstd();

interface BodyRead {
  bytes: Buffer;
  truncated: boolean;
  size: BodySize;
  encoding?: ContentEncodingInfo;
}

/**
 * The common answer, its size declared and no coding: read from the body itself, with no counting
 * stream and pipeline, which cost more CPU than the rest of the read. Past the limit the size is
 * the declared one and the connection is cut at once, as {@link readBoundedBody} does.
 */
async function readDeclaredBody(body: Readable, declared: number, limit: number): Promise<BodyRead> {
  const kept = new CappedBytes(limit);
  for await (const chunk of body as AsyncIterable<Buffer>) if (!kept.add(chunk)) break;
  return { bytes: kept.bytes(), truncated: kept.full, size: { bytes: declared, from: "content-length" } };
}

/**
 * Reads an answer's body up to `limit` decoded bytes. Past the limit: with a Content-Length the
 * size is known and the connection is cut at once; without one, up to `probe` more bytes are read
 * and dropped to count them, then the connection is cut.
 */
async function readBoundedBody(
  body: Readable,
  headers: Record<string, string>,
  limit: number,
  probe: number,
): Promise<BodyRead> {
  const declaredText = headers["content-length"];
  const declared =
    declaredText !== undefined && /^\d+$/.test(declaredText) ? Number(declaredText) : undefined;
  const codings = (headers["content-encoding"] ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  if (codings.length === 0 && declared !== undefined) return readDeclaredBody(body, declared, limit);
  const unsupported = codings.filter((c) => DECODERS[c] === undefined);
  const decoding = codings.length > 0 && unsupported.length === 0;

  let wire = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      wire += chunk.length;
      callback(null, chunk);
    },
  });
  const decoders = decoding ? [...codings].reverse().map((c) => (DECODERS[c] as () => Transform)()) : [];
  const last: Readable = decoders.length > 0 ? (decoders[decoders.length - 1] as Transform) : counter;
  // Errors reach the loop below through `last`; pipeline only tears the chain down together.
  pipeline([body, counter, ...decoders], () => {});

  const kept = new CappedBytes(limit);
  /** Whether the body was read to its end (so its counted size is its real size). */
  let ended = false;
  let decodeProblem: string | undefined;
  try {
    for await (const chunk of last as AsyncIterable<Buffer>) {
      if (!kept.full && kept.add(chunk)) continue;
      // Past the limit. With a declared size nothing more is to be learnt; a compressed body is
      // never decoded further (a gzip bomb stops here); otherwise count up to the probe bound.
      if (declared !== undefined || decoding || wire > limit + probe) break;
    }
    ended = !kept.full || (declared === undefined && !decoding && wire <= limit + probe);
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    if (kept.full) {
      // The answer is already in hand: a timeout or reset while counting the rest loses nothing.
    } else if (decoding && /^(Z_|ERR_BROTLI|ERR_ZLIB|ERR__ERROR)/.test(code)) {
      decodeProblem = `decoding stopped after ${kept.length} bytes: ${(error as Error).message}`;
    } else {
      throw error;
    }
  }
  const size: BodySize =
    declared !== undefined
      ? { bytes: declared, from: "content-length" }
      : { bytes: wire, from: ended ? "counted" : "at-least" };
  const read: BodyRead = { bytes: kept.bytes(), truncated: kept.full, size };
  if (codings.length > 0) {
    read.encoding = {
      codings,
      decoded: decoding && decodeProblem === undefined,
      ...(unsupported.length > 0
        ? { problem: `unsupported Content-Encoding ${unsupported.join(", ")}: the body is kept as received` }
        : decodeProblem
          ? { problem: decodeProblem }
          : {}),
    };
  }
  return read;
}

/** The stable, documented code of a failed undici/Node call, e.g. ECONNREFUSED or UND_ERR_HEADERS_TIMEOUT. */
function causeOf(error: unknown): { code: string; detail: string } {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "UND_ERR") return { code, detail: current.message };
    if (current.name === "TimeoutError") return { code: "TIMEOUT", detail: current.message };
    current = (current as { cause?: unknown }).cause;
  }
  if (error instanceof AggregateError && error.errors[0]) return causeOf(error.errors[0]);
  return { code: "REQUEST_FAILED", detail: error instanceof Error ? error.message : String(error) };
}

/** When a request was written on a connection and its answer's head came, ms since the epoch. */
export interface WireTimes {
  sentAtMs: number;
  answeredAtMs: number;
}
const wireTimes = new WeakMap<Exchange, WireTimes>();

/** When the exchange's request was written and its answer came (the client's own exchanges only). */
export function wireTimesOf(exchange: Exchange): WireTimes | undefined {
  return wireTimes.get(exchange);
}

/**
 * An answer whose HTTP/1.1 framing is broken, in plain words: which rule of RFC 9112/9110 it
 * breaks. Undefined for any other failure.
 */
function framingFaultOf(error: unknown): { code: string; detail: string } | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); ) {
    seen.add(current);
    const { code } = current as { code?: unknown };
    if (current.name === "HTTPParserError") {
      const reason = /\((.*)\)\s*$/.exec(current.message)?.[1] ?? current.message;
      return { code: "HTTP_FRAMING", detail: `the answer is not valid HTTP/1.1: ${plainFraming(reason)}` };
    }
    if (code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") {
      // undici reports a head its parser refused over Content-Length (repeated, or not a number)
      // as this mismatch, before the head is taken. RFC 9110 §8.6 lets a recipient either refuse
      // repeated Content-Length fields or merge identical ones; this client refuses them, and says so.
      return {
        code: "HTTP_FRAMING",
        detail:
          answerHeadTaken(current) === false
            ? "the answer is not valid HTTP/1.1: its head was refused over its Content-Length, sent more than once or not a number; RFC 9110 §8.6 lets a client refuse repeated Content-Length fields, even with one value, and this one does"
            : "the answer is not valid HTTP/1.1: its body is not as long as its Content-Length says",
      };
    }
    if (code === "UND_ERR_SOCKET" && current.message === "bad response")
      return {
        code: "HTTP_DESYNC",
        detail: "HTTP desync: an answer came that no request on the connection asked for",
      };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** llhttp's reason for refusing an answer, as the rule the target broke. */
function plainFraming(reason: string): string {
  if (/Content-Length can't be present with Transfer-Encoding/i.test(reason))
    return "it has both Transfer-Encoding and Content-Length (RFC 9112 §6.1: a server MUST NOT send both)";
  if (/chunk size/i.test(reason))
    return `a chunk size is not a hexadecimal number (RFC 9112 §7.1; ${reason})`;
  if (/whitespace after header value|obs-fold|Missing expected CR after header value/i.test(reason))
    return `a header field is folded onto a second line (obs-fold, RFC 9112 §5.2: a server MUST NOT send it; ${reason})`;
  if (/content-length/i.test(reason)) return `its Content-Length is not valid (RFC 9110 §8.6; ${reason})`;
  return reason;
}

/** How a connection closed under a request shows: undici's "other side closed", a reset, a broken pipe. */
const CLOSED_CONNECTION_CODES: ReadonlySet<string> = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

/** The socket info undici's SocketError carries, wherever it sits in the cause chain. */
function socketInfoOf(error: unknown): { localPort?: number; bytesRead?: number } | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const info = (current as { socket?: { localPort?: number; bytesRead?: number } }).socket;
    if (info && typeof info === "object") return info;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * How long before a target's announced idle timeout (Keep-Alive: timeout=N) the client stops
 * reusing a connection: a request that still meets the target's idle close was held up past it.
 */
const KEEP_ALIVE_MARGIN_MS = 2_000;

export class H2hClient {
  /** The base URL without trailing slashes and without userinfo (see `userinfoIgnored`). */
  readonly baseUrl: string;
  /**
   * True when the base URL carried `user:password@`: it is never sent (the API authenticates
   * with a bearer key; undici would drop it silently) and never recorded.
   */
  readonly userinfoIgnored: boolean;
  private readonly agent: Agent;
  private readonly connector: TlsAwareConnector;
  private readonly maxBodyBytes: number;
  private readonly sizeProbeBytes: number;

  constructor(private readonly options: H2hClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.baseUrl);
    } catch {
      throw new Error(`base URL "${options.baseUrl}" is not a valid URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new Error(`base URL "${options.baseUrl}" must be http:// or https://`);
    }
    this.userinfoIgnored = parsed.username !== "" || parsed.password !== "";
    this.baseUrl = options.baseUrl.replace(/^([a-z]+:\/\/)[^/?#@]*@/i, "$1").replace(/\/+$/, "");
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.sizeProbeBytes = options.sizeProbeBytes ?? DEFAULT_SIZE_PROBE_BYTES;
    if (!Number.isInteger(this.maxBodyBytes) || this.maxBodyBytes < 1)
      throw new Error(`maxBodyBytes ${this.maxBodyBytes} must be a positive integer`);
    this.connector = tlsAwareConnector(
      { timeout: options.timeoutMs, ...tlsConnectOptions(options.tls) },
      options.tls?.cert !== undefined,
    );
    this.agent = new Agent({
      connect: trackingSockets(this.connector.connect, KEEP_ALIVE_MARGIN_MS),
      // An idle connection is reused for 4 s when the target gives no Keep-Alive hint; with one
      // (`Keep-Alive: timeout=N`), up to N s less 2 s, so that it is dropped here before the target
      // drops it, even with this process held up for a second or two (a loaded machine).
      keepAliveTimeout: 4_000,
      keepAliveMaxTimeout: 60_000,
      keepAliveTimeoutThreshold: KEEP_ALIVE_MARGIN_MS,
    });
  }

  /**
   * POSTs to a path under the base URL and records the exchange. A 429 whose Retry-After is within
   * the `rateLimitRetry` bound is waited out and the request sent again; the exchange holds the
   * final answer, and the waited-out 429s in `rateLimited`.
   */
  async post(path: string, body: unknown, send: SendOptions = {}): Promise<Exchange> {
    const rateLimited: RateLimitedAttempt[] = [];
    for (;;) {
      const exchange = await this.attemptOnLiveConnection(path, body, send);
      const wait = rateLimitWait(exchange.response, this.options.rateLimitRetry, rateLimited.length);
      if (wait === undefined) {
        if (rateLimited.length > 0) exchange.rateLimited = rateLimited;
        this.options.onExchange?.(exchange);
        return exchange;
      }
      rateLimited.push({
        status: exchange.response.status,
        startedAt: exchange.startedAt,
        ...(exchange.response.rateLimit?.retryAfter !== undefined
          ? { retryAfter: exchange.response.rateLimit.retryAfter }
          : {}),
        waitedMs: wait,
      });
      await waitUnlessAborted(wait, [this.options.signal, send.signal]);
    }
  }

  /**
   * One request and its answer. A target may close an idle kept-alive connection just as a request
   * goes out on it (its timer and ours race; on a loaded machine ours is late): that request got
   * no answer and never reached the target's application, so it is sent once more on a new
   * connection, and the exchange says so. Any other transport failure (a reset or broken pipe may
   * come after the target processed the request), or a second one, is thrown.
   */
  private async attemptOnLiveConnection(path: string, body: unknown, send: SendOptions): Promise<Exchange> {
    const startedAt = new Date().toISOString();
    try {
      return await this.attempt(path, body, send);
    } catch (error) {
      if (!(error instanceof TransportError) || !error.staleConnection) throw error;
      const exchange = await this.attempt(path, body, send);
      exchange.reconnected = { startedAt, code: error.causeCode, detail: error.message };
      return exchange;
    }
  }

  /** One request and its answer, not yet recorded. */
  private async attempt(path: string, body: unknown, send: SendOptions): Promise<Exchange> {
    const url = `${this.baseUrl}${path}`;
    const apiKey = send.apiKey === undefined ? this.options.apiKey : send.apiKey;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (apiKey !== null && apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
    Object.assign(headers, send.headers);
    const text = send.rawBody ?? JSON.stringify(body);
    // A Buffer of its own, which undici keeps as it is: what the connection saw is found by it.
    const wireBody = Buffer.from(text);
    const startedAt = new Date();
    const started = performance.now();
    let answered = false;
    const timeout = requestTimeout(this.options.timeoutMs, this.options.heldUpMs, [
      this.options.signal,
      send.signal,
    ]);
    // undici's own timers only as a backstop: the request's timeout, extended or not, ends it.
    const backstopMs = this.options.timeoutMs * (this.options.heldUpMs ? 2 : 1) + 1_000;
    try {
      const response = await request(url, {
        method: "POST",
        dispatcher: this.agent,
        headers,
        body: wireBody,
        headersTimeout: backstopMs,
        bodyTimeout: backstopMs,
        signal: timeout.signal,
      });
      answered = true;
      const responseHeaders = flattenHeaders(response.headers);
      const read = await readBoundedBody(
        response.body,
        responseHeaders,
        this.maxBodyBytes,
        this.sizeProbeBytes,
      );
      // A character cut in half at the limit is dropped, not shown as a replacement character; a
      // byte order mark is kept, as received (the decoder's default drops it unsaid).
      const responseText = new TextDecoder("utf-8", { ignoreBOM: true }).decode(read.bytes, {
        stream: read.truncated,
      });
      const parseable = !read.truncated && (read.encoding === undefined || read.encoding.decoded);
      const json = parseable ? parseJson(withoutBom(responseText)) : undefined;
      // Only a JSON answer's bytes are judged: one that is not JSON is envelope.shape's finding.
      const jsonText = json !== undefined ? jsonTextIssues(read.bytes, responseText) : undefined;
      const exchange: Exchange = {
        ...(send.operation ? { operation: send.operation } : {}),
        ...(send.probeOf ? { probeOf: send.probeOf } : {}),
        startedAt: startedAt.toISOString(),
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        request: { method: "POST", url, headers, body: text },
        response: {
          status: response.statusCode,
          headers: responseHeaders,
          body: responseText,
          json,
          ...(jsonText ? { jsonText } : {}),
          ...(read.truncated ? { truncated: true as const, limitBytes: this.maxBodyBytes } : {}),
          size: read.size,
          ...(read.encoding ? { contentEncoding: read.encoding } : {}),
          ...(response.statusCode === 429 ? { rateLimit: rateLimitOf(responseHeaders) } : {}),
        },
      };
      const traffic = trafficOf(wireBody);
      if (traffic) {
        wireTimes.set(exchange, {
          sentAtMs: traffic.sentAtMs,
          answeredAtMs: traffic.answeredAtMs ?? Date.now(),
        });
        // An answer no request asked for on this connection, now or later (the real answer after a
        // stray one taken for it): which answer is whose is lost. The checks that read this
        // exchange later see it.
        traffic.whenUnsolicited(() => {
          exchange.transportFault = {
            kind: "desync",
            detail:
              "HTTP desync: the connection this answer came on also carried an answer no request asked for; " +
              "this answer may belong to another request",
          };
        });
      }
      return exchange;
    } catch (error) {
      if (error instanceof Error) {
        const { code, detail } = framingFaultOf(error) ?? causeOf(error);
        // "other side closed" on a TLS connection: what the socket saw says why.
        const socket = socketInfoOf(error);
        const explained = code === "UND_ERR_SOCKET" ? this.connector.explain(socket) : undefined;
        const closed = explained === undefined ? closedConnectionOf(error) : undefined;
        const stale = !answered && closed?.race === true;
        // Not the keep-alive race: the target may have processed the request, so it is not sent
        // again, and the failure says so.
        const unsent =
          !stale && explained === undefined && CLOSED_CONNECTION_CODES.has(code)
            ? `; ${closed ? `${closed.explanation}; ` : ""}not sent again: the target may have processed it`
            : stale && closed
              ? `; ${closed.explanation}`
              : "";
        const failure = new TransportError(
          url,
          explained?.code ?? code,
          `${explained?.detail ?? detail}${unsent}`,
        );
        failure.staleConnection = stale;
        throw failure;
      }
      throw error;
    } finally {
      timeout.clear();
    }
  }

  /** Calls one of the four endpoints. */
  call(
    operation: OperationName,
    body: unknown,
    send: SendOptions & { orderId?: string } = {},
  ): Promise<Exchange> {
    return this.post(endpointPath(operation, send.orderId), body, { ...send, operation });
  }

  /** Creates an order of a kind (§4.1, §4.3). */
  createOrder(kind: OrderKind, body: unknown, send?: SendOptions): Promise<Exchange> {
    return this.call(OPERATIONS_BY_KIND[kind].create, body, send);
  }

  /** Confirms an order of a kind with a code (§4.2, §4.4). */
  confirmOrder(kind: OrderKind, orderId: string, code: string, send?: SendOptions): Promise<Exchange> {
    return this.call(OPERATIONS_BY_KIND[kind].confirm, { code }, { ...send, orderId });
  }

  createMobileCommerceOrder(body: unknown, send?: SendOptions): Promise<Exchange> {
    return this.createOrder(ORDER_KIND.mobile_commerce, body, send);
  }

  confirmMobileCommerceOrder(orderId: string, code: string, send?: SendOptions): Promise<Exchange> {
    return this.confirmOrder(ORDER_KIND.mobile_commerce, orderId, code, send);
  }

  createQuasiEcomOrder(body: unknown, send?: SendOptions): Promise<Exchange> {
    return this.createOrder(ORDER_KIND.quasi_ecom, body, send);
  }

  confirmQuasiEcomOrder(orderId: string, code: string, send?: SendOptions): Promise<Exchange> {
    return this.confirmOrder(ORDER_KIND.quasi_ecom, orderId, code, send);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
