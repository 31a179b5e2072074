/**
 * The reference callback signature scheme (DESIGN §3): header `X-Signature: sha256=<hex>`, the
 * hex HMAC-SHA256 of the raw body bytes under the callback secret. The seed shows no scheme
 * (§6 gap); a foreign target's scheme comes from its profile.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const REFERENCE_SIGNATURE_HEADER = "x-signature";
const PREFIX = "sha256=";

/** The header value for a raw body. */
export function signCallbackBody(rawBody: Uint8Array | string, secret: string): string {
  return PREFIX + createHmac("sha256", secret).update(rawBody).digest("hex");
}

export type SignatureVerdict =
  | { valid: true }
  | { valid: false; reason: "missing" | "malformed" | "mismatch" };

/** Verifies a header value against the raw body, comparing in constant time. */
export function verifyCallbackSignature(
  rawBody: Uint8Array | string,
  headerValue: string | undefined,
  secret: string,
): SignatureVerdict {
  if (headerValue === undefined || headerValue === "") return { valid: false, reason: "missing" };
  if (!/^sha256=[0-9a-f]{64}$/i.test(headerValue)) return { valid: false, reason: "malformed" };
  const expected = Buffer.from(signCallbackBody(rawBody, secret).slice(PREFIX.length), "hex");
  const received = Buffer.from(headerValue.slice(PREFIX.length), "hex");
  return timingSafeEqual(expected, received) ? { valid: true } : { valid: false, reason: "mismatch" };
}
