/**
 * The reports of an observe session: its own JSON (both verdicts, coverage, what was not
 * observed), and the usual set (JUnit, JSON, HTML, HAR with the callbacks) through certify's
 * writers, every side's checks under its name. All masked, as every report is.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { MAX_RUN_BODY_BYTES, type Profile, type RecordedExchange } from "../../contract/index.ts";
import type { Masker } from "../../contract/kit/index.ts";
import { type CheckRecord, type RunReport, summarize, toolVersion } from "../engine/run-model.ts";
import type { CallbackEvidence } from "../reports/callback-evidence.ts";
import { writeReportSet } from "../reports/index.ts";
import type { ObserveJudgement, SideJudgement } from "./judge.ts";
import type { KeptBody, ObservedCallbackDelivery, ObservedExchange, ObserveSession } from "./session.ts";

/** Observe's reports go in a folder of their own, beside certify's. */
export const OBSERVE_REPORT_SUBDIR = "observe";
export const OBSERVE_REPORT_FILE = "h2h-observe.json";

export interface ObserveReportPaths {
  json: string;
  junit?: string;
  html?: string;
  har?: string;
  /** Why the usual set could not be written, when it could not. */
  setError?: string;
}

export interface ObserveReportInput {
  judgement: ObserveJudgement;
  session: ObserveSession;
  profile: Profile;
  profilePath?: string | undefined;
  upstream: string;
  reference: boolean;
  startedAt: Date;
  finishedAt: Date;
  stoppedBecause: string;
  sinkRefusals: Record<string, number>;
}

const VERDICT_WORDS = {
  conformant: "CONFORMANT",
  "not conformant": "NOT CONFORMANT",
  "nothing observed": "NOTHING OBSERVED",
  "not judged": "NOT JUDGED",
} as const;

/** The console's closing lines: each side's verdict, its failures, what was not observed. */
export function observeConsoleLines(judgement: ObserveJudgement): string[] {
  const lines: string[] = [];
  const side = (name: string, s: SideJudgement, line: string) => {
    lines.push(`${name}: ${VERDICT_WORDS[s.verdict]}: ${line}`);
    for (const failure of s.checks.filter((c) => c.status === "failed" && c.required).slice(0, 10))
      lines.push(
        `  FAIL ${failure.check} [${failure.endpoint}${failure.case ? ` ${failure.case}` : ""}]: ${failure.detail}`,
      );
    if (s.notObserved.length > 0)
      lines.push(`  not observed (${s.notObserved.length}): ${s.notObserved.map((r) => r.check).join(", ")}`);
  };
  side("provider", judgement.provider, judgement.lines.provider);
  side("merchant", judgement.merchant, judgement.lines.merchant);
  if (!judgement.callbacksObserved) lines.push("callbacks: unobserved (--keep-webhook)");
  if (judgement.transportFaults > 0)
    lines.push(
      `transport: ${judgement.transportFaults} request(s) got no answer from the provider (a transport fault of the upstream, not a violation)`,
    );
  if (judgement.unknownCallbacks > 0)
    lines.push(
      `callbacks: ${judgement.unknownCallbacks} to a URL this session never gave out, refused (404)`,
    );
  return lines;
}

