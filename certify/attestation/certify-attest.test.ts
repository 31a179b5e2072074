/**
 * `certify --attest KEY`: the run's report set is attested as it is written, the attestation is
 * one of the set (a later run without a key removes it, never leaving it beside that run's
 * reports), and a key that cannot sign is refused before a request is sent.
 */
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../../fixtures/testing/index.ts";
import { parseSettings } from "../../run-setup/index.ts";
import { runCertification } from "../engine/runner.ts";
import { REPORT_FILES } from "../reports/index.ts";
import { sharedSpecRunner } from "../testing/certify-in-process.ts";
import { ATTESTATION_FILE, AttestationKeyError, readVerifyKey, verifyAttestation } from "./index.ts";

fileTimeout(120_000);

const work = mkdtempSync(join(tmpdir(), "h2h-certify-attest-"));
const reportDir = join(work, "reports");
const pair = generateKeyPairSync("ed25519");
const privatePath = join(work, "attest.pem");
const publicPath = join(work, "attest.pub.pem");
writeFileSync(privatePath, pair.privateKey.export({ type: "pkcs8", format: "pem" }));
writeFileSync(publicPath, pair.publicKey.export({ type: "spki", format: "pem" }));

describe("certify --attest", () => {
  let provider: RunningReferenceProvider;
  const specRunner = sharedSpecRunner();
  beforeAll(async () => {
    provider = await startReferenceProvider({ port: 0 });
  });
  afterAll(async () => {
    await specRunner.close();
    await provider.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** One spec file, one check: what is tested is the set the run writes, not the contract. */
  const certify = (attestKey: string | undefined) => {
    const settings = parseSettings(
      {
        H2H_BASE_URL: provider.url,
        H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
        H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
        H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        H2H_REPORT_DIR: reportDir,
        H2H_DEPTH: "quick",
      },
      { command: "certify", cwd: work, flags: { attestKey } },
    );
    const lines: string[] = [];
    return runCertification({
      settings,
      print: (line) => lines.push(line),
      reports: ["json", "junit"],
      targetInThisProcess: true,
      specFiles: ["certify/specs/auth-and-validation.spec.ts"],
      probes: { only: ["envelope.shape"] },
      specRunner: specRunner.run,
    }).then((result) => ({ result, output: lines.join("\n") }));
  };

  it("attests the set it wrote; a run without a key removes it; a bad key is refused first", async () => {
    // Relative, as typed: from the user's directory.
    const signed = await certify("attest.pem");
    expect(signed.result.reportsError).toBeUndefined();
    expect(signed.result.attestation).toBe(join(reportDir, ATTESTATION_FILE));
    expect(signed.output).toMatch(
      new RegExp(
        `attestation: ${join(reportDir, ATTESTATION_FILE)} \\(signed with the Ed25519 key of --attest ${privatePath}, keyid [0-9a-f]{64}\\)`,
      ),
    );
    // No key material in what the run printed or wrote.
    const keyLines = pair.privateKey
      .export({ type: "pkcs8", format: "pem" })
      .toString()
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("-----"));
    const written = readdirSync(reportDir).map((name) => readFileSync(join(reportDir, name), "utf8"));
    for (const line of keyLines)
      for (const text of [signed.output, ...written]) expect(text).not.toContain(line);
    const verification = await verifyAttestation(
      join(reportDir, ATTESTATION_FILE),
      await readVerifyKey(publicPath, "--key", work),
    );
    expect(verification.problems).toEqual([]);
    expect(verification.checked.sort()).toEqual([REPORT_FILES.json, REPORT_FILES.junit].sort());
    expect(verification.statement?.predicate.h2hCertify.verdict).toBe(signed.result.report.verdict);
    expect(verification.statement?.predicate.result).toBe("WARNED"); // --only: partial

    // The next run's set has no attestation: the earlier one would stand beside the new reports.
    const unsigned = await certify(undefined);
    expect(unsigned.result.attestation).toBeUndefined();
    expect(existsSync(join(reportDir, REPORT_FILES.json))).toBe(true);
    expect(existsSync(join(reportDir, ATTESTATION_FILE))).toBe(false);

    // A public key to sign with: refused before the run, the folder as it was.
    const before = readdirSync(reportDir).sort();
    await expect(certify(publicPath)).rejects.toThrow(AttestationKeyError);
    await expect(certify(publicPath)).rejects.toThrow(/holds a public key: signing needs the private key/);
    expect(readdirSync(reportDir).sort()).toEqual(before);
  });
});
