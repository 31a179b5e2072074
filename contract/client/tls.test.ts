/**
 * TLS and mTLS against local HTTPS targets, with certificates made by `openssl` in the test:
 * a CA, a server certificate for 127.0.0.1, a client certificate the server requires, and the
 * ways it goes wrong (no client certificate, one from another CA, an untrusted server, a name
 * mismatch, an expired certificate).
 */
import { createPrivateKey } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CertificateFactory,
  certificateFactory,
  OPENSSL_MISSING,
} from "../../fixtures/testing/certificates.ts";
import { fileTimeout } from "../../fixtures/testing/index.ts";
import { readTlsFiles, TlsConfigError, type TlsMaterial, tlsConnectOptions } from "../kit/index.ts";
import { H2hClient, TransportError } from "./h2h-client.ts";

fileTimeout(60_000);

const title = `TLS and mTLS against a local HTTPS target${OPENSSL_MISSING ? ` (skipped: ${OPENSSL_MISSING})` : ""}`;
let certs: CertificateFactory;
const file = (name: string) => {
  const [base, ...rest] = name.split(".");
  return certs.file(base as string, rest.join(".") as "pem" | "key" | "enc.key");
};

const servers: Server[] = [];
async function serve(cert: string, options: { requireClientCert: boolean }): Promise<string> {
  const server = createServer(
    {
      key: readFileSync(file(`${cert}.key`)),
      cert: readFileSync(file(`${cert}.pem`)),
      ca: [readFileSync(file("ca.pem"))],
      requestCert: options.requireClientCert,
      rejectUnauthorized: options.requireClientCert,
    },
    (req, res) => {
      req.resume();
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ client: peer?.subject?.CN ?? null }));
    },
  );
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let mtlsUrl = "";
let wrongNameUrl = "";
let expiredUrl = "";
let trusted: TlsMaterial = {};

