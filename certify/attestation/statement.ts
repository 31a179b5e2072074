/**
 * The in-toto Statement v1 a run's reports are attested with: the report files as subjects (by
 * SHA-256), and the Test Result predicate (in-toto attestation/test-result/v0.1) with the run's
 * verdict, its checks by name and the configuration it ran with; what the Test Result schema has no
 * field for (the verdict itself, counts, not-evaluated checks, seed and depth) is under `h2hCertify`.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../run-setup/index.ts";
import type { CheckRecord, RunReport, Verdict } from "../engine/run-model.ts";
import type { KeyAlgorithm } from "./keys.ts";

export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
export const TEST_RESULT_PREDICATE = "https://in-toto.io/attestation/test-result/v0.1";

/** An in-toto ResourceDescriptor, the fields used here. */
export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  digest?: Record<string, string>;
  annotations?: Record<string, unknown>;
}

export type TestResult = "PASSED" | "WARNED" | "FAILED";

/** A check named in the predicate: its name, endpoint and case, as the reports name it. */
export interface NamedCheck {
  check: string;
  endpoint: string;
  case?: string;
}

export interface H2hCertifyFacts {
  verdict: Verdict;
  runId: string;
  startedAt: string;
  finishedAt: string;
  totals: RunReport["totals"];
  partial?: RunReport["partial"];
  /** Why the run could not judge its target, when it could not. */
  errors: string[];
  failedChecks: NamedCheck[];
  notEvaluatedChecks: (NamedCheck & { waitsOn?: string })[];
  /** The key that signs the envelope: `verify` names it when another key is given. */
  signer: { algorithm: KeyAlgorithm; keyid: string };
  configuration: {
    suiteVersion: string;
    /** The suite's git commit, when it runs from a git checkout of its own. */
    gitCommit?: string;
    /** Whether that checkout had uncommitted changes to tracked files. */
    gitTreeDirty?: boolean;
    packageLockSha256?: string;
    profileSha256?: string;
    apiDescriptionSha256?: string;
    target: { baseUrl: string; reference: boolean; profileName: string; image?: string };
    seed?: number;
    depth?: string;
    only?: string[];
  };
}

export interface TestResultPredicate {
  result: TestResult;
  configuration: ResourceDescriptor[];
  passedTests: string[];
  warnedTests: string[];
  failedTests: string[];
  h2hCertify: H2hCertifyFacts;
}

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: typeof TEST_RESULT_PREDICATE;
  predicate: TestResultPredicate;
}

/**
 * Only a conformant run passed. A partial one judged part of the contract: warned. A run that could
 * not judge its target, or did not finish, is no pass either.
 */
export const RESULT_OF_VERDICT = {
  conformant: "PASSED",
  partial: "WARNED",
  "not conformant": "FAILED",
  "not run": "FAILED",
  incomplete: "FAILED",
} as const satisfies Record<Verdict, TestResult>;

/** A file's SHA-256, read in chunks: a HAR may be hundreds of megabytes. */
export async function fileSha256Hex(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function fileSha256(path: string): Promise<string | undefined> {
  return fileSha256Hex(path).catch(() => undefined);
}

const run = promisify(execFile);

/** The suite's commit, only when the suite is the top of a git checkout (not a package inside one). */
async function suiteCommit(): Promise<{ commit?: string; dirty?: boolean }> {
  try {
    const options = { cwd: PROJECT_ROOT, timeout: 10_000 };
    const { stdout } = await run("git", ["rev-parse", "--show-toplevel", "HEAD"], options);
    const [top, commit] = stdout.trim().split("\n");
    if (top === undefined || commit === undefined || resolve(top) !== resolve(PROJECT_ROOT)) return {};
    const status = await run("git", ["status", "--porcelain", "--untracked-files=no"], options);
    return { commit, dirty: status.stdout.trim() !== "" };
  } catch {
    return {};
  }
}

/** A base URL with no credentials (the JSON report has them masked already; none is kept here). */
export function withoutCredentials(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    if (url.username === "" && url.password === "") return baseUrl;
    url.username = "";
    url.password = "";
    return url.toString();
  } catch {
    return baseUrl.replace(/\/\/[^/@]*@/, "//");
  }
}

const nameOf = (record: CheckRecord): NamedCheck => ({
  check: record.check,
  endpoint: record.endpoint,
  ...(record.case !== undefined ? { case: record.case } : {}),
});

