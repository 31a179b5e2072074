/**
 * The result of a certification run, as every report format renders it: one record per check
 * run (per endpoint and case), the exchanges they looked at, and the verdict.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type Finding,
  OPERATION_NAMES,
  type RecordedExchange,
  type RuleSource,
} from "../../contract/index.ts";
import type { TlsSummary } from "../../contract/kit/index.ts";
import { PROJECT_ROOT, type TargetContainerRecord } from "../../run-setup/index.ts";
import type { RunComparison } from "../analysis/compare.ts";
import type { CallbackEvidence } from "../reports/callback-evidence.ts";
import type { EvidenceBounds } from "../reports/evidence-bounds.ts";
import type { RateLimitWaits } from "./preflight.ts";
import type { BlockedBy, CallbackTimeline, Reproduction } from "./run-context.ts";
import type { RunTimings } from "./run-timings.ts";

/**
 * "not evaluated": the check could not judge, because something it depends on failed first (an
 * answer that is not JSON, an order that could not be created); `blockedBy` names that failure.
 */
export type CheckStatus = "passed" | "failed" | "skipped" | "not evaluated";

export type { BlockedBy } from "./run-context.ts";

export interface CheckRecord {
  /** The endpoint (operation name), or a group such as "(all endpoints)" or "(target)". */
  endpoint: string;
  /** The registered check name, e.g. `envelope.request-id-present`. */
  check: string;
  /** The case, where a check runs on several (e.g. a field path). */
  case?: string;
  /** The rule the check enforces, from the check registry. */
  rule: string;
  status: CheckStatus;
  /** A required check's failure makes the target not conformant; an informational one does not. */
  required: boolean;
  /** What was found (on failure: what is wrong, where and why). */
  detail: string;
  /** Why it was skipped, or why it is informational for this target. */
  reason?: string;
  durationMs: number;
  /** Ids of the exchanges (requests and responses) the check looked at. */
  exchanges: string[];
  /** The spec file (or "runner") it came from. */
  source: string;
  /** For callback checks: the order's callbacks, as they arrived. */
  timeline?: CallbackTimeline;
  /** For a failed generated or stateful probe: seed, re-run command, minimal request, curl. */
  reproduction?: Reproduction;
  /** The basis of the rule: stated, declared, necessary or advisory, and where from. */
  ruleSource?: RuleSource;
  /** On failure, each wrong field: path, expected, actual. */
  findings?: Finding[];
  /** For a check that was not evaluated: the failure it waits on. */
  blockedBy?: BlockedBy;
  /** The exchange whose answer the check judged, when it judged one. */
  subject?: string;
  /** Ids of the callbacks (see RunReport.callbacks) the check looked at. */
  callbacks?: string[];
  /** A failure an earlier failure of the same order or request explains: that one (analysis/follow-on-failures.ts). */
  followsFrom?: { endpoint: string; check: string; case?: string };
  /** Results of this check alike that this one record stands for (observe's passes, its failures past a cap); absent: one. */
  count?: number;
}

export interface EndpointSummary {
  endpoint: string;
  passed: number;
  /** Required checks that failed: what makes the target not conformant. */
  failed: number;
  /** Checks that cannot fail the run (advisory, informational, warnings) and were not met. */
  advisories: number;
  skipped: number;
  notEvaluated: number;
  /** Passed / (passed + failed), in percent; null when nothing was judged. Advisories count in neither. */
  score: number | null;
}

/** A failure: a required check not met. Only these make a target not conformant. */
export const isFailure = (record: Pick<CheckRecord, "status" | "required">): boolean =>
  record.status === "failed" && record.required;

/** An advisory: a check not met that cannot fail the run; reported with what the target did, never as a failure. */
export const isAdvisory = (record: Pick<CheckRecord, "status" | "required">): boolean =>
  record.status === "failed" && !record.required;

/**
 * "incomplete": stopped by the deadline, SIGINT or SIGTERM; the reports hold what ran.
 * "partial": no required check failed, but the run judged only part of the contract (`--only`, or
 * required checks not evaluated): never a pass.
 */
export type Verdict = "conformant" | "not conformant" | "not run" | "incomplete" | "partial";

/**
 * A finished run judged over its checks: sorted, counted per endpoint, and its verdict, in this
 * order: stopped, not run (an error), a required check failed, part of the contract judged, else
 * conformant. A stop's reason is put first among `errors`.
 */
export function judgeRun(run: {
  checks: CheckRecord[];
  errors: string[];
  stoppedBecause: string | undefined;
  /** `--only`: the checks the run was limited to. */
  only: readonly string[];
  /** Checks `--only` left out of the specs that ran. */
  leftOutByOnly?: number;
}): Pick<RunReport, "verdict" | "partial" | "summary" | "totals"> {
  sortChecks(run.checks);
  const { summary, totals } = summarize(run.checks);
  if (run.stoppedBecause !== undefined) run.errors.unshift(run.stoppedBecause);
  const requiredNotEvaluated = run.checks.filter((c) => c.status === "not evaluated" && c.required).length;
  const partial: PartialRun | undefined =
    run.only.length > 0 || requiredNotEvaluated > 0
      ? {
          checksRun: totals.passed + totals.failed,
          checksNotRun: (run.leftOutByOnly ?? 0) + requiredNotEvaluated,
          only: [...run.only],
        }
      : undefined;
  const verdict: Verdict =
    run.stoppedBecause !== undefined
      ? "incomplete"
      : run.errors.length > 0
        ? "not run"
        : totals.failedRequired > 0
          ? "not conformant"
          : partial !== undefined
            ? "partial"
            : "conformant";
  return { verdict, ...(verdict === "partial" && partial ? { partial } : {}), summary, totals };
}