beforeAll(async () => {
  if (OPENSSL_MISSING) return;
  certs = certificateFactory();
  certs.ca("ca");
  certs.ca("rogue-ca");
  certs.cert("server", "ca", { san: "IP:127.0.0.1,DNS:localhost" });
  certs.cert("other-name", "ca", { san: "DNS:other.example" });
  certs.cert("expired", "ca", { san: "IP:127.0.0.1", days: -1 });
  certs.cert("client", "ca");
  certs.cert("rogue-client", "rogue-ca");
  certs.encryptKey("client", "hunter2");
  mtlsUrl = await serve("server", { requireClientCert: true });
  wrongNameUrl = await serve("other-name", { requireClientCert: false });
  expiredUrl = await serve("expired", { requireClientCert: false });
  trusted = readTlsFiles({ caFiles: [file("ca.pem")] });
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function call(url: string, tls: TlsMaterial | undefined) {
  const client = new H2hClient({ baseUrl: url, apiKey: "k", timeoutMs: 5_000, ...(tls ? { tls } : {}) });
  try {
    return await client.post("/x", {});
  } finally {
    await client.close();
  }
}

async function failure(url: string, tls: TlsMaterial | undefined): Promise<TransportError> {
  const error = await call(url, tls).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TransportError);
  return error as TransportError;
}

describe.skipIf(OPENSSL_MISSING !== undefined)(title, () => {
  it("talks to an mTLS target with the CA and a client certificate", async () => {
    const tls = readTlsFiles({
      caFiles: [file("ca.pem")],
      certFile: file("client.pem"),
      keyFile: file("client.key"),
    });
    const exchange = await call(mtlsUrl, tls);
    expect(exchange.response.status).toBe(200);
    expect(exchange.response.json).toEqual({ client: "client" });
  });

  it("uses an encrypted client key with its passphrase", async () => {
    const tls = readTlsFiles({
      caFiles: [file("ca.pem")],
      certFile: file("client.pem"),
      keyFile: file("client.enc.key"),
      passphrase: "hunter2",
    });
    expect((await call(mtlsUrl, tls)).response.status).toBe(200);
  });

  it("makes one secure context per TLS material, shared by every client and connection", () => {
    const tls = readTlsFiles({
      caFiles: [file("ca.pem")],
      certFile: file("client.pem"),
      keyFile: file("client.key"),
    });
    const first = tlsConnectOptions(tls);
    expect(first.secureContext).toBeDefined();
    expect(first).toMatchObject({ rejectUnauthorized: true });
    expect(tlsConnectOptions(tls).secureContext).toBe(first.secureContext);
    // The CA and key go into the context, not into each connection's options.
    expect(first).not.toHaveProperty("ca");
    expect(first).not.toHaveProperty("key");
    expect(tlsConnectOptions({ ...tls }).secureContext).not.toBe(first.secureContext);
  });

  it("names a missing client certificate, with the URL", async () => {
    const error = await failure(mtlsUrl, trusted);
    expect(error.tls?.problem).toBe("client-certificate-required");
    expect(error.message).toContain(mtlsUrl);
    expect(error.message).toMatch(/client certificate/);
  });

  it("names a client certificate the target refuses (issued by a CA it does not trust)", async () => {
    const tls = readTlsFiles({
      caFiles: [file("ca.pem")],
      certFile: file("rogue-client.pem"),
      keyFile: file("rogue-client.key"),
    });
    const error = await failure(mtlsUrl, tls);
    expect(error.tls?.problem).toBe("client-certificate-refused");
    expect(error.message).toMatch(/refused the certificate/);
  });

  it("names a target whose CA is unknown, and says how to trust it", async () => {
    const error = await failure(mtlsUrl, undefined);
    expect(error.tls?.problem).toBe("unknown-ca");
    expect(error.message).toContain(mtlsUrl);
    expect(error.message).toMatch(/unknown CA.*H2H_CA_FILE/);
  });

  it("names a certificate issued for another host", async () => {
    const error = await failure(wrongNameUrl, trusted);
    expect(error.tls?.problem).toBe("hostname-mismatch");
  });

  it("names an expired certificate", async () => {
    const error = await failure(expiredUrl, trusted);
    expect(error.tls?.problem).toBe("expired");
  });

  it("keeps verifying when NODE_TLS_REJECT_UNAUTHORIZED=0 is set", async () => {
    const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    try {
      expect((await failure(wrongNameUrl, undefined)).tls?.problem).toBe("unknown-ca");
    } finally {
      if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
    }
  });

  it("checks TLS files before any request, naming the file and the fix", () => {
    const attempt = (files: Parameters<typeof readTlsFiles>[0]) => {
      try {
        readTlsFiles(files);
      } catch (error) {
        expect(error).toBeInstanceOf(TlsConfigError);
        return (error as Error).message;
      }
      throw new Error("expected a TlsConfigError");
    };
    expect(attempt({ caFiles: [file("missing.pem")] })).toMatch(
      /CA file \(H2H_CA_FILE\) .*missing\.pem cannot be read: ENOENT/,
    );
    expect(attempt({ caFiles: [file("client.key")] })).toMatch(/holds no PEM certificate/);
    expect(attempt({ certFile: file("client.pem") })).toMatch(/without a client key \(H2H_CLIENT_KEY\)/);
    expect(attempt({ certFile: file("client.pem"), keyFile: file("server.key") })).toMatch(
      /do not belong together/,
    );
    expect(attempt({ certFile: file("client.pem"), keyFile: file("client.enc.key") })).toMatch(
      /is encrypted: set the client key passphrase \(H2H_CLIENT_KEY_PASSPHRASE\)/,
    );
    expect(
      attempt({ certFile: file("client.pem"), keyFile: file("client.enc.key"), passphrase: "wrong" }),
    ).toMatch(/passphrase \(H2H_CLIENT_KEY_PASSPHRASE\) is wrong/);
    expect(attempt({ certFile: file("expired.pem"), keyFile: file("expired.key") })).toMatch(/expired on/);
  });

  it("says a key encrypted with a cipher Node.js does not support (old DES export) is that, not a wrong passphrase", () => {
    // A throwaway P-256 key: openssl pkcs8 -topk8 -v1 PBE-MD5-DES -passout pass:right-one (legacy provider).
    const pem = [
      "-----BEGIN ENCRYPTED PRIVATE KEY-----",
      "MIGwMBsGCSqGSIb3DQEFAzAOBAhzJEf5azWxdQICCAAEgZCa91zUWghnSmIRS+ZK",
      "OxwQpaG5pUjskShnbo73XrueorOzoNGJtYEFWXnBkSm4VAQBT4aVx5QQp+VKhugH",
      "JMdIiCBacNKlIBPOTXU1KzxxnrN4ja0Dmz89kr9eeuwzf44/8340hWvr/kzIegsT",
      "LHU7QDCTgRO9mZN3DXiWL+kxq3ogN3eP5p3c3jFtGZwPUEU=",
      "-----END ENCRYPTED PRIVATE KEY-----",
      "",
    ].join("\n");
    const dir = mkdtempSync(join(tmpdir(), "h2h-tls-key-"));
    try {
      const keyFile = join(dir, "old-des.key");
      writeFileSync(keyFile, pem);
      expect(() => readTlsFiles({ certFile: file("client.pem"), keyFile, passphrase: "right-one" })).toThrow(
        /old-des\.key is encrypted with a cipher this Node\.js does not support .*re-encrypt it with AES/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names a wrong passphrase even when OpenSSL reports an undecodable key instead of a bad decrypt", () => {
    // A throwaway P-256 key encrypted with "right-one" (AES-256-CBC), picked out of a few hundred
    // because "wrong-one" decrypts it to bytes whose padding happens to be valid. OpenSSL then
    // says "DECODER routines::unsupported", not "bad decrypt": CI once met this by chance.
    const pem = [
      "-----BEGIN ENCRYPTED PRIVATE KEY-----",
      "MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjYydfGGGbnWwICCAAw",
      "DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEEOQY5ulX98NCOqQ0edemtcEgZDd",
      "R9KsIymwua/oj5vEOELKtW3KDj5BNKWzJwiPFkfB/qxzfyVi867jMF6UY/IGJBqT",
      "tT2vThnLV/tWAnaHwYmTiU2dQVVPpA9D4VuuHf1dwganWJomHjMqc1sIB2W2LK0e",
      "k7aj9aBQZzl/JoEjjVkG8f8cpr/qB2pWvh0fAJ8c2Tlxwq4R+Om27Y+txR47V5M=",
      "-----END ENCRYPTED PRIVATE KEY-----",
      "",
    ].join("\n");
    const dir = mkdtempSync(join(tmpdir(), "h2h-tls-key-"));
    try {
      const keyFile = join(dir, "unlucky.enc.key");
      writeFileSync(keyFile, pem);
      // The premise: OpenSSL's own message for this pair does not say "decrypt".
      expect(() => createPrivateKey({ key: pem, passphrase: "wrong-one" })).toThrow(
        /DECODER routines::unsupported/,
      );
      expect(() => createPrivateKey({ key: pem, passphrase: "right-one" })).not.toThrow();
      const message = (() => {
        try {
          readTlsFiles({ certFile: file("client.pem"), keyFile, passphrase: "wrong-one" });
        } catch (error) {
          expect(error).toBeInstanceOf(TlsConfigError);
          return (error as Error).message;
        }
        throw new Error("expected a TlsConfigError");
      })();
      expect(message).toMatch(
        /unlucky\.enc\.key: the client key passphrase \(H2H_CLIENT_KEY_PASSPHRASE\) is wrong/,
      );
      expect(message).not.toContain("wrong-one");
      // An unencrypted file that does not parse stays "not a PEM private key", passphrase or not.
      writeFileSync(keyFile, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
      expect(() => readTlsFiles({ certFile: file("client.pem"), keyFile, passphrase: "wrong-one" })).toThrow(
        /is not a PEM private key/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
