/** `npm run verify`: checks a signed verdict (an attestation) against its key and its report files. */
import { resolve } from "node:path";
import {
  AttestationInputError,
  exitOfVerification,
  readVerifyKey,
  verificationLines,
  verifyAttestation,
} from "../../certify/index.ts";
import { userDirectory } from "../../run-setup/index.ts";
import { defineCommand, EXIT, type ExitCode, UsageError } from "../cli.ts";
import { BAD_SETTINGS } from "./bad-settings.ts";

export const verify = defineCommand({
  name: "verify",
  summary:
    "Verifies an attestation (certify --attest, attest): its DSSE signature with the public key, then\n" +
    "every report file's SHA-256; prints the verdict, or each thing that changed (the file and both\n" +
    "digests, or that the signature does not match the statement). Exits with the verdict's code.",
  operands: { value: "ATTESTATION", min: 1, description: "the attestation file (h2h-certify.intoto.jsonl)" },
  options: {
    key: {
      type: "string",
      value: "PUBLIC",
      description: "the signer's public key (PEM, SPKI: openssl pkey -in KEY -pubout); required",
    },
    reports: {
      type: "string",
      value: "DIR",
      description: "where the attested report files are (default: the attestation's folder)",
    },
  },
  exitCodes: {
    [EXIT.ok]: "verified, and the verdict is conformant",
    [EXIT.failed]:
      "not verified (a report, the statement or the signature changed, or another key signed it), or verified and not conformant",
    [EXIT.notJudged]: 'verified, and the verdict is "not run" or "incomplete"',
    [EXIT.partial]: 'verified, and the verdict is "partial"',
    [EXIT.usage]: "bad usage: no --key, a key that is not a public Ed25519 or P-256 key, no attestation file",
  },
  knownErrors: [...BAD_SETTINGS, [AttestationInputError, EXIT.usage]],
  async run(options, operands) {
    if (operands.length > 1)
      throw new UsageError(`give one ATTESTATION; got ${operands.length}: ${operands.join(" ")}`);
    if (options.key === undefined) throw new UsageError("--key PUBLIC is required: the signer's public key");
    const cwd = userDirectory(process.env);
    const key = await readVerifyKey(options.key, "--key", cwd);
    const verification = await verifyAttestation(
      resolve(cwd, operands[0] as string),
      key,
      options.reports === undefined ? undefined : resolve(cwd, options.reports),
    );
    const lines = verificationLines(verification, key);
    const write = verification.verified ? console.log : console.error;
    for (const line of lines) write(line);
    return exitOfVerification(verification) as ExitCode;
  },
});
