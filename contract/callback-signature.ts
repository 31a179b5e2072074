/**
 * Callback signatures. The seed shows no scheme (§6 gap); a target's profile names its own (the
 * reference provider's is in its profile, fixtures/profiles/reference.json): an HMAC-SHA256 of the
 * raw body bytes under the callback secret, in a header, with a prefix, hex or base64.
 * Verification compares in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export type SignatureScheme =
  | { scheme: "none" }
  | { scheme: "hmac-sha256"; header: string; prefix: string; encoding: "hex" | "base64" };

export type HmacScheme = Extract<SignatureScheme, { scheme: "hmac-sha256" }>;

/** The header value for a raw body under a scheme. */
export function signCallbackBody(rawBody: Uint8Array | string, secret: string, scheme: HmacScheme): string {
  return scheme.prefix + createHmac("sha256", secret).update(rawBody).digest(scheme.encoding);
}

export type SignatureVerdict =
  | { valid: true }
  | { valid: false; reason: "missing" | "malformed" | "mismatch" };

/** Verifies a header value against the raw body, comparing in constant time. */
export function verifyCallbackSignature(
  rawBody: Uint8Array | string,
  headerValue: string | undefined,
  secret: string,
  scheme: HmacScheme,
): SignatureVerdict {
  if (headerValue === undefined || headerValue === "") return { valid: false, reason: "missing" };
  if (!headerValue.startsWith(scheme.prefix)) return { valid: false, reason: "malformed" };
  const digest = headerValue.slice(scheme.prefix.length);
  const wellFormed =
    scheme.encoding === "hex" ? /^[0-9a-f]{64}$/i.test(digest) : /^[A-Za-z0-9+/]{43}=$/.test(digest);
  if (!wellFormed) return { valid: false, reason: "malformed" };
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  const received = Buffer.from(digest, scheme.encoding);
  return received.length === expected.length && timingSafeEqual(expected, received)
    ? { valid: true }
    : { valid: false, reason: "mismatch" };
}
