import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { explainCallbackSignature, signCallbackBody, verifyCallbackSignature } from "./callback-signature.ts";

const body = '{"id":"o-1","status":"succeeded"}';
/** The reference provider's scheme, as its profile states it. */
const SHA256_HEX = {
  scheme: "hmac-sha256",
  header: "X-Signature",
  prefix: "sha256=",
  encoding: "hex",
} as const;

describe("callback signatures", () => {
  it("verifies a prefixed hex scheme and refuses another secret, a missing and a malformed header", () => {
    const header = signCallbackBody(body, "s3cret", SHA256_HEX);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyCallbackSignature(body, header, "s3cret", SHA256_HEX)).toEqual({ valid: true });
    expect(verifyCallbackSignature(body, header, "other", SHA256_HEX)).toEqual({
      valid: false,
      reason: "mismatch",
    });
    expect(verifyCallbackSignature(`${body} `, header, "s3cret", SHA256_HEX)).toEqual({
      valid: false,
      reason: "mismatch",
    });
    expect(verifyCallbackSignature(body, undefined, "s3cret", SHA256_HEX)).toEqual({
      valid: false,
      reason: "missing",
    });
    expect(verifyCallbackSignature(body, "sha256=zz", "s3cret", SHA256_HEX)).toEqual({
      valid: false,
      reason: "malformed",
    });
    expect(verifyCallbackSignature(body, header.replace("sha256=", "sha1="), "s3cret", SHA256_HEX)).toEqual({
      valid: false,
      reason: "malformed",
    });
  });

  it("supports a base64 scheme without a prefix", () => {
    const scheme = {
      scheme: "hmac-sha256",
      header: "X-Acme-Signature",
      prefix: "",
      encoding: "base64",
    } as const;
    const header = signCallbackBody(body, "k", scheme);
    expect(verifyCallbackSignature(body, header, "k", scheme)).toEqual({ valid: true });
    expect(verifyCallbackSignature(body, header, "j", scheme)).toEqual({ valid: false, reason: "mismatch" });
  });
});

describe("a failed signature, explained", () => {
  const secret = "s3cret-callback-key";
  const wrong = signCallbackBody(body, "another-secret", SHA256_HEX);

  it("gives the scheme, the value received, the one computed over which bytes, and the secret's name and length only", () => {
    const explained = explainCallbackSignature(body, wrong, secret, "H2H_CALLBACK_SECRET", SHA256_HEX);
    expect(explained).toEqual({
      verdict: "mismatch",
      scheme: 'HMAC-SHA256, header X-Signature, prefix "sha256=", hex digest',
      header: "X-Signature",
      received: wrong,
      computed: signCallbackBody(body, secret, SHA256_HEX),
      signedOver: `the raw body as received, ${Buffer.byteLength(body)} bytes (SHA-256 ${createHash("sha256").update(body).digest("hex")})`,
      signedWith: `H2H_CALLBACK_SECRET (${secret.length} characters)`,
    });
    expect(JSON.stringify(explained)).not.toContain(secret);
  });

  it("says a missing header is absent, and explains nothing when the signature verifies", () => {
    expect(explainCallbackSignature(body, undefined, secret, "S", SHA256_HEX)).toMatchObject({
      verdict: "missing",
      received: null,
    });
    const right = signCallbackBody(body, secret, SHA256_HEX);
    expect(explainCallbackSignature(body, right, secret, "S", SHA256_HEX)).toBeUndefined();
  });
});