/**
 * The Test Result lists by check name: failed when a required record of it failed, warned when
 * only an informational one did, passed when every evaluated record passed.
 */
function testsByName(checks: readonly CheckRecord[]) {
  const failed = new Set<string>();
  const warned = new Set<string>();
  const passed = new Set<string>();
  for (const record of checks) {
    if (record.status === "failed") (record.required ? failed : warned).add(record.check);
    else if (record.status === "passed") passed.add(record.check);
  }
  for (const name of failed) {
    warned.delete(name);
    passed.delete(name);
  }
  for (const name of warned) passed.delete(name);
  const sorted = (set: Set<string>) => [...set].sort();
  return { passedTests: sorted(passed), warnedTests: sorted(warned), failedTests: sorted(failed) };
}

/** The subjects: each report file by name and SHA-256 of its bytes as they are on disk. */
export async function subjectsOf(dir: string, names: readonly string[]): Promise<Statement["subject"]> {
  return Promise.all(
    names.map(async (name) => ({ name, digest: { sha256: await fileSha256Hex(join(dir, name)) } })),
  );
}

/** The statement of a report set: `report` is the set's JSON report as written (masked). */
export async function buildStatement(
  report: RunReport,
  subject: Statement["subject"],
  signer: H2hCertifyFacts["signer"],
): Promise<Statement> {
  const [git, lock, profile, api] = await Promise.all([
    suiteCommit(),
    fileSha256(join(PROJECT_ROOT, "package-lock.json")),
    report.target.profilePath ? fileSha256(report.target.profilePath) : Promise.resolve(undefined),
    fileSha256(join(PROJECT_ROOT, "docs", "api.md")),
  ]);
  const baseUrl = withoutCredentials(report.target.baseUrl);
  const image = report.targetContainer?.image;
  const probes = report.probes;
  const configuration: ResourceDescriptor[] = [
    {
      name: "h2h-certify",
      uri: `pkg:npm/h2h-certify@${report.tool.version}`,
      ...(git.commit ? { digest: { gitCommit: git.commit } } : {}),
      annotations: { version: report.tool.version, ...(git.commit ? { gitTreeDirty: git.dirty } : {}) },
    },
    ...(lock ? [{ name: "package-lock.json", digest: { sha256: lock } }] : []),
    {
      name: "profile",
      uri: report.target.profilePath,
      ...(profile ? { digest: { sha256: profile } } : {}),
      annotations: { profileName: report.target.profileName },
    },
    ...(api ? [{ name: "docs/api.md", digest: { sha256: api } }] : []),
    {
      name: "target",
      uri: baseUrl,
      annotations: { reference: report.target.reference, ...(image ? { image } : {}) },
    },
    ...(probes
      ? [{ name: "probes", annotations: { seed: probes.seed, depth: probes.depth, only: probes.only } }]
      : []),
  ];
  const notEvaluated = report.checks
    .filter((record) => record.status === "not evaluated")
    .map((record) => ({
      ...nameOf(record),
      ...(record.blockedBy ? { waitsOn: record.blockedBy.check } : {}),
    }));
  const facts: H2hCertifyFacts = {
    verdict: report.verdict,
    runId: report.runId,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    totals: report.totals,
    ...(report.partial ? { partial: report.partial } : {}),
    errors: report.errors,
    failedChecks: report.checks.filter((r) => r.status === "failed" && r.required).map(nameOf),
    notEvaluatedChecks: notEvaluated,
    signer,
    configuration: {
      suiteVersion: report.tool.version,
      ...(git.commit ? { gitCommit: git.commit, gitTreeDirty: git.dirty } : {}),
      ...(lock ? { packageLockSha256: lock } : {}),
      ...(profile ? { profileSha256: profile } : {}),
      ...(api ? { apiDescriptionSha256: api } : {}),
      target: {
        baseUrl,
        reference: report.target.reference,
        profileName: report.target.profileName,
        ...(image ? { image } : {}),
      },
      ...(probes ? { seed: probes.seed, depth: probes.depth, only: probes.only } : {}),
    },
  };
  return {
    _type: STATEMENT_TYPE,
    subject,
    predicateType: TEST_RESULT_PREDICATE,
    predicate: {
      result: RESULT_OF_VERDICT[report.verdict],
      configuration,
      ...testsByName(report.checks),
      h2hCertify: facts,
    },
  };
}