export async function writeObserveReports(
  input: ObserveReportInput,
  reportDir: string,
  masker: Masker,
): Promise<ObserveReportPaths> {
  const dir = resolve(reportDir, OBSERVE_REPORT_SUBDIR);
  await mkdir(dir, { recursive: true });
  const { judgement, session } = input;
  const evidence = boundedEvidence(session, judgement);
  const json = join(dir, OBSERVE_REPORT_FILE);
  const own = {
    tool: { name: "h2h-certify", version: await toolVersion() },
    mode: "observe",
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    stoppedBecause: input.stoppedBecause,
    upstream: { baseUrl: input.upstream, reference: input.reference, profileName: input.profile.name },
    provider: sideReport(judgement.provider, judgement.lines.provider),
    merchant: sideReport(judgement.merchant, judgement.lines.merchant),
    coverage: judgement.coverage,
    counts: {
      exchanges: judgement.exchanges,
      callbacks: judgement.callbacks,
      transportFaults: judgement.transportFaults,
      unknownCallbacks: judgement.unknownCallbacks,
      sinkRefusals: input.sinkRefusals,
      bodiesDropped: evidence.bodiesDropped,
      exchangesNotListed: evidence.exchangesNotListed,
      callbacksNotListed: evidence.callbacksNotListed,
    },
    callbacksObserved: judgement.callbacksObserved,
    evidenceCapBytes: session.capBytes,
    evidenceRunBoundBytes: MAX_RUN_BODY_BYTES,
    exchanges: evidence.exchanges,
    callbacks: evidence.callbacks,
  };
  await writeFile(json, masker.text(`${JSON.stringify(own, null, 2)}\n`));
  const set = await writeReportSet(await asRunReport(input, evidence), dir, masker);
  return set.paths
    ? { json, junit: set.paths.junit, html: set.paths.html, har: set.paths.har }
    : { json, setError: set.error };
}

function sideReport(side: SideJudgement, line: string) {
  return {
    verdict: VERDICT_WORDS[side.verdict],
    line,
    failed: side.failed,
    results: summarize(side.checks).totals,
    notObserved: side.notObserved,
    checks: side.checks,
  };
}

/** The session as certify's reports read a run: each check under `provider ·` or `merchant ·`. */
async function asRunReport(input: ObserveReportInput, evidence: BoundedEvidence): Promise<RunReport> {
  const { judgement } = input;
  const named = (side: string, checks: CheckRecord[]) =>
    checks.map((check) => ({ ...check, endpoint: `${side} · ${check.endpoint}` }));
  const checks = [
    ...named("provider", judgement.provider.checks),
    ...named("merchant", judgement.merchant.checks),
  ];
  const { summary, totals } = summarize(checks);
  const failed = judgement.provider.failed + judgement.merchant.failed;
  const exchanges: RecordedExchange[] = evidence.exchanges.map((e) => ({
    id: e.id,
    source: "observe",
    startedAt: new Date(e.startedAtMs).toISOString(),
    durationMs: e.durationMs,
    request: {
      method: e.method,
      url: `${input.upstream.replace(/\/+$/, "")}${e.path}`,
      headers: e.requestHeaders,
      body: e.requestBody.text,
    },
    response: e.response
      ? {
          status: e.response.status,
          headers: e.response.headers,
          body: e.response.body.text,
          json: undefined,
          // A compressed answer is shown decoded, and says so; one that did not decode, as received.
          ...(e.response.encoding
            ? {
                contentEncoding: {
                  codings: e.response.encoding.codings,
                  decoded: e.response.encoding.decoded,
                  ...(e.response.encoding.problem ? { problem: e.response.encoding.problem } : {}),
                },
              }
            : {}),
        }
      : { status: 0, headers: {}, body: e.transportFault ?? "", json: undefined },
  }));
  const deliveries = new Map<string, number>();
  const callbacks: CallbackEvidence[] = evidence.callbacks.map((c) => {
    const key = c.orderId ?? "";
    deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
    return {
      id: c.id,
      receivedAt: new Date(c.receivedAtMs).toISOString(),
      method: "POST",
      url: "(the observe sink)",
      headers: c.headers,
      body: c.body.text,
      bodyEncoding: "utf8",
      bodyBytes: c.body.bytes,
      // Shown decoded when it decoded (the observe report's `encoding` says so); else as received.
      ...(c.encoding && !c.encoding.decoded
        ? { contentEncoding: c.encoding.codings.join(", "), bodyProblem: c.encoding.problem ?? "not decoded" }
        : {}),
      orderId: c.orderId,
      status: c.status,
      delivery: deliveries.get(key) as number,
      signature: c.signature,
      answeredWith: c.answer?.status ?? 0,
    };
  });
  return {
    tool: { name: "h2h-certify", version: await toolVersion() },
    runId: `observe-${input.startedAt.getTime()}`,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    durationMs: input.finishedAt.getTime() - input.startedAt.getTime(),
    target: {
      baseUrl: input.upstream,
      reference: input.reference,
      profileName: input.profile.name,
      profilePath: input.profilePath ?? "",
    },
    verdict:
      judgement.provider.verdict === "not judged"
        ? "incomplete"
        : judgement.exchanges === 0
          ? "not run"
          : failed > 0
            ? "not conformant"
            : "conformant",
    errors:
      judgement.provider.verdict === "not judged"
        ? [judgement.lines.provider]
        : judgement.exchanges === 0
          ? ["nothing observed: no exchange passed the proxy"]
          : [],
    warnings: [
      `observe: provider ${VERDICT_WORDS[judgement.provider.verdict]}: ${judgement.lines.provider}`,
      `observe: merchant ${VERDICT_WORDS[judgement.merchant.verdict]}: ${judgement.lines.merchant}`,
      ...(evidence.exchangesNotListed + evidence.callbacksNotListed > 0
        ? [
            `observe: ${evidence.exchangesNotListed} exchange(s) and ${evidence.callbacksNotListed} callback(s) judged but not listed: past the first ${LISTED_IN_FULL}, only those a listed check names are`,
          ]
        : []),
    ],
    summary,
    totals,
    checks,
    exchanges,
    callbacks,
  };
}

