/**
 * A signed verdict: the reports of one run, attested by an in-toto Statement in a DSSE envelope
 * written beside them (`h2h-certify.intoto.jsonl`, one envelope on one line), and its verification.
 * The attestation belongs to the report set: written after it, under a temporary name first, and
 * removed whenever a set is written without one, so that it never stands beside another run's files.
 */
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { EXIT_OF_VERDICT, type RunReport, type Verdict } from "../engine/run-model.ts";
import { REPORT_FILES, REPORT_KINDS, type ReportPaths, TARGET_LOG_FILE } from "../reports/index.ts";
import { type DsseEnvelope, envelopeSignedBy, IN_TOTO_PAYLOAD_TYPE, signEnvelope } from "./dsse.ts";
import type { SigningKey, VerifyKey } from "./keys.ts";
import {
  buildStatement,
  fileSha256Hex,
  STATEMENT_TYPE,
  type Statement,
  subjectsOf,
  TEST_RESULT_PREDICATE,
} from "./statement.ts";

/** The attestation's name in the report directory. */
export const ATTESTATION_FILE = "h2h-certify.intoto.jsonl";

/** Every file a report set may hold: each is a subject when present. */
export const REPORT_SET_FILES: readonly string[] = [
  ...REPORT_KINDS.map((kind) => REPORT_FILES[kind]),
  TARGET_LOG_FILE,
];

/** A report directory or attestation that cannot be read at all (exit 64): names the file. */
export class AttestationInputError extends Error {
  override name = "AttestationInputError";
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/** The set's JSON report, as written (masked). */
async function readJsonReport(dir: string): Promise<RunReport> {
  const path = join(dir, REPORT_FILES.json);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new AttestationInputError(
      `${path} cannot be read (${codeOf(error)}): give the report directory of a certify run (--reports DIR)`,
    );
  }
  try {
    const report = JSON.parse(text) as RunReport;
    if (typeof report.verdict !== "string" || !Array.isArray(report.checks) || report.target === undefined)
      throw new Error("no verdict, checks or target");
    return report;
  } catch (error) {
    throw new AttestationInputError(
      `${path} is not a certify JSON report (${(error as Error).message}): give the report directory of a certify run`,
    );
  }
}

/** The report files present in `dir`, in the set's order. */
async function presentSetFiles(dir: string): Promise<string[]> {
  const present: string[] = [];
  for (const name of REPORT_SET_FILES) {
    // Absent: not written by this run (a report kind not asked for, no container).
    if (
      await stat(join(dir, name)).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      present.push(name);
  }
  return present;
}

export interface Attested {
  path: string;
  statement: Statement;
}

/**
 * Attests the report set in `dir`: every report file present (or `files`, the names a run just
 * wrote) by SHA-256, the verdict and configuration from its JSON report. Written under a temporary
 * name, then moved into place.
 */
export async function attestReports(
  directory: string,
  key: SigningKey,
  files?: readonly string[],
): Promise<Attested> {
  const dir = resolve(directory);
  const report = await readJsonReport(dir);
  const names = files ?? (await presentSetFiles(dir));
  const statement = await buildStatement(report, await subjectsOf(dir, names), {
    algorithm: key.algorithm,
    keyid: key.keyid,
  });
  const envelope = signEnvelope(Buffer.from(JSON.stringify(statement), "utf8"), IN_TOTO_PAYLOAD_TYPE, key);
  const path = join(dir, ATTESTATION_FILE);
  // The report writer's temporary-name pattern: a run killed here leaves nothing a later run keeps.
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(envelope)}\n`);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  return { path, statement };
}

/** Removes an attestation from `dir`: it attests an earlier run's reports. */
export async function removeAttestation(directory: string): Promise<void> {
  await rm(join(resolve(directory), ATTESTATION_FILE), { force: true });
}

/**
 * After a run wrote its report set: the set attested with `key`, or, without a key or without a
 * set, an earlier run's attestation removed. An attestation asked for but not written leaves no set
 * (as a report that cannot be written does): the run says why and does not pass.
 */
export async function attestRunReports(
  directory: string,
  key: SigningKey | undefined,
  written: { paths?: ReportPaths; error?: string },
): Promise<{ attested?: Attested; error?: string }> {
  const dir = resolve(directory);
  if (key === undefined || written.paths === undefined) {
    try {
      await removeAttestation(dir);
      return {};
    } catch (error) {
      return {
        error: `an earlier run's attestation ${join(dir, ATTESTATION_FILE)} could not be removed (${codeOf(error)}): it would stand beside this run's reports; remove it`,
      };
    }
  }
  const files = Object.values(written.paths)
    .filter((path): path is string => path !== undefined)
    .map((path) => basename(path));
  try {
    return { attested: await attestReports(dir, key, files) };
  } catch (error) {
    await removeAttestation(dir).catch(() => undefined);
    for (const name of files) await rm(join(dir, name), { force: true }).catch(() => undefined);
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return {
      error: `the attestation could not be written to ${join(dir, ATTESTATION_FILE)} (${why}): the reports it would attest were removed with it`,
    };
  }
}

export interface Verification {
  /** The signature is the key's and every report file is the one attested. */
  verified: boolean;
  /** What does not match, one line each: the file and both digests, or the signature. */
  problems: string[];
  /** The statement, when the envelope holds one (trusted only when `verified`). */
  statement?: Statement;
  /** The report files checked against their digests. */
  checked: string[];
  reportsDir: string;
}

function parseEnvelope(text: string, file: string): DsseEnvelope | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `${file} is not a DSSE envelope: it is not JSON (${(error as Error).message}), so it changed after signing or is another file`;
  }
  const envelope = value as Partial<DsseEnvelope>;
  if (
    typeof envelope.payloadType !== "string" ||
    typeof envelope.payload !== "string" ||
    !Array.isArray(envelope.signatures) ||
    envelope.signatures.length === 0 ||
    envelope.signatures.some((s) => typeof s?.sig !== "string")
  )
    return `${file} is not a DSSE envelope (payloadType, payload and signatures[].sig): it changed after signing or is another file`;
  return envelope as DsseEnvelope;
}

function parseStatement(envelope: DsseEnvelope): Statement | string {
  let statement: Partial<Statement>;
  try {
    statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as Partial<Statement>;
  } catch {
    return "the statement (the envelope's payload) is not JSON";
  }
  if (statement._type !== STATEMENT_TYPE) return `the statement's _type is not ${STATEMENT_TYPE}`;
  if (statement.predicateType !== TEST_RESULT_PREDICATE)
    return `the statement's predicateType is not ${TEST_RESULT_PREDICATE}`;
  if (!Array.isArray(statement.subject) || statement.predicate?.h2hCertify === undefined)
    return "the statement has no subjects or no h2h-certify predicate";
  return statement as Statement;
}

