/**
 * Reading a callback body sent with a Content-Encoding (gzip, deflate, br): decoded for reading
 * only, the raw bytes staying what signatures are checked on and what evidence shows. Decoding is
 * bounded: the decoded body must fit the same limit as a raw one, so a small bomb stops there.
 */
import { promisify } from "node:util";
import * as zlib from "node:zlib";

type Decoder = (input: Buffer, options: zlib.ZlibOptions | zlib.BrotliOptions) => Promise<Buffer>;
type SyncDecoder = (input: Buffer, options: zlib.ZlibOptions | zlib.BrotliOptions) => Buffer;

const gunzip = promisify(zlib.gunzip) as Decoder;
const inflate = promisify(zlib.inflate) as Decoder;
const inflateRaw = promisify(zlib.inflateRaw) as Decoder;
const brotli = promisify(zlib.brotliDecompress) as Decoder;

/** "deflate" is zlib-wrapped by RFC 9110, but some senders send it raw; both are read. */
const DECODERS: Record<string, { decode: Decoder[]; decodeSync: SyncDecoder[] }> = {
  gzip: { decode: [gunzip], decodeSync: [zlib.gunzipSync] },
  "x-gzip": { decode: [gunzip], decodeSync: [zlib.gunzipSync] },
  deflate: { decode: [inflate, inflateRaw], decodeSync: [zlib.inflateSync, zlib.inflateRawSync] },
  br: { decode: [brotli], decodeSync: [zlib.brotliDecompressSync] },
};

/** The codings the sink reads, for a 415's Accept-Encoding. */
export const READABLE_ENCODINGS = "gzip, deflate, br";

/** More codings than this on one body is not a sender's honest choice. */
const MAX_CODINGS = 3;

export type DecodedBody =
  | { ok: true; body: Buffer }
  | {
      ok: false;
      /** 415 for a coding the sink does not read, 413 when the decoded body passes the limit, else 400. */
      status: 400 | 413 | 415;
      reason: "unsupported-encoding" | "undecodable-body" | "decoded-too-large";
      detail: string;
    };

/** The codings of a Content-Encoding header, in the order they were applied; identity dropped. */
export function codingsOf(contentEncoding: string | null | undefined): string[] {
  return (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
}

const isTooLarge = (error: unknown) =>
  (error as { code?: unknown })?.code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError;

function refusal(codings: string[], limit: number, error: unknown): DecodedBody {
  if (isTooLarge(error))
    return {
      ok: false,
      status: 413,
      reason: "decoded-too-large",
      detail: `the ${codings.join(", ")}-encoded body decodes to more than ${limit} bytes`,
    };
  return {
    ok: false,
    status: 400,
    reason: "undecodable-body",
    detail: `the body does not decode as ${codings.join(", ")}: ${(error as Error)?.message ?? String(error)}`,
  };
}

function unsupported(codings: string[]): DecodedBody | undefined {
  const unknown = codings.filter((coding) => DECODERS[coding] === undefined);
  if (unknown.length === 0 && codings.length <= MAX_CODINGS) return undefined;
  return {
    ok: false,
    status: 415,
    reason: "unsupported-encoding",
    detail:
      unknown.length > 0
        ? `Content-Encoding ${unknown.join(", ")} is not one the sink reads (${READABLE_ENCODINGS})`
        : `${codings.length} content codings on one body (at most ${MAX_CODINGS} are read)`,
  };
}

/** Decodes `raw` as its Content-Encoding says, each step bounded to `limit` bytes of output. */
export async function decodeBody(
  raw: Buffer,
  contentEncoding: string | null | undefined,
  limit: number,
): Promise<DecodedBody> {
  const codings = codingsOf(contentEncoding);
  const refused = unsupported(codings);
  if (refused) return refused;
  let body = raw;
  // Codings are listed in the order applied: undone last first.
  for (const coding of [...codings].reverse()) {
    const [first, ...fallbacks] = (DECODERS[coding] as { decode: Decoder[] }).decode;
    try {
      body = await (first as Decoder)(body, { maxOutputLength: limit });
    } catch (error) {
      if (isTooLarge(error)) return refusal(codings, limit, error);
      let decoded: Buffer | undefined;
      for (const fallback of fallbacks) {
        decoded = await fallback(body, { maxOutputLength: limit }).catch(() => undefined);
        if (decoded) break;
      }
      if (!decoded) return refusal(codings, limit, error);
      body = decoded;
    }
  }
  return { ok: true, body };
}

/** {@link decodeBody} at once, for replaying the store's log at start. */
export function decodeBodySync(
  raw: Buffer,
  contentEncoding: string | null | undefined,
  limit: number,
): DecodedBody {
  const codings = codingsOf(contentEncoding);
  const refused = unsupported(codings);
  if (refused) return refused;
  let body = raw;
  for (const coding of [...codings].reverse()) {
    let decoded: Buffer | undefined;
    let firstError: unknown;
    for (const decode of (DECODERS[coding] as { decodeSync: SyncDecoder[] }).decodeSync) {
      try {
        decoded = decode(body, { maxOutputLength: limit });
        break;
      } catch (error) {
        firstError ??= error;
        if (isTooLarge(error)) break;
      }
    }
    if (!decoded) return refusal(codings, limit, firstError);
    body = decoded;
  }
  return { ok: true, body };
}
