/**
 * A signed verdict: attest → verify holds for Ed25519 and P-256 keys; a changed report byte, a
 * changed verdict in the statement and another key each fail, named; an implementation of DSSE the
 * project did not write (@sigstore/verify) accepts the envelope.
 */
import { createHash, createPublicKey, generateKeyPairSync } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import { afterAll, describe, expect, it } from "vitest";
import type { CheckRecord } from "../engine/run-model.ts";
import { REPORT_FILES } from "../reports/index.ts";
import { runReportOf } from "../testing/run-report.ts";
import { type DsseEnvelope, IN_TOTO_PAYLOAD_TYPE, preAuthEncoding } from "./dsse.ts";
import {
  ATTESTATION_FILE,
  AttestationKeyError,
  attestReports,
  attestRunReports,
  exitOfVerification,
  readSigningKey,
  readVerifyKey,
  verificationLines,
  verifyAttestation,
} from "./index.ts";
import { type Statement, TEST_RESULT_PREDICATE } from "./statement.ts";

const work = mkdtempSync(join(tmpdir(), "h2h-attest-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type KeyKind = "ed25519" | "p256";

/** A key pair as PEM files: PKCS#8 private, SPKI public. */
function keyFiles(kind: KeyKind, name: string = kind) {
  const pair =
    kind === "ed25519" ? generateKeyPairSync("ed25519") : generateKeyPairSync("ec", { namedCurve: "P-256" });
  const privatePem = pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const publicPem = pair.publicKey.export({ type: "spki", format: "pem" }).toString();
  const privatePath = join(work, `${name}.pem`);
  const publicPath = join(work, `${name}.pub.pem`);
  writeFileSync(privatePath, privatePem);
  writeFileSync(publicPath, publicPem);
  return { privatePath, publicPath, privatePem, publicPem };
}

const check = (name: string, status: CheckRecord["status"], required = true): CheckRecord => ({
  endpoint: "createOrder",
  check: name,
  rule: `rule of ${name}`,
  status,
  required,
  detail: status,
  durationMs: 1,
  exchanges: [],
  source: "test",
});

let sets = 0;
/** A report set as certify writes it: the JSON report and the other kinds beside it. */
function reportSet(checks: CheckRecord[] = [check("envelope.shape", "passed")]) {
  const dir = join(work, `set-${++sets}`);
  const profilePath = join(work, "profile.json");
  writeFileSync(profilePath, '{"name":"attested"}\n');
  const report = runReportOf(checks, {
    target: {
      baseUrl: "http://127.0.0.1:8080/tenant",
      reference: false,
      profileName: "attested",
      profilePath,
    },
    probes: { seed: 42, depth: "quick", merchantOrderIdPrefix: "t", only: [] },
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, REPORT_FILES.json), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(dir, REPORT_FILES.junit), "<testsuites/>\n");
  writeFileSync(join(dir, REPORT_FILES.html), "<!doctype html><p>CONFORMANT</p>\n");
  return dir;
}

const envelopeOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, ATTESTATION_FILE), "utf8")) as DsseEnvelope;
const statementOf = (envelope: DsseEnvelope) =>
  JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as Statement;

