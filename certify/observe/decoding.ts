/**
 * Decoding a body that passed the proxy with a Content-Encoding, for judging only: the bytes the
 * merchant (or its receiver, or the provider) got are never changed. Decoding is streamed and
 * stops at the evidence cap (limits.maxBodyBytes), so a decompression bomb costs no more memory
 * than a plain body of that size.
 */
import { Readable, type Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import * as zlib from "node:zlib";
import { CappedBytes } from "../../contract/kit/index.ts";
import type { BodyEncoding, KeptBody } from "./session.ts";

/** "deflate" is zlib-wrapped by RFC 9110, but some senders send it raw: the first bytes tell. */
const isZlibWrapped = (bytes: Buffer) =>
  bytes.length >= 2 &&
  ((bytes[0] as number) & 0x0f) === 8 &&
  (((bytes[0] as number) << 8) | (bytes[1] as number)) % 31 === 0;

const DECODERS: Record<string, (first: Buffer | undefined) => Transform> = {
  gzip: () => zlib.createGunzip(),
  "x-gzip": () => zlib.createGunzip(),
  deflate: (first) =>
    first === undefined || isZlibWrapped(first) ? zlib.createInflate() : zlib.createInflateRaw(),
  br: () => zlib.createBrotliDecompress(),
};
// zstd where the running Node's zlib has it (Node 22.15 and later).
const zstd = (zlib as unknown as { createZstdDecompress?: () => Transform }).createZstdDecompress;
if (zstd) DECODERS.zstd = () => zstd();

/** More codings than this on one body is not a sender's honest choice. */
const MAX_CODINGS = 3;

/** The codings of a Content-Encoding header, in the order they were applied; identity dropped. */
export function codingsOf(contentEncoding: string | undefined): string[] {
  return (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
}

/** Whether the running Node decodes this coding. */
export const decodable = (coding: string): boolean => DECODERS[coding] !== undefined;

const textOf = (bytes: Buffer, total: number, cut: boolean): KeptBody =>
  cut
    ? { text: bytes.toString("utf8"), bytes: total, cut: true }
    : { text: bytes.toString("utf8"), bytes: total };

/**
 * The body to judge: `raw` (its first bytes, `cut` when the sender sent more) decoded as
 * `contentEncoding` says, its first `cap` decoded bytes kept. Without a coding, undefined: the kept
 * body stands as it is. A coding that cannot be decoded keeps the raw bytes and says why.
 */
export async function decodeForJudging(
  raw: Buffer,
  wireBytes: number,
  cut: boolean,
  contentEncoding: string | undefined,
  cap: number,
): Promise<{ body: KeptBody; encoding: BodyEncoding } | undefined> {
  const codings = codingsOf(contentEncoding);
  if (codings.length === 0) return undefined;
  /** Kept as sent, not decoded, and why. */
  const notDecoded = (failure: "unsupported" | "corrupt", problem: string) => ({
    body: textOf(raw, wireBytes, cut),
    encoding: { codings, decoded: false, wireBytes, failure, problem },
  });
  const unknown = codings.filter((coding) => !decodable(coding));
  if (unknown.length > 0 || codings.length > MAX_CODINGS)
    return notDecoded(
      "unsupported",
      unknown.length > 0
        ? `Content-Encoding ${unknown.join(", ")} is not one this Node decodes (${Object.keys(DECODERS).join(", ")})`
        : `${codings.length} content codings on one body (at most ${MAX_CODINGS} are decoded)`,
    );
  // Codings are listed in the order applied: undone last first.
  const decoders = [...codings]
    .reverse()
    .map((coding, i) => (DECODERS[coding] as (first?: Buffer) => Transform)(i === 0 ? raw : undefined));
  const kept = new CappedBytes(cap);
  let error: Error | undefined;
  const source = Readable.from([raw]);
  const chain = pipeline([source, ...decoders] as unknown as [Readable, ...Transform[]]).catch((e: Error) => {
    error ??= e;
  });
  try {
    // Past the cap nothing more is decoded (a bomb stops here).
    for await (const chunk of decoders[decoders.length - 1] as AsyncIterable<Buffer>)
      if (!kept.add(chunk)) break;
  } catch (e) {
    error ??= e as Error;
  } finally {
    for (const decoder of decoders) decoder.destroy();
    source.destroy();
  }
  await chain;
  const decoded = kept.bytes();
  const keptBytes = kept.length;
  const over = kept.full;
  // A stream cut at the cap ends early: its decoded prefix is all there is to keep, and is cut too.
  if (over || cut)
    return {
      body: { text: decoded.toString("utf8"), bytes: over ? cap + 1 : keptBytes, cut: true },
      encoding: {
        codings,
        decoded: true,
        wireBytes,
        problem: over
          ? `decodes to more than ${cap} bytes: the first ${cap} kept`
          : `the ${wireBytes}-byte body passed the ${cap}-byte evidence cap before it was decoded`,
      },
    };
  if (error)
    return notDecoded(
      "corrupt",
      `the body does not decode as ${codings.join(", ")} (${keptBytes} bytes decoded): ${error.message}`,
    );
  return { body: textOf(decoded, keptBytes, false), encoding: { codings, decoded: true, wireBytes } };
}

/**
 * Whether Accept-Encoding accepts `coding` (RFC 9110, section 12.5.3): no header accepts any coding;
 * an empty one none; otherwise one listed with a q above 0, or `*` when it is not listed with q=0.
 */
export function acceptsCoding(acceptEncoding: string | undefined, coding: string): boolean {
  if (acceptEncoding === undefined) return true;
  const listed = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    if (!name) continue;
    const q = params.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    listed.set(name, Number.isNaN(weight) ? 0 : weight);
  }
  const alias = coding === "x-gzip" ? "gzip" : coding === "gzip" ? "x-gzip" : coding;
  const weight = listed.get(coding) ?? listed.get(alias) ?? listed.get("*");
  return weight !== undefined && weight > 0;
}