/** A verdict's exit code, for every command and helper that ends with one (README "Exit codes"). */
export const EXIT_OF_VERDICT = {
  conformant: 0,
  "not conformant": 1,
  "not run": 2,
  incomplete: 2, // deadline, SIGINT or SIGTERM
  partial: 4, // --only, or required checks not evaluated: never a pass
} as const satisfies Record<Verdict, number>;

/** The tool's version, from its package.json. */
export async function toolVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string };
  return pkg.version;
}

/** What a partial run judged and what it left out. */
export interface PartialRun {
  /** Checks judged (passed or failed). */
  checksRun: number;
  /** Checks left out by `--only`, and required checks not evaluated. */
  checksNotRun: number;
  /** The `--only` checks, when the run was limited to them. */
  only: string[];
}

/** How much a partial run judged, in words: the console and the HTML say it alike. */
export function partialLine(partial: PartialRun): string {
  const why = partial.only.length > 0 ? ` (--only ${partial.only.join(", ")})` : "";
  return `${partial.checksRun} check(s) run, ${partial.checksNotRun} not run${why}: not a certification`;
}

export interface RunReport {
  tool: { name: string; version: string };
  /** What was certified: the provider's API (absent), or a merchant's webhook receiver. */
  subject?: "receiver";
  /**
   * The most serious finding, said before anything else in every report: a receiver that
   * acknowledged a forged callback.
   */
  alarm?: string;
  runId: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  target: {
    baseUrl: string;
    reference: boolean;
    profileName: string;
    profilePath: string;
    /** The TLS files used (paths, certificate subjects and expiry; never a key or passphrase). */
    tls?: TlsSummary;
  };
  /** The generated and stateful probes: the same seed (and prefix) sends the same requests. */
  probes?: { seed: number; depth: string; merchantOrderIdPrefix: string; only: string[] };
  verdict: Verdict;
  /** With the verdict "partial": how much of the contract the run judged. */
  partial?: PartialRun;
  /** Why the run could not judge the target, when it could not (unreachable, bad setup). */
  errors: string[];
  /** What the reader must know but is no failure (a sandbox clock that did not answer, say). */
  warnings: string[];
  summary: EndpointSummary[];
  /** `failed` and `failedRequired` both count required failures; `advisories` the rest. */
  totals: {
    passed: number;
    failed: number;
    failedRequired: number;
    advisories: number;
    skipped: number;
    notEvaluated: number;
  };
  checks: CheckRecord[];
  exchanges: RecordedExchange[];
  /** H2H_TARGET_IMAGE: the container the target ran in, its logs included. */
  targetContainer?: TargetContainerRecord;
  /** The 429s the run waited out (each exchange's `rateLimited` says which). */
  rateLimitWaits?: RateLimitWaits;
  /** H2H_BASELINE_REPORT: what changed since that run. */
  baseline?: RunComparison;
  /** Every callback the webhook sink received during the run, masked. */
  callbacks: CallbackEvidence[];
  /** What the evidence bounds left out (cut or dropped bodies, callbacks refused by a full sink). */
  evidenceBounds?: EvidenceBounds;
  /** Where the run's time went: process start, the specs, each spec file (bench:certify reads it). */
  timings?: RunTimings;
}

const STATUS_KEY = {
  passed: "passed",
  failed: "failed",
  skipped: "skipped",
  "not evaluated": "notEvaluated",
} as const satisfies Record<CheckStatus, keyof EndpointSummary>;

const summaryKeyOf = (record: CheckRecord): keyof EndpointSummary =>
  isAdvisory(record) ? "advisories" : STATUS_KEY[record.status];

/** Endpoint order in reports: the four endpoints as the API description lists them, then the rest. */
const ENDPOINT_ORDER: readonly string[] = ["(target)", ...OPERATION_NAMES, "(all endpoints)"];

function endpointRank(endpoint: string): number {
  const rank = ENDPOINT_ORDER.indexOf(endpoint);
  return rank === -1 ? ENDPOINT_ORDER.length : rank;
}

export function summarize(checks: readonly CheckRecord[]): {
  summary: EndpointSummary[];
  totals: RunReport["totals"];
} {
  const byEndpoint = new Map<string, EndpointSummary>();
  for (const record of checks) {
    const entry = byEndpoint.get(record.endpoint) ?? {
      endpoint: record.endpoint,
      passed: 0,
      failed: 0,
      advisories: 0,
      skipped: 0,
      notEvaluated: 0,
      score: null,
    };
    (entry[summaryKeyOf(record)] as number) += record.count ?? 1;
    byEndpoint.set(record.endpoint, entry);
  }
  const summary = [...byEndpoint.values()]
    .map((entry) => ({
      ...entry,
      score:
        entry.passed + entry.failed > 0
          ? Math.round((entry.passed / (entry.passed + entry.failed)) * 1000) / 10
          : null,
    }))
    .sort(
      (a, b) => endpointRank(a.endpoint) - endpointRank(b.endpoint) || a.endpoint.localeCompare(b.endpoint),
    );
  const results = (keep: (c: CheckRecord) => boolean) =>
    checks.reduce((n, c) => (keep(c) ? n + (c.count ?? 1) : n), 0);
  const totals = {
    passed: results((c) => c.status === "passed"),
    failed: results(isFailure),
    failedRequired: results(isFailure),
    advisories: results(isAdvisory),
    skipped: results((c) => c.status === "skipped"),
    notEvaluated: results((c) => c.status === "not evaluated"),
  };
  return { summary, totals };
}

export function sortChecks(checks: CheckRecord[]): CheckRecord[] {
  return checks.sort(
    (a, b) => endpointRank(a.endpoint) - endpointRank(b.endpoint) || a.endpoint.localeCompare(b.endpoint),
  );
}
