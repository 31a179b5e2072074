/**
 * Callbacks as evidence: every callback the webhook sink received during a run,
 * as the provider sent it (method, path and query, headers, raw body), with the sink's verdict
 * on its signature, its answer, and when it arrived after the request that triggered it. The
 * reports show them like exchanges: the JSON report lists them, the HAR holds each as an entry
 * of its own, and the HTML timeline opens each one's raw body.
 */
import {
  cutToSerialisedBytes,
  DEFAULT_MAX_BODY_BYTES,
  type EvidenceCut,
  type SignatureExplanation,
  type SignatureScheme,
  serialisedBytes,
} from "../../contract/index.ts";
import type { Masker } from "../../contract/kit/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import type { CallbackTimeline } from "../engine/run-context.ts";
import { explainStoredSignature } from "./signature-evidence.ts";

export interface CallbackEvidence {
  /** Unique in the run: `callback-<n>`, n the sink's arrival number. */
  id: string;
  receivedAt: string;
  method: string;
  /** The URL the provider called: the sink's public base, then path and query as received. */
  url: string;
  headers: Record<string, string>;
  /** The raw body as received: UTF-8 text, or base64 when it is not valid UTF-8. */
  body: string;
  bodyEncoding: "utf8" | "base64";
  bodyBytes: number;
  /** The Content-Encoding it came with (gzip, br...): `body` is as sent, still encoded. */
  contentEncoding?: string;
  /** Why the sink could not read the body (an unknown or broken encoding, not JSON): answered 4xx, filed under no order. */
  bodyProblem?: string;
  /** Set when `body` was cut (or dropped) to bound the evidence, in bytes as written in JSON. */
  bodyCut?: EvidenceCut;
  /** The order id and status read at the profile's paths, when present. */
  orderId: string | null;
  status: string | null;
  /** Deliveries of this order seen so far, this one included. */
  delivery: number;
  /** The sink's verdict on the signature under the callback secret and the profile's scheme. */
  signature: StoredCallback["signature"];
  /** When the signature failed: the scheme, the value received and the one the suite computed. */
  signatureExplained?: SignatureExplanation;
  /** The HTTP status the sink answered with (503 when it was told to refuse, to observe retries). */
  answeredWith: number;
  /** The scenario whose callback URL it arrived at, and when, relative to its trigger. */
  trigger?: { scenario: string; triggeredAt: string; arrivedAfterMs: number };
}

export const callbackId = (seq: number) => `callback-${seq}`;

/** How much of the callbacks' bodies the reports keep, in bytes as written in JSON. */
export interface CallbackEvidenceBounds {
  /** Each body (the profile's limits.maxBodyBytes). */
  maxBodyBytes: number;
  /** All bodies of the run; past it, callbacks are kept without their bodies. */
  maxRunBytes: number;
}

export const DEFAULT_CALLBACK_EVIDENCE_BOUNDS: CallbackEvidenceBounds = {
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  maxRunBytes: 16 * 1024 * 1024,
};

/** What the bounds cut: bodies cut at the per-body limit, and bodies dropped at the run's. */
export function callbackBodiesCut(evidence: readonly CallbackEvidence[]): { cut: number; dropped: number } {
  let cut = 0;
  let dropped = 0;
  for (const callback of evidence) {
    if (callback.bodyCut?.runBound) dropped += 1;
    else if (callback.bodyCut) cut += 1;
  }
  return { cut, dropped };
}

// A byte order mark is kept: the evidence is the bytes as received (the default drops it unsaid).
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function bodyOf(raw: Buffer): { body: string; bodyEncoding: "utf8" | "base64" } {
  try {
    return { body: strictUtf8.decode(raw), bodyEncoding: "utf8" };
  } catch {
    return { body: raw.toString("base64"), bodyEncoding: "base64" };
  }
}

/**
 * The run's callbacks as evidence, masked. `publicBase` is the origin the provider was given
 * (the sink's public URL); `timelines` tie a callback URL's tag to the scenario and its trigger.
 */
