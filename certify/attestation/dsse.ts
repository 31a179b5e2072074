/**
 * DSSE (Dead Simple Signing Envelope, github.com/secure-systems-lab/dsse, protocol v1): the
 * signature is over the pre-authentication encoding of the payload type and the payload bytes,
 * never over the JSON the envelope is written as.
 */
import { sign, verify } from "node:crypto";
import type { KeyAlgorithm, SigningKey, VerifyKey } from "./keys.ts";

/** The payload type of an in-toto Statement in a DSSE envelope. */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

export interface DsseEnvelope {
  payloadType: string;
  /** Standard base64 of the payload bytes. */
  payload: string;
  signatures: { keyid?: string; sig: string }[];
}

/** PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body; lengths in bytes, decimal. */
export function preAuthEncoding(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, "ascii"),
    type,
    Buffer.from(` ${payload.length} `, "ascii"),
    payload,
  ]);
}

/** Ed25519 signs the message itself; ECDSA P-256 its SHA-256, as an ASN.1 DER signature (cosign's). */
const digestOf = (algorithm: KeyAlgorithm) => (algorithm === "Ed25519" ? null : "sha256");

export function signEnvelope(payload: Buffer, payloadType: string, key: SigningKey): DsseEnvelope {
  const sig = sign(digestOf(key.algorithm), preAuthEncoding(payloadType, payload), key.privateKey);
  return {
    payloadType,
    payload: payload.toString("base64"),
    // An empty keyid, as cosign writes it: a verifier that derives its own keyid (cosign's, an SSH
    // fingerprint) skips a signature whose keyid differs. The statement names the key instead.
    signatures: [{ keyid: "", sig: sig.toString("base64") }],
  };
}

/** Whether any of the envelope's signatures is the key's over its payload. */
export function envelopeSignedBy(envelope: DsseEnvelope, key: VerifyKey): boolean {
  const message = preAuthEncoding(envelope.payloadType, Buffer.from(envelope.payload, "base64"));
  return envelope.signatures.some((signature) => {
    try {
      return verify(digestOf(key.algorithm), message, key.publicKey, Buffer.from(signature.sig, "base64"));
    } catch {
      // A signature of the wrong shape for this key (an ECDSA DER given to Ed25519) is no match.
      return false;
    }
  });
}
