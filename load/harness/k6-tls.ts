/**
 * TLS for load runs: the run's H2H_CA_FILE, H2H_CLIENT_CERT, H2H_CLIENT_KEY and
 * H2H_CLIENT_KEY_PASSPHRASE as k6 can use them, in a private folder of the run's work directory
 * (removed with it):
 *
 * - k6 has no option for extra trusted CAs, but it is a Go program: Go reads SSL_CERT_FILE. The
 *   folder gets a CA bundle of Node's root certificates plus the H2H_CA_FILE ones, and k6 runs with
 *   SSL_CERT_FILE pointing at it (which replaces the system's store for k6: hence Node's roots too).
 * - The client certificate and key go to the script's config (H2H_CLIENT_CERT, H2H_CLIENT_KEY: the
 *   script reads them with open() into k6's tlsAuth), the passphrase through k6's environment,
 *   never its command line. k6 cannot read an encrypted PKCS#8 key ("BEGIN ENCRYPTED PRIVATE KEY"),
 *   only the traditional encrypted PEM: such a key is re-encrypted, with the same passphrase,
 *   into that form. The key is never written unencrypted when it was not.
 */
import { createPrivateKey } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import type { TlsMaterial } from "../../contract/kit/index.ts";
import { SettingsError } from "../../run-setup/index.ts";
import { IN_CONTAINER } from "./k6-container.ts";

/** Where the TLS folder is mounted in k6's container (k6-container.ts). */
export const K6_TLS_IN_CONTAINER = IN_CONTAINER.tlsDir;

export const K6_TLS_FILES = { caBundle: "ca-bundle.pem", cert: "client.pem", key: "client.key" } as const;

/** The TLS folder of a load run: which of its files exist, and the key's passphrase. */
export interface K6Tls {
  dir: string;
  caBundle: boolean;
  clientCertificate: boolean;
  passphrase: string | undefined;
}

/** What k6 is given for a TLS folder at `dir` (the local folder, or where it is mounted). */
export function k6TlsEnv(
  tls: K6Tls | undefined,
  dir: string,
): { scriptEnv: Record<string, string>; processEnv: Record<string, string> } {
  const scriptEnv: Record<string, string> = {};
  const processEnv: Record<string, string> = {};
  if (!tls) return { scriptEnv, processEnv };
  if (tls.caBundle) processEnv.SSL_CERT_FILE = `${dir}/${K6_TLS_FILES.caBundle}`;
  if (tls.clientCertificate) {
    scriptEnv.H2H_CLIENT_CERT = `${dir}/${K6_TLS_FILES.cert}`;
    scriptEnv.H2H_CLIENT_KEY = `${dir}/${K6_TLS_FILES.key}`;
    // In the environment, not on the command line (-e) where any process listing shows it.
    if (tls.passphrase !== undefined) processEnv.H2H_CLIENT_KEY_PASSPHRASE = tls.passphrase;
  }
  return { scriptEnv, processEnv };
}

/** A key as k6 can read it: unencrypted as given, or in the traditional encrypted PEM form. */
export function keyForK6(
  material: Required<Pick<TlsMaterial, "key">> & TlsMaterial,
  keyFile: string,
): string {
  if (!/-----BEGIN ENCRYPTED PRIVATE KEY-----/.test(material.key) || material.passphrase === undefined)
    return material.key;
  const key = createPrivateKey({ key: material.key, passphrase: material.passphrase });
  const type =
    key.asymmetricKeyType === "ec" ? "sec1" : key.asymmetricKeyType === "rsa" ? "pkcs1" : undefined;
  if (type === undefined) {
    throw new SettingsError(
      `client key (H2H_CLIENT_KEY) ${keyFile} is an encrypted ${key.asymmetricKeyType} key: k6 reads encrypted keys only ` +
        "in the traditional PEM form, for RSA and EC keys; give k6 an RSA or EC key, or an unencrypted one",
    );
  }
  return key.export({
    format: "pem",
    type,
    cipher: "aes-256-cbc",
    passphrase: material.passphrase,
  }) as string;
}

/** Writes the TLS folder of a load run into `dir` (created, private); undefined without TLS settings. */
export async function prepareK6Tls(
  material: TlsMaterial | undefined,
  dir: string,
  keyFile = "H2H_CLIENT_KEY",
): Promise<K6Tls | undefined> {
  if (!material) return undefined;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tls: K6Tls = { dir, caBundle: false, clientCertificate: false, passphrase: undefined };
  if (material.ca && material.ca.length > 0) {
    const bundle = [...rootCertificates, ...material.ca].map((pem) => pem.trim()).join("\n");
    await writeFile(join(dir, K6_TLS_FILES.caBundle), `${bundle}\n`, { mode: 0o644 });
    tls.caBundle = true;
  }
  if (material.cert !== undefined && material.key !== undefined) {
    await writeFile(join(dir, K6_TLS_FILES.cert), material.cert, { mode: 0o600 });
    await writeFile(join(dir, K6_TLS_FILES.key), keyForK6({ ...material, key: material.key }, keyFile), {
      mode: 0o600,
    });
    tls.clientCertificate = true;
    tls.passphrase = material.passphrase;
  }
  return tls;
}
