/** `npm run attest`: signs an existing report directory's verdict (what `certify --attest` does after a run). */
import { resolve } from "node:path";
import {
  ATTESTATION_FILE,
  AttestationInputError,
  attestReports,
  readSigningKey,
} from "../../certify/index.ts";
import { SETTINGS, userDirectory } from "../../run-setup/index.ts";
import { defineCommand, EXIT, UsageError } from "../cli.ts";
import { BAD_SETTINGS } from "./bad-settings.ts";

export const attest = defineCommand({
  name: "attest",
  summary:
    `Signs the verdict of a certify run's report directory: writes ${ATTESTATION_FILE} beside the\n` +
    "reports, an in-toto Statement (Test Result predicate, every report file by SHA-256) in a DSSE\n" +
    "envelope, signed with an Ed25519 or ECDSA P-256 private key. `verify` checks it. The configuration\n" +
    "digests (package-lock.json, the profile, docs/api.md) are read now: attest right after the run.",
  options: {
    reports: {
      type: "string",
      value: "DIR",
      description: "the report directory of a certify run (default: H2H_REPORT_DIR, else reports/)",
    },
    key: {
      type: "string",
      value: "KEY",
      description:
        "the private key (PEM, PKCS#8) as a file path (default: H2H_ATTEST_KEY: a path or the PEM itself)",
    },
  },
  environment: [
    `${SETTINGS.attestKey.variable}  the private key when --key is not given: a file path or the PEM itself (never printed)`,
    `${SETTINGS.reportDir.variable}  the report directory when --reports is not given (default: reports/)`,
  ],
  exitCodes: {
    [EXIT.usage]: "bad usage: no key, a key that cannot sign, or no certify report in the directory",
  },
  knownErrors: [...BAD_SETTINGS, [AttestationInputError, EXIT.usage]],
  async run(options) {
    const cwd = userDirectory(process.env);
    const variable = (name: string) => {
      const value = process.env[name];
      return value === undefined || value.trim() === "" ? undefined : value.trim();
    };
    const keyVariable = SETTINGS.attestKey.variable;
    const keyValue = options.key ?? variable(keyVariable);
    if (keyValue === undefined)
      throw new UsageError(`no key: give --key FILE or set ${keyVariable} (a path, or the PEM itself)`);
    const key = await readSigningKey(keyValue, options.key !== undefined ? "--key" : keyVariable, cwd);
    const dir = resolve(cwd, options.reports ?? variable(SETTINGS.reportDir.variable) ?? "reports");
    const { path, statement } = await attestReports(dir, key);
    const facts = statement.predicate.h2hCertify;
    console.log(
      `attestation: ${path} (signed with the ${key.algorithm} key of ${key.source}, keyid ${key.keyid})`,
    );
    console.log(
      `attested: ${statement.subject.map((s) => s.name).join(", ")}; verdict ${facts.verdict} (${statement.predicate.result}), run ${facts.runId}`,
    );
    return EXIT.ok;
  },
});