/**
 * Verifies an attestation: its signature by `key`, then every subject's digest against the file
 * of that name in `reportsDir` (default: the attestation's folder), and that no other report of a
 * set stands there. Every mismatch is a problem of its own, naming what changed.
 */
export async function verifyAttestation(
  attestationPath: string,
  key: VerifyKey,
  reportsDir?: string,
): Promise<Verification> {
  const file = resolve(attestationPath);
  const dir = resolve(reportsDir ?? dirname(file));
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new AttestationInputError(`${file} cannot be read (${codeOf(error)}): give the attestation file`);
  }
  const result: Verification = { verified: false, problems: [], checked: [], reportsDir: dir };
  const envelope = parseEnvelope(text, basename(file));
  if (typeof envelope === "string") {
    result.problems.push(envelope);
    return result;
  }
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    result.problems.push(
      `the envelope's payloadType is "${envelope.payloadType}", not ${IN_TOTO_PAYLOAD_TYPE}`,
    );
  const statement = parseStatement(envelope);
  if (!envelopeSignedBy(envelope, key)) {
    // The statement's signer is a claim until the signature holds: only a hint of which key to try.
    const claimed = typeof statement === "string" ? undefined : statement.predicate.h2hCertify.signer;
    result.problems.push(
      claimed?.keyid !== undefined && claimed.keyid !== key.keyid
        ? `the signature is not by the key given: the statement names the ${claimed.algorithm} key ${claimed.keyid} as its signer, ${key.source} is key ${key.keyid}`
        : "the signature does not match the statement: the statement or its signature changed after signing",
    );
  }
  if (typeof statement === "string") {
    result.problems.push(statement);
    return result;
  }
  result.statement = statement;
  const attested = new Set<string>();
  for (const subject of statement.subject) {
    const name = String(subject?.name);
    // A subject is a file of the folder itself, never a path out of it.
    if (basename(name) !== name || name === "." || name === "..") {
      result.problems.push(`the statement names a subject that is not a report file: ${name}`);
      continue;
    }
    attested.add(name);
    const expected = subject.digest?.sha256;
    let actual: string;
    try {
      actual = await fileSha256Hex(join(dir, name));
    } catch (error) {
      result.problems.push(
        `${name}: missing from ${dir} (${codeOf(error)}): the attestation holds its digest`,
      );
      continue;
    }
    result.checked.push(name);
    if (actual !== expected)
      result.problems.push(
        `${name}: changed after it was attested: its SHA-256 is ${actual}, the attestation says ${expected}`,
      );
  }
  for (const name of await presentSetFiles(dir))
    if (!attested.has(name))
      result.problems.push(
        `${name} stands in ${dir} but is not in the attestation: it is not of the attested run`,
      );
  result.verified = result.problems.length === 0;
  return result;
}

/** The lines `verify` prints: what was verified (or what changed), then the verdict. */
export function verificationLines(verification: Verification, key: VerifyKey): string[] {
  const facts = verification.statement?.predicate.h2hCertify;
  const verdictLine = (trusted: boolean) =>
    facts
      ? `${trusted ? "verdict" : "claimed verdict (not verified)"}: ${facts.verdict} (${verification.statement?.predicate.result}), run ${facts.runId}, target ${facts.configuration.target.baseUrl}; ${facts.totals.passed} passed, ${facts.totals.failedRequired} failed, ${facts.totals.notEvaluated} not evaluated`
      : undefined;
  if (verification.verified) {
    return [
      `verified: the signature is the ${key.algorithm} key's (keyid ${key.keyid}), and ${verification.checked.length} report file(s) in ${verification.reportsDir} are the ones attested: ${verification.checked.join(", ")}`,
      verdictLine(true) as string,
    ];
  }
  const claimed = verdictLine(false);
  return [
    "not verified:",
    ...verification.problems.map((problem) => `  ✗ ${problem}`),
    ...(claimed ? [claimed] : []),
  ];
}

/** A verified attestation's exit code is its verdict's, as certify's; anything else fails (1). */
export function exitOfVerification(verification: Verification): number {
  const verdict = verification.statement?.predicate.h2hCertify.verdict as Verdict | undefined;
  if (!verification.verified || verdict === undefined || !Object.hasOwn(EXIT_OF_VERDICT, verdict)) return 1;
  return EXIT_OF_VERDICT[verdict];
}