describe.each(["ed25519", "p256"] as const)("attest → verify with a %s key", (kind) => {
  const keys = keyFiles(kind);

  it("verifies, with every report file a subject by SHA-256 and the verdict in the predicate", async () => {
    const dir = reportSet([
      check("envelope.shape", "passed"),
      check("semantics.amount-echoed", "failed"),
      check("envelope.request-id-present", "failed", false),
      check("callbacks.arrives", "not evaluated"),
    ]);
    const signing = await readSigningKey(keys.privatePath, "--key", work);
    const { path } = await attestReports(dir, signing);
    expect(path).toBe(join(dir, ATTESTATION_FILE));

    const envelope = envelopeOf(dir);
    expect(envelope.payloadType).toBe(IN_TOTO_PAYLOAD_TYPE);
    // No keyid in the envelope: cosign skips a signature whose keyid is not the one it derives.
    expect(envelope.signatures).toEqual([{ keyid: "", sig: expect.any(String) }]);
    const statement = statementOf(envelope);
    expect(statement._type).toBe("https://in-toto.io/Statement/v1");
    expect(statement.predicateType).toBe(TEST_RESULT_PREDICATE);
    const sha = (name: string) =>
      createHash("sha256")
        .update(readFileSync(join(dir, name)))
        .digest("hex");
    expect(statement.subject).toEqual(
      [REPORT_FILES.junit, REPORT_FILES.json, REPORT_FILES.html].map((name) => ({
        name,
        digest: { sha256: sha(name) },
      })),
    );
    const { predicate } = statement;
    expect(predicate.result).toBe("FAILED");
    expect(predicate.passedTests).toEqual(["envelope.shape"]);
    expect(predicate.failedTests).toEqual(["semantics.amount-echoed"]);
    expect(predicate.warnedTests).toEqual(["envelope.request-id-present"]);
    expect(predicate.h2hCertify.verdict).toBe("not conformant");
    expect(predicate.h2hCertify.failedChecks).toEqual([
      { check: "semantics.amount-echoed", endpoint: "createOrder" },
    ]);
    expect(predicate.h2hCertify.notEvaluatedChecks).toEqual([
      { check: "callbacks.arrives", endpoint: "createOrder" },
    ]);
    const config = predicate.h2hCertify.configuration;
    expect(config).toMatchObject({
      suiteVersion: "0.0.0",
      seed: 42,
      depth: "quick",
      target: { baseUrl: "http://127.0.0.1:8080/tenant", reference: false, profileName: "attested" },
    });
    expect(config.profileSha256).toBe(createHash("sha256").update('{"name":"attested"}\n').digest("hex"));
    expect(config.apiDescriptionSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(config.packageLockSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(predicate.configuration.map((resource) => resource.name)).toEqual([
      "h2h-certify",
      "package-lock.json",
      "profile",
      "docs/api.md",
      "target",
      "probes",
    ]);

    const publicKey = await readVerifyKey(keys.publicPath, "--key", work);
    const verification = await verifyAttestation(path, publicKey);
    expect(verification.problems).toEqual([]);
    expect(verification.verified).toBe(true);
    expect(verification.checked).toHaveLength(3);
    expect(exitOfVerification(verification)).toBe(1);
    expect(verificationLines(verification, publicKey)[1]).toMatch(/^verdict: not conformant \(FAILED\)/);
  });

  it("a conformant run's verified attestation exits 0, as certify's verdict would", async () => {
    const dir = reportSet();
    await attestReports(dir, await readSigningKey(keys.privatePath, "--key", work));
    const verification = await verifyAttestation(
      join(dir, ATTESTATION_FILE),
      await readVerifyKey(keys.publicPath, "--key", work),
    );
    expect(verification.verified).toBe(true);
    expect(verification.statement?.predicate.result).toBe("PASSED");
    expect(exitOfVerification(verification)).toBe(0);
  });

  it("fails on a changed report byte, naming the file and both digests", async () => {
    const dir = reportSet();
    await attestReports(dir, await readSigningKey(keys.privatePath, "--key", work));
    const html = join(dir, REPORT_FILES.html);
    const before = createHash("sha256").update(readFileSync(html)).digest("hex");
    writeFileSync(html, readFileSync(html, "utf8").replace("CONFORMANT", "CONFORMANt"));
    const after = createHash("sha256").update(readFileSync(html)).digest("hex");
    const verification = await verifyAttestation(
      join(dir, ATTESTATION_FILE),
      await readVerifyKey(keys.publicPath, "--key", work),
    );
    expect(verification.verified).toBe(false);
    expect(verification.problems).toEqual([
      `${REPORT_FILES.html}: changed after it was attested: its SHA-256 is ${after}, the attestation says ${before}`,
    ]);
    expect(exitOfVerification(verification)).toBe(1);
  });

  it("fails on a changed verdict in the statement, re-encoded under the old signature", async () => {
    const dir = reportSet([check("semantics.amount-echoed", "failed")]);
    await attestReports(dir, await readSigningKey(keys.privatePath, "--key", work));
    const envelope = envelopeOf(dir);
    const statement = statementOf(envelope);
    expect(statement.predicate.h2hCertify.verdict).toBe("not conformant");
    statement.predicate.h2hCertify.verdict = "conformant";
    statement.predicate.result = "PASSED";
    envelope.payload = Buffer.from(JSON.stringify(statement)).toString("base64");
    writeFileSync(join(dir, ATTESTATION_FILE), JSON.stringify(envelope));
    const publicKey = await readVerifyKey(keys.publicPath, "--key", work);
    const verification = await verifyAttestation(join(dir, ATTESTATION_FILE), publicKey);
    expect(verification.verified).toBe(false);
    expect(verification.problems).toEqual([
      "the signature does not match the statement: the statement or its signature changed after signing",
    ]);
    expect(exitOfVerification(verification)).toBe(1);
    // The edited verdict is shown only as claimed, never as the verdict.
    expect(verificationLines(verification, publicKey).join("\n")).toContain(
      "claimed verdict (not verified): conformant",
    );
  });

  it("fails with another key, saying which key signed it", async () => {
    const dir = reportSet();
    const signing = await readSigningKey(keys.privatePath, "--key", work);
    await attestReports(dir, signing);
    const other = keyFiles(kind, `${kind}-other`);
    const otherKey = await readVerifyKey(other.publicPath, "--key", work);
    const verification = await verifyAttestation(join(dir, ATTESTATION_FILE), otherKey);
    expect(verification.verified).toBe(false);
    expect(verification.problems).toEqual([
      `the signature is not by the key given: the statement names the ${signing.algorithm} key ${signing.keyid} as its signer, --key ${other.publicPath} is key ${otherKey.keyid}`,
    ]);
  });

  it("an independent DSSE verifier (@sigstore/verify, public key) accepts it, and refuses an edit", async () => {
    const dir = reportSet();
    await attestReports(dir, await readSigningKey(keys.privatePath, "--key", work));
    const envelope = envelopeOf(dir);
    const bundleOf = (payload: Buffer) => ({
      mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
      verificationMaterial: {
        content: { $case: "publicKey" as const, publicKey: { hint: "attest" } },
        tlogEntries: [],
        timestampVerificationData: { rfc3161Timestamps: [] },
      },
      content: {
        $case: "dsseEnvelope" as const,
        dsseEnvelope: {
          payloadType: envelope.payloadType,
          payload,
          signatures: envelope.signatures.map((s) => ({
            keyid: s.keyid ?? "",
            sig: Buffer.from(s.sig, "base64"),
          })),
        },
      },
    });
    const trust = toTrustMaterial(
      { certificateAuthorities: [], timestampAuthorities: [], tlogs: [], ctlogs: [] } as never,
      {
        attest: { rawBytes: createPublicKey(keys.publicPem).export({ type: "spki", format: "der" }) },
      } as never,
    );
    // A key of one's own, offline: no transparency log, certificate log or timestamp to require.
    const verifier = new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 });
    const payload = Buffer.from(envelope.payload, "base64");
    expect(() => verifier.verify(toSignedEntity(bundleOf(payload) as never))).not.toThrow();
    const edited = Buffer.from(payload.toString("utf8").replace('"conformant"', '"partial"'));
    expect(edited.equals(payload)).toBe(false);
    expect(() => verifier.verify(toSignedEntity(bundleOf(edited) as never))).toThrow(/signature/);
  });
});

