/**
 * The TLS folder a load run gives k6, with certificates made by openssl in the test: a CA
 * bundle of Node's roots plus H2H_CA_FILE's certificates (for SSL_CERT_FILE), the client
 * certificate and key for tlsAuth, an encrypted PKCS#8 key re-encrypted into the PEM form k6 reads,
 * and the passphrase passed in k6's environment, never on its command line.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import { beforeAll, describe, expect, it } from "vitest";
import { readTlsFiles } from "../../contract/kit/index.ts";
import {
  type CertificateFactory,
  certificateFactory,
  OPENSSL_MISSING,
} from "../../fixtures/testing/certificates.ts";
import { fileTimeout } from "../../fixtures/testing/index.ts";
import { K6_TLS_FILES, k6TlsEnv, prepareK6Tls } from "./k6-tls.ts";

fileTimeout(60_000);

const title = `the k6 TLS folder${OPENSSL_MISSING ? ` (skipped: ${OPENSSL_MISSING})` : ""}`;
let certs: CertificateFactory;
const PASSPHRASE = "k6-pass-phrase";

beforeAll(() => {
  if (OPENSSL_MISSING) return;
  certs = certificateFactory();
  certs.ca("ca");
  certs.ca("ca2");
  certs.cert("client", "ca");
  certs.encryptKey("client", PASSPHRASE);
});

const newDir = () => join(mkdtempSync(join(tmpdir(), "h2h-k6-tls-")), "tls");

describe.skipIf(OPENSSL_MISSING !== undefined)(title, () => {
  it("writes a CA bundle of Node's roots and the H2H_CA_FILE certificates, for SSL_CERT_FILE", async () => {
    const material = readTlsFiles({ caFiles: [certs.file("ca", "pem")] });
    const tls = await prepareK6Tls(material, newDir());
    expect(tls).toMatchObject({ caBundle: true, clientCertificate: false });
    const bundle = readFileSync(join(tls?.dir as string, K6_TLS_FILES.caBundle), "utf8");
    const count = bundle.match(/-----BEGIN CERTIFICATE-----/g)?.length;
    expect(count).toBe(rootCertificates.length + 1);
    expect(bundle).toContain(readFileSync(certs.file("ca", "pem"), "utf8").trim());
    expect(k6TlsEnv(tls, "/tls")).toEqual({
      scriptEnv: {},
      processEnv: { SSL_CERT_FILE: `/tls/${K6_TLS_FILES.caBundle}` },
    });
  });

  it("keeps every certificate of a CA file that holds several", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-k6-tls-"));
    const both = join(dir, "both.pem");
    writeFileSync(
      both,
      readFileSync(certs.file("ca", "pem"), "utf8") + readFileSync(certs.file("ca2", "pem"), "utf8"),
    );
    const tls = await prepareK6Tls(readTlsFiles({ caFiles: [both] }), join(dir, "tls"));
    const bundle = readFileSync(join(tls?.dir as string, K6_TLS_FILES.caBundle), "utf8");
    expect(bundle.match(/-----BEGIN CERTIFICATE-----/g)?.length).toBe(rootCertificates.length + 2);
  });

  it("hands k6 the client certificate and key (private files) through the script's variables", async () => {
    const material = readTlsFiles({
      certFile: certs.file("client", "pem"),
      keyFile: certs.file("client", "key"),
    });
    const tls = await prepareK6Tls(material, newDir());
    const dir = tls?.dir as string;
    expect(readFileSync(join(dir, K6_TLS_FILES.cert), "utf8")).toBe(material.cert);
    expect(readFileSync(join(dir, K6_TLS_FILES.key), "utf8")).toBe(material.key);
    expect(statSync(join(dir, K6_TLS_FILES.key)).mode & 0o077).toBe(0);
    expect(statSync(dir).mode & 0o077).toBe(0);
    expect(k6TlsEnv(tls, dir)).toEqual({
      scriptEnv: {
        H2H_CLIENT_CERT: join(dir, K6_TLS_FILES.cert),
        H2H_CLIENT_KEY: join(dir, K6_TLS_FILES.key),
      },
      processEnv: {},
    });
  });

  it("re-encrypts an encrypted PKCS#8 key into the PEM form k6 reads, with the same passphrase, and passes the passphrase in the environment only", async () => {
    const material = readTlsFiles({
      certFile: certs.file("client", "pem"),
      keyFile: certs.file("client", "enc.key"),
      passphrase: PASSPHRASE,
    });
    expect(material.key).toContain("BEGIN ENCRYPTED PRIVATE KEY");
    const tls = await prepareK6Tls(material, newDir());
    const key = readFileSync(join(tls?.dir as string, K6_TLS_FILES.key), "utf8");
    expect(key).toContain("Proc-Type: 4,ENCRYPTED");
    expect(key).not.toContain("BEGIN ENCRYPTED PRIVATE KEY");
    expect(() => createPrivateKey(key)).toThrow(); // never written unencrypted
    const decrypted = createPrivateKey({ key, passphrase: PASSPHRASE });
    expect(new X509Certificate(material.cert as string).checkPrivateKey(decrypted)).toBe(true);
    const env = k6TlsEnv(tls, "/tls");
    expect(env.processEnv).toEqual({ H2H_CLIENT_KEY_PASSPHRASE: PASSPHRASE });
    expect(JSON.stringify(env.scriptEnv)).not.toContain(PASSPHRASE);
  });

  it("writes nothing without TLS settings", async () => {
    expect(await prepareK6Tls(undefined, newDir())).toBeUndefined();
    expect(k6TlsEnv(undefined, "/tls")).toEqual({ scriptEnv: {}, processEnv: {} });
  });
});
