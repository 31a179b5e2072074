/**
 * TLS: a certification of the reference provider served over HTTPS that requires a client
 * certificate, with certificates made by `openssl` in the test. Green with H2H_CA_FILE +
 * H2H_CLIENT_CERT + H2H_CLIENT_KEY (and a passphrase); without the client certificate, or without
 * the CA, the cause is named and the run is "not run" (exit 2), not 1. Bad TLS files are refused
 * before the first request (exit 64), naming the variable and the path.
 *
 * The runs are in this process, one Vitest for them all: what is judged is the same as the CLI's,
 * without a child's start-up each. One refusal goes through `npm run certify` as a child, for the
 * exit code and the console a user sees.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import {
  type CertificateFactory,
  certificateFactory,
  OPENSSL_MISSING,
} from "../fixtures/testing/certificates.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { SettingsError } from "../run-setup/index.ts";
import { REPORT_FILES, REPORT_KINDS } from "./reports/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";
import { spawnCertify } from "./testing/spawn-certify.ts";

fileTimeout(120_000);

const title = `certify against an mTLS target${OPENSSL_MISSING ? ` (skipped: ${OPENSSL_MISSING})` : ""}`;
const PASSPHRASE = "correct-horse-battery-7";

let certs: CertificateFactory;
let provider: RunningReferenceProvider | undefined;
const specRunner = sharedSpecRunner();

beforeAll(async () => {
  if (OPENSSL_MISSING) return;
  certs = certificateFactory();
  certs.ca("ca");
  certs.cert("server", "ca", { san: "IP:127.0.0.1,DNS:localhost" });
  certs.cert("client", "ca");
  certs.cert("other", "ca");
  certs.encryptKey("client", PASSPHRASE);
  provider = await startReferenceProvider(
    { port: 0 },
    {
      tls: {
        key: readFileSync(certs.file("server", "key")),
        cert: readFileSync(certs.file("server", "pem")),
        ca: [readFileSync(certs.file("ca", "pem"))],
        requestCert: true,
        rejectUnauthorized: true,
      },
    },
  );
});

afterAll(async () => {
  await specRunner.close();
  await provider?.stop();
});

/** The variables of a run against the mTLS provider; `tls` is laid over the full set. */
function env(tls: Record<string, string | undefined>): Record<string, string> {
  const all: Record<string, string | undefined> = {
    H2H_BASE_URL: (provider as RunningReferenceProvider).url,
    H2H_CA_FILE: certs.file("ca", "pem"),
    H2H_CLIENT_CERT: certs.file("client", "pem"),
    H2H_CLIENT_KEY: certs.file("client", "key"),
    ...tls,
  };
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
}

/** `KEY:name` and `ENC:name` as the paths of the test's key files (plain, encrypted). */
function keyFiles(tls: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(tls).map(([name, value]) => [
      name,
      value?.startsWith("KEY:")
        ? certs.file(value.slice(4), "key")
        : value?.startsWith("ENC:")
          ? certs.file(value.slice(4), "enc.key")
          : value,
    ]),
  );
}