interface BoundedEvidence {
  exchanges: ObservedExchange[];
  callbacks: ObservedCallbackDelivery[];
  /** Bodies left out of the reports: the session's bodies had reached the run's bound. */
  bodiesDropped: number;
  /** Exchanges and callbacks past the first ones that no listed check names: counted, not listed. */
  exchangesNotListed: number;
  callbacksNotListed: number;
}

/** Exchanges (and callbacks) listed in the reports whether or not a listed check names them. */
export const LISTED_IN_FULL = 1_000;

/**
 * The session's evidence for the reports, read back once: the first {@link LISTED_IN_FULL}
 * exchanges and callbacks, and every one a listed check names (each failure's evidence), so a
 * long session's reports hold no more than the checks they list. Bodies are kept up to certify's
 * bound for a whole run ({@link MAX_RUN_BODY_BYTES}); past it each body is kept as its size only.
 */
function boundedEvidence(session: ObserveSession, judgement: ObserveJudgement): BoundedEvidence {
  const named = new Set<string>();
  for (const record of [...judgement.provider.checks, ...judgement.merchant.checks]) {
    for (const id of record.exchanges) named.add(id);
    for (const id of record.callbacks ?? []) named.add(id);
    if (record.subject !== undefined) named.add(record.subject);
  }
  let exchangesNotListed = 0;
  let callbacksNotListed = 0;
  let kept = 0;
  let bodiesDropped = 0;
  const bound = (body: KeptBody): KeptBody => {
    const bytes = Buffer.byteLength(body.text);
    if (kept + bytes <= MAX_RUN_BODY_BYTES) {
      kept += bytes;
      return body;
    }
    bodiesDropped += 1;
    return { text: "", bytes: body.bytes, cut: true };
  };
  const exchanges: ObservedExchange[] = [];
  let seen = 0;
  for (const e of session.eachExchange()) {
    seen += 1;
    if (seen > LISTED_IN_FULL && !named.has(e.id)) {
      exchangesNotListed += 1;
      continue;
    }
    exchanges.push({
      ...e,
      requestBody: bound(e.requestBody),
      ...(e.response ? { response: { ...e.response, body: bound(e.response.body) } } : {}),
    });
  }
  const callbacks: ObservedCallbackDelivery[] = [];
  seen = 0;
  for (const c of session.eachCallback()) {
    seen += 1;
    if (seen > LISTED_IN_FULL && !named.has(c.id)) {
      callbacksNotListed += 1;
      continue;
    }
    callbacks.push({
      ...c,
      body: bound(c.body),
      ...(c.answer ? { answer: { ...c.answer, body: bound(c.answer.body) } } : {}),
    });
  }
  return { exchanges, callbacks, bodiesDropped, exchangesNotListed, callbacksNotListed };
}