describe("the pre-authentication encoding", () => {
  it("is the DSSE v1 spec's: lengths in bytes, not characters", () => {
    expect(preAuthEncoding("http://example.com/HelloWorld", Buffer.from("hello world")).toString()).toBe(
      "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
    );
    expect(preAuthEncoding("t", Buffer.from("é")).toString()).toBe("DSSEv1 1 t 2 é");
  });
});

describe("keys that cannot sign or verify are refused by name, never shown", () => {
  const ed = keyFiles("ed25519", "refusals");

  it("a public key to sign with, a private key to verify with", async () => {
    await expect(readSigningKey(ed.publicPath, "--key", work)).rejects.toThrow(
      /holds a public key: signing needs the private key/,
    );
    await expect(readVerifyKey(ed.privatePath, "--key", work)).rejects.toThrow(
      /holds a private key: verify needs only the public key/,
    );
  });

  it("an RSA key, a SEC1 EC key, an encrypted key and a missing file", async () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const rsaPath = join(work, "rsa.pem");
    writeFileSync(rsaPath, rsa.privateKey.export({ type: "pkcs8", format: "pem" }));
    await expect(readSigningKey(rsaPath, "--key", work)).rejects.toThrow(
      /holds an rsa key: attestations are signed with Ed25519 or ECDSA P-256/,
    );
    const secp = generateKeyPairSync("ec", { namedCurve: "secp384r1" });
    const sec1Path = join(work, "sec1.pem");
    writeFileSync(sec1Path, secp.privateKey.export({ type: "sec1", format: "pem" }));
    await expect(readSigningKey(sec1Path, "--key", work)).rejects.toThrow(
      /a "EC PRIVATE KEY" block: give a PKCS#8/,
    );
    const encrypted = join(work, "encrypted.pem");
    writeFileSync(
      encrypted,
      generateKeyPairSync("ed25519").privateKey.export({
        type: "pkcs8",
        format: "pem",
        cipher: "aes-256-cbc",
        passphrase: "passphrase-1234",
      }),
    );
    await expect(readSigningKey(encrypted, "--key", work)).rejects.toThrow(/holds an encrypted key/);
    await expect(readSigningKey("no-such.pem", "H2H_ATTEST_KEY", work)).rejects.toThrow(
      `H2H_ATTEST_KEY: the key file ${join(work, "no-such.pem")} cannot be read (ENOENT)`,
    );
  });

  it("a PEM given in place (a CI secret) signs, and a broken one is refused without its text", async () => {
    const key = await readSigningKey(ed.privatePem, "H2H_ATTEST_KEY", work);
    expect(key.algorithm).toBe("Ed25519");
    expect(key.source).toBe("H2H_ATTEST_KEY");
    const broken = ed.privatePem.replace(/\n[A-Za-z0-9+/]{8}/, "\n!!!!!!!!");
    const refusal = await readSigningKey(broken, "H2H_ATTEST_KEY", work).catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(AttestationKeyError);
    const body = ed.privatePem.split("\n")[1] as string;
    expect((refusal as Error).message).not.toContain(body.slice(0, 16));
    expect((refusal as Error).message).toMatch(
      /^H2H_ATTEST_KEY holds a PRIVATE KEY block that does not parse/,
    );
  });
});