describe.skipIf(OPENSSL_MISSING !== undefined)(title, () => {
  it("is CONFORMANT (exit 0) with H2H_CA_FILE, H2H_CLIENT_CERT, H2H_CLIENT_KEY and its passphrase, and the report names them", async () => {
    const {
      exitCode,
      output,
      report,
      reportDir: dir,
    } = await certifyInProcess(
      env({ H2H_CLIENT_KEY: certs.file("client", "enc.key"), H2H_CLIENT_KEY_PASSPHRASE: PASSPHRASE }),
      { specRunner: specRunner.run, reports: REPORT_KINDS },
    );
    expect(exitCode, output).toBe(0);
    expect(output).toContain("verdict: CONFORMANT");
    expect(output).toMatch(/TLS: client certificate .*client\.pem: CN=client \(issued by CN=ca\), valid to /);
    expect(report.verdict).toBe("conformant");
    expect(report.target.tls).toMatchObject({
      caFile: certs.file("ca", "pem"),
      caCertificates: [{ subject: "CN=ca" }],
      clientCert: certs.file("client", "pem"),
      clientCertificate: { subject: "CN=client", issuer: "CN=ca" },
      clientKey: certs.file("client", "enc.key"),
      passphrase: true,
    });
    // The HTML says which TLS settings were used; no report and no console line holds the
    // passphrase or any key material.
    expect(readFileSync(join(dir, REPORT_FILES.html), "utf8")).toContain("TLS: trusted CA file");
    const keyBody = (name: string) =>
      readFileSync(name, "utf8")
        .split("\n")
        .filter((line) => line !== "" && !line.startsWith("-----"))[0] as string;
    for (const [name, text] of [
      ...Object.values(REPORT_FILES).map((f) => [f, readFileSync(join(dir, f), "utf8")]),
      ["console", output],
    ] as [string, string][]) {
      expect(text.includes(PASSPHRASE), `${name} holds the passphrase`).toBe(false);
      expect(text.includes(keyBody(certs.file("client", "key"))), `${name} holds the key`).toBe(false);
      expect(text.includes(keyBody(certs.file("client", "enc.key"))), `${name} holds the key`).toBe(false);
      expect(text.includes("PRIVATE KEY"), `${name} holds a key`).toBe(false);
    }
  });

  it("names a missing client certificate and exits 2 (could not judge), not 1", async () => {
    const { exitCode, output, report } = await certifyInProcess(
      env({ H2H_CLIENT_CERT: undefined, H2H_CLIENT_KEY: undefined }),
      { specRunner: specRunner.run },
    );
    expect(exitCode, output).toBe(2);
    expect(output).toMatch(/cannot reach the target: .*client-certificate-required/);
    expect(output).toContain("the target requires a client certificate (mTLS) and none was sent");
    expect(output).toContain("H2H_CLIENT_CERT");
    expect(report.verdict).toBe("not run");
    expect(report.errors[0]).toMatch(/requires a client certificate/);
  });

  it("names the unknown CA without H2H_CA_FILE and exits 2", async () => {
    const { exitCode, output, report } = await certifyInProcess(env({ H2H_CA_FILE: undefined }), {
      specRunner: specRunner.run,
    });
    expect(exitCode, output).toBe(2);
    expect(output).toMatch(
      /TLS unknown-ca: the target's certificate is signed by an unknown CA: .*H2H_CA_FILE/,
    );
    expect(report.verdict).toBe("not run");
  });

  it.each([
    [
      "a missing CA file",
      { H2H_CA_FILE: "/nonexistent/ca.pem" },
      /CA file \(H2H_CA_FILE\) \/nonexistent\/ca\.pem cannot be read: ENOENT \(point it at a readable PEM file, or unset it\)/,
    ],
    [
      "a CA file that is a key",
      { H2H_CA_FILE: "KEY:client" },
      /CA file \(H2H_CA_FILE\) \S+client\.key holds no PEM certificate/,
    ],
    [
      "a certificate without its key",
      { H2H_CLIENT_KEY: undefined },
      /client certificate \(H2H_CLIENT_CERT\) is set without a client key \(H2H_CLIENT_KEY\): both are needed/,
    ],
    [
      "a key that is not the certificate's",
      { H2H_CLIENT_KEY: "KEY:other" },
      /client certificate \(H2H_CLIENT_CERT\) \S+client\.pem and client key \(H2H_CLIENT_KEY\) \S+other\.key do not belong together .*: give the key the certificate was issued for/,
    ],
    [
      "an encrypted key without its passphrase",
      { H2H_CLIENT_KEY: "ENC:client" },
      /client key \(H2H_CLIENT_KEY\) \S+client\.enc\.key is encrypted: set the client key passphrase \(H2H_CLIENT_KEY_PASSPHRASE\)/,
    ],
    ["an empty H2H_CLIENT_CERT", { H2H_CLIENT_CERT: "" }, /H2H_CLIENT_CERT is set but empty/],
    ["a blank passphrase", { H2H_CLIENT_KEY_PASSPHRASE: " " }, /H2H_CLIENT_KEY_PASSPHRASE is set but empty/],
  ] as const)(
    "refuses %s before the first request (exit 64), naming the variable and the path",
    async (_name, tls, message) => {
      const refusal: unknown = await certifyInProcess(env(keyFiles(tls)), {
        specRunner: specRunner.run,
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      // A bad setting, refused as the settings are read, before the run starts: the CLI prints
      // its message as one line (`error: …`) and exits 64, as the child below shows.
      expect(refusal).toBeInstanceOf(SettingsError);
      const text = (refusal as SettingsError).message;
      expect(text).toMatch(message);
      expect(text).not.toContain("wrong-one");
      expect(text.trim().split("\n")).toHaveLength(1);
    },
  );

  it("refuses a wrong passphrase before the first request (exit 64), naming the variable, not the passphrase", async () => {
    const { exitCode, output } = await spawnCertify({
      ...env(keyFiles({ H2H_CLIENT_KEY: "ENC:client", H2H_CLIENT_KEY_PASSPHRASE: "wrong-one" })),
      H2H_REPORT_DIR: mkdtempSync(join(tmpdir(), "h2h-mtls-")),
    });
    expect(exitCode, output).toBe(64);
    expect(output).toMatch(/the client key passphrase \(H2H_CLIENT_KEY_PASSPHRASE\) is wrong/);
    expect(output).not.toContain("certifying"); // before any request or server
    expect(output).not.toContain("wrong-one");
    expect(output.trim().split("\n")).toHaveLength(1);
  });
});