export function callbackEvidence(
  stored: readonly StoredCallback[],
  timelines: readonly CallbackTimeline[],
  publicBase: string,
  masker: Masker,
  bounds: CallbackEvidenceBounds = DEFAULT_CALLBACK_EVIDENCE_BOUNDS,
  signing?: { scheme: SignatureScheme; secret: string | null | undefined },
): CallbackEvidence[] {
  const byTag = new Map(timelines.filter((t) => t.tag).map((t) => [t.tag as string, t]));
  let keptBytes = 0;
  /** The body as the report keeps it: cut at the per-body limit, dropped past the run's. */
  const bounded = (text: string): { body: string; bodyCut?: EvidenceCut } => {
    const cut = cutToSerialisedBytes(text, bounds.maxBodyBytes);
    const size = cut.cutFrom ?? serialisedBytes(cut.text);
    if (keptBytes + Math.min(size, bounds.maxBodyBytes) > bounds.maxRunBytes)
      return { body: "", bodyCut: { serialisedBytes: size, limitBytes: 0, runBound: true } };
    keptBytes += Math.min(size, bounds.maxBodyBytes);
    return cut.cutFrom === undefined
      ? { body: cut.text }
      : { body: cut.text, bodyCut: { serialisedBytes: cut.cutFrom, limitBytes: bounds.maxBodyBytes } };
  };
  return [...stored]
    .sort((a, b) => a.seq - b.seq)
    .map((callback) => {
      const raw = Buffer.from(callback.bodyBase64, "base64");
      const { body, bodyEncoding } = bodyOf(raw);
      const timeline = callback.runId === null ? undefined : byTag.get(callback.runId);
      const triggeredAtMs = timeline ? Date.parse(timeline.triggeredAt) : Number.NaN;
      return {
        id: callbackId(callback.seq),
        receivedAt: callback.receivedAt,
        method: callback.method,
        url: masker.text(publicUrlOf(publicBase, callback.path)),
        headers: masker.headers(callback.headers),
        // Base64 is masked too: the masker finds a secret inside it (decoded, masked, encoded again).
        ...bounded(masker.text(body)),
        bodyEncoding,
        bodyBytes: raw.length,
        ...(callback.contentEncoding ? { contentEncoding: masker.text(callback.contentEncoding) } : {}),
        ...(callback.bodyProblem ? { bodyProblem: masker.text(callback.bodyProblem) } : {}),
        orderId: callback.orderId === null ? null : masker.text(callback.orderId),
        status: callback.status === null ? null : masker.text(callback.status),
        delivery: callback.deliveryOfOrder,
        signature: callback.signature,
        ...signatureExplainedOf(callback, signing, masker),
        answeredWith: callback.answeredWith,
        ...(timeline && Number.isFinite(triggeredAtMs)
          ? {
              trigger: {
                scenario: timeline.scenario,
                triggeredAt: timeline.triggeredAt,
                arrivedAfterMs: callback.receivedAtMs - triggeredAtMs,
              },
            }
          : {}),
      };
    });
}

/**
 * The URL a callback was sent to: the public base, then the path as the sink received it. A tunnel
 * that forwards the whole path hands the sink the base's path too; it is not repeated.
 */
export function publicUrlOf(publicBase: string, path: string): string {
  const base = publicBase.replace(/\/+$/, "");
  if (!URL.canParse(base)) return `${base}${path}`;
  const { origin, pathname } = new URL(base);
  const basePath = pathname.replace(/\/+$/, "");
  return basePath !== "" && path.startsWith(`${basePath}/`) ? `${origin}${path}` : `${base}${path}`;
}

function signatureExplainedOf(
  callback: StoredCallback,
  signing: { scheme: SignatureScheme; secret: string | null | undefined } | undefined,
  masker: Masker,
): { signatureExplained?: SignatureExplanation } {
  const explained = signing && explainStoredSignature(callback, signing.scheme, signing.secret);
  if (!explained) return {};
  const received = explained.received === null ? null : masker.text(explained.received);
  return { signatureExplained: { ...explained, received } };
}

/**
 * What the reader must know of how the callbacks' bodies were read: the encodings they came in
 * (read decoded, signatures checked on the bytes as sent), and the bodies the sink could not read.
 */
export function callbackReadingNotes(evidence: readonly CallbackEvidence[]): string[] {
  const notes: string[] = [];
  const byEncoding = new Map<string, number>();
  for (const callback of evidence)
    if (callback.contentEncoding)
      byEncoding.set(callback.contentEncoding, (byEncoding.get(callback.contentEncoding) ?? 0) + 1);
  if (byEncoding.size > 0) {
    const total = [...byEncoding.values()].reduce((sum, n) => sum + n, 0);
    notes.push(
      `${total} callback(s) came with a Content-Encoding (${[...byEncoding].map(([coding, n]) => `${coding}: ${n}`).join(", ")}): read decoded, their signatures checked on the bytes as sent`,
    );
  }
  const unreadable = evidence.filter((callback) => callback.bodyProblem);
  const [first] = unreadable;
  if (first)
    notes.push(
      `${unreadable.length} callback(s) the sink could not read, answered 4xx and filed under no order; first ${first.id} (HTTP ${first.answeredWith}): ${first.bodyProblem}`,
    );
  return notes;
}

/** A signed duration as a person reads it: "+1.25 s after", "9.61 s before". */
export function relativeToTrigger(ms: number): string {
  return ms < 0 ? `${(-ms / 1000).toFixed(2)} s before the trigger` : `+${(ms / 1000).toFixed(2)} s`;
}