describe("the report set", () => {
  const keys = keyFiles("ed25519", "set");

  it("a report of the set that is not attested (another run's) fails verification", async () => {
    const dir = reportSet();
    await attestReports(dir, await readSigningKey(keys.privatePath, "--key", work));
    writeFileSync(join(dir, REPORT_FILES.har), "{}");
    const verification = await verifyAttestation(
      join(dir, ATTESTATION_FILE),
      await readVerifyKey(keys.publicPath, "--key", work),
    );
    expect(verification.problems).toEqual([
      `${REPORT_FILES.har} stands in ${dir} but is not in the attestation: it is not of the attested run`,
    ]);
  });

  it("an attestation that cannot be written takes the set with it; without a key, an old one goes", async () => {
    const key = await readSigningKey(keys.privatePath, "--key", work);
    const dir = reportSet();
    const written = { paths: { json: join(dir, REPORT_FILES.json), junit: join(dir, REPORT_FILES.junit) } };
    // A folder where the attestation goes: the move into place fails.
    mkdirSync(join(dir, ATTESTATION_FILE, "in-the-way"), { recursive: true });
    const failed = await attestRunReports(dir, key, written);
    expect(failed.error).toMatch(
      new RegExp(
        `^the attestation could not be written to ${join(dir, ATTESTATION_FILE)} \\(E[A-Z]+\\): the reports it would attest were removed with it$`,
      ),
    );
    expect(readdirSync(dir).sort()).toEqual([ATTESTATION_FILE, REPORT_FILES.html].sort());
    expect(readdirSync(join(dir, ATTESTATION_FILE))).toEqual(["in-the-way"]);

    const next = reportSet();
    expect((await attestRunReports(next, key, written)).attested).toBeDefined();
    expect(await attestRunReports(next, undefined, written)).toEqual({});
    expect(readdirSync(next)).not.toContain(ATTESTATION_FILE);
  });

  it("a missing report fails verification, named", async () => {
    const dir = reportSet();
    await attestReports(dir, await readSigningKey(keys.privatePath, "--key", work));
    rmSync(join(dir, REPORT_FILES.junit));
    const verification = await verifyAttestation(
      join(dir, ATTESTATION_FILE),
      await readVerifyKey(keys.publicPath, "--key", work),
    );
    expect(verification.problems).toEqual([
      `${REPORT_FILES.junit}: missing from ${dir} (ENOENT): the attestation holds its digest`,
    ]);
  });

  it("--reports DIR: the reports verified elsewhere than beside the attestation", async () => {
    const dir = reportSet();
    await attestReports(dir, await readSigningKey(keys.privatePath, "--key", work));
    const elsewhere = join(work, "attestation-elsewhere.jsonl");
    writeFileSync(elsewhere, readFileSync(join(dir, ATTESTATION_FILE)));
    const verification = await verifyAttestation(
      elsewhere,
      await readVerifyKey(keys.publicPath, "--key", work),
      dir,
    );
    expect(verification.verified).toBe(true);
  });
});
