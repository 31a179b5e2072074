/**
 * Callback signatures. The API description shows no scheme (§6 gap); a target's profile names its own (the
 * reference provider's is in its profile, fixtures/profiles/reference.json): an HMAC-SHA256 of the
 * raw body bytes under the callback secret, in a header, with a prefix, hex or base64.
 * Verification compares in constant time.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

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

/**
 * Why a signature failed, as a provider's engineer needs it: the scheme as the profile declares
 * it, the header and value received, and what the suite computed, over which bytes, under which
 * secret: named, with its length, never its value.
 */
export interface SignatureExplanation {
  verdict: Extract<SignatureVerdict, { valid: false }>["reason"];
  /** The profile's scheme in words. */
  scheme: string;
  header: string;
  /** The header's value as received; null when it was absent. */
  received: string | null;
  /** The header value the suite computed for these bytes. */
  computed: string;
  /** The bytes signed: the raw body as received, its length and SHA-256. */
  signedOver: string;
  /** The secret signed with: its name and length, never its value. */
  signedWith: string;
}

/** The most of a received header value an explanation keeps. */
const RECEIVED_MAX = 200;

export function explainCallbackSignature(
  rawBody: Uint8Array | string,
  headerValue: string | undefined,
  secret: string,
  secretName: string,
  scheme: HmacScheme,
): SignatureExplanation | undefined {
  const verdict = verifyCallbackSignature(rawBody, headerValue, secret, scheme);
  if (verdict.valid) return undefined;
  const bytes = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody;
  const received =
    headerValue === undefined
      ? null
      : headerValue.length > RECEIVED_MAX
        ? `${headerValue.slice(0, RECEIVED_MAX)}… (${headerValue.length} characters)`
        : headerValue;
  return {
    verdict: verdict.reason,
    scheme: `HMAC-SHA256, header ${scheme.header}, prefix ${JSON.stringify(scheme.prefix)}, ${scheme.encoding} digest`,
    header: scheme.header,
    received,
    computed: signCallbackBody(bytes, secret, scheme),
    signedOver: `the raw body as received, ${bytes.length} bytes (SHA-256 ${createHash("sha256").update(bytes).digest("hex")})`,
    signedWith: `${secretName} (${[...secret].length} characters)`,
  };
}
