/**
 * The attestation's keys: an Ed25519 or ECDSA P-256 private key (PEM, PKCS#8) signs, its public
 * key (PEM, SPKI) verifies. A key's text never reaches an error message: refusals name where the
 * key came from (a file, or the variable) and what is wrong with it.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { SettingsError } from "../../run-setup/index.ts";

/** A key that cannot be used: names its source and the fix, never its text (a bad setting: exit 64). */
export class AttestationKeyError extends SettingsError {
  override name = "AttestationKeyError";
}

export type KeyAlgorithm = "Ed25519" | "ECDSA P-256";

export interface SigningKey {
  algorithm: KeyAlgorithm;
  privateKey: KeyObject;
  /** The key's id, named in the statement: the SHA-256 of the public key's SPKI DER, in hex. */
  keyid: string;
  /** Where the key came from, as messages name it (a path, or the variable). */
  source: string;
}

export interface VerifyKey {
  algorithm: KeyAlgorithm;
  publicKey: KeyObject;
  keyid: string;
  source: string;
}

const PEM_START = "-----BEGIN ";

/** The key's text: a PEM given in place (a CI secret in the variable), else the file it names. */
async function keyText(value: string, source: string, cwd: string): Promise<{ pem: string; where: string }> {
  if (value.trimStart().startsWith(PEM_START)) return { pem: value, where: source };
  const path = resolve(cwd, value);
  try {
    return { pem: await readFile(path, "utf8"), where: `${source} ${path}` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new AttestationKeyError(
      `${source}: the key file ${path} cannot be read (${code}): give a PEM file`,
    );
  }
}

/** A public key's id: the SHA-256 of its SPKI DER (no key material, and the same for both halves). */
export function keyidOf(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex");
}

function algorithmOf(key: KeyObject, where: string): KeyAlgorithm {
  if (key.asymmetricKeyType === "ed25519") return "Ed25519";
  if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1")
    return "ECDSA P-256";
  const kind =
    key.asymmetricKeyType === "ec"
      ? `an EC key on ${key.asymmetricKeyDetails?.namedCurve ?? "an unknown curve"}`
      : `a${key.asymmetricKeyType === "rsa" ? "n" : ""} ${key.asymmetricKeyType ?? "unknown"} key`;
  throw new AttestationKeyError(
    `${where} holds ${kind}: attestations are signed with Ed25519 or ECDSA P-256 (openssl genpkey -algorithm ed25519 -out attest.pem)`,
  );
}

/** Which PEM block a text holds first, by its label (never the text itself). */
const pemLabel = (pem: string) => /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem)?.[1];

/** The private key to sign with, from H2H_ATTEST_KEY, `--attest` or `--key`: a path, or the PEM itself. */
export async function readSigningKey(value: string, source: string, cwd: string): Promise<SigningKey> {
  const { pem, where } = await keyText(value, source, cwd);
  const label = pemLabel(pem);
  if (label === "PUBLIC KEY")
    throw new AttestationKeyError(
      `${where} holds a public key: signing needs the private key (the public one is for verify)`,
    );
  if (label === "ENCRYPTED PRIVATE KEY")
    throw new AttestationKeyError(
      `${where} holds an encrypted key: give it unencrypted, in a file only the run can read (openssl pkcs8 -topk8 -nocrypt -in KEY -out attest.pem)`,
    );
  if (label !== "PRIVATE KEY")
    throw new AttestationKeyError(
      `${where} holds ${label === undefined ? "no PEM block" : `a "${label}" block`}: give a PKCS#8 private key ("-----BEGIN PRIVATE KEY-----"; openssl pkcs8 -topk8 -nocrypt -in KEY -out attest.pem converts one)`,
    );
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    throw new AttestationKeyError(
      `${where} holds a PRIVATE KEY block that does not parse: give a PKCS#8 PEM key`,
    );
  }
  const algorithm = algorithmOf(privateKey, where);
  return { algorithm, privateKey, keyid: keyidOf(createPublicKey(privateKey)), source: where };
}

/** The public key to verify with (`verify --key`): a path to a PEM SPKI key. */
export async function readVerifyKey(value: string, source: string, cwd: string): Promise<VerifyKey> {
  const { pem, where } = await keyText(value, source, cwd);
  const label = pemLabel(pem);
  if (label === "PRIVATE KEY" || label === "ENCRYPTED PRIVATE KEY" || label?.endsWith(" PRIVATE KEY"))
    throw new AttestationKeyError(
      `${where} holds a private key: verify needs only the public key (openssl pkey -in KEY -pubout -out attest.pub.pem); keep the private key to the signer`,
    );
  if (label !== "PUBLIC KEY")
    throw new AttestationKeyError(
      `${where} holds ${label === undefined ? "no PEM block" : `a "${label}" block`}: give the public key ("-----BEGIN PUBLIC KEY-----")`,
    );
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: pem, format: "pem" });
  } catch {
    throw new AttestationKeyError(
      `${where} holds a PUBLIC KEY block that does not parse: give a PEM (SPKI) key`,
    );
  }
  const algorithm = algorithmOf(publicKey, where);
  return { algorithm, publicKey, keyid: keyidOf(publicKey), source: where };
}
