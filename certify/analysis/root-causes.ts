/**
 * One cause per failure, across the whole run. The specs mark a check "not
 * evaluated" when the answer it judges is not JSON or not an envelope, or when what it needed
 * (an order) could not be made; here, after the run, every such cause is reported once per
 * endpoint, as the failure of the check that judges it, and every check waiting on it points
 * there:
 *
 * - the answers of one endpoint that fail `envelope.shape` for the same reason (same kind,
 *   HTTP status and media type) are one failure; the others are "not evaluated" and point at it;
 * - a cause no check of the endpoint reported yet (an answer only a rejection check read, a
 *   setup request) becomes a failure of its own: `envelope.shape` when the answer cannot be
 *   read, `envelope.success-markers` when the setup request was refused.
 *
 * So a target whose every answer is an HTML error page shows one failure per endpoint, with the
 * count of checks it kept from being evaluated, never a failure per check.
 */
import {
  answerRootCause,
  type Check,
  dataOf,
  effectiveSource,
  envelopeShape,
  envelopeSuccessMarkers,
  fieldsOrderRecord,
  fieldsQuasiEcomCreationResult,
  OPERATION,
  RATE_LIMITED,
  type RecordedExchange,
  type RequirementContext,
  rateLimitCause,
  refusalChangesNothing,
  refusalKeepsTimer,
  requirementOf,
  show,
  TRANSPORT_FAULT,
} from "../../contract/index.ts";
import type { BlockedBy, CheckRecord } from "../engine/run-model.ts";

/** The endpoint of the checks that judge the whole run. */
const RUN_WIDE = "(all endpoints)";

interface Cause {
  check: string;
  signature: string;
  reason: string;
  exchange: RecordedExchange | undefined;
}

/**
 * Why an answer is not the success a step needed: unreadable (not JSON, not the envelope), or
 * refused (its success markers fail), whatever its HTTP status; undefined for a success and for
 * a rate-limited answer, which is no answer at all.
 */
function refusalOf(exchange: RecordedExchange): Cause | undefined {
  if (rateLimitCause(exchange.response)) return undefined;
  const unreadable = answerRootCause(exchange.response);
  if (unreadable) return { ...unreadable, exchange };
  const outcome = envelopeSuccessMarkers.run(exchange.response);
  if (outcome.ok) return undefined;
  const codeError = (exchange.response.json as { result?: { codeError?: unknown } }).result?.codeError;
  return {
    check: envelopeSuccessMarkers.name,
    signature: `refused · HTTP ${exchange.response.status} · ${String(codeError)}`,
    reason: outcome.detail,
    exchange,
  };
}

/** What a blocked check waits on, judged from the recorded exchange where there is one. */
function causeOf(blockedBy: BlockedBy, exchanges: ReadonlyMap<string, RecordedExchange>): Cause | undefined {
  const exchange = blockedBy.exchange ? exchanges.get(blockedBy.exchange) : undefined;
  if (!exchange) return undefined;
  // No check fails for a rate-limited answer or a transport fault: what waits on it stays
  // unexplained, never judged.
  if (
    blockedBy.check === RATE_LIMITED ||
    blockedBy.check === TRANSPORT_FAULT ||
    rateLimitCause(exchange.response)
  )
    return undefined;
  const refusal = refusalOf(exchange);
  if (!refusal) return missingOrderId(blockedBy, exchange);
  // A readable answer that is not the success the setup needed: the success markers say why.
  return refusal.check === envelopeSuccessMarkers.name
    ? { ...refusal, reason: `${blockedBy.reason}: ${refusal.reason}` }
    : refusal;
}

const isCreation = (exchange: RecordedExchange | undefined) =>
  exchange?.operation === OPERATION.createMobileCommerceOrder ||
  exchange?.operation === OPERATION.createQuasiEcomOrder;

/**
 * Checks that judge what follows a refusal the suite provoked on purpose: the earlier refusal is
 * their setup, and a refused creation after it is their evidence, never a cause to point at.
 */
const JUDGES_AFTER_A_REFUSAL: ReadonlySet<string> = new Set([
  refusalChangesNothing.name,
  refusalKeepsTimer.name,
]);

/** Checks that read a success's data: on a refused answer, what they say follows from the refusal. */
const READS_SUCCESS_DATA = /^(fields|semantics)\./;

/**
 * The refused creation a failed check needed, when there is one: the creation answer it judged
 * (a check of a success's data), or a creation refused before the step it judged (a duplicate's
 * first order, the orders sent at once). Its failure would blame a later step for that refusal.
 */
function refusedCreationNeeded(
  record: CheckRecord,
  exchanges: ReadonlyMap<string, RecordedExchange>,
): RecordedExchange | undefined {
  if (record.status !== "failed" || record.check.startsWith("envelope.")) return undefined;
  if (JUDGES_AFTER_A_REFUSAL.has(record.check)) return undefined;
  const judged = record.subject ? exchanges.get(record.subject) : undefined;
  if (READS_SUCCESS_DATA.test(record.check) && isCreation(judged) && judged && refusalOf(judged))
    return judged;
  const steps = record.exchanges.map((id) => exchanges.get(id));
  const last = steps.at(-1);
  if (!last) return undefined;
  // Before it: answered before the last step was sent (orders sent at once are one step, not a setup).
  const before = (step: RecordedExchange) =>
    Date.parse(step.startedAt) + step.durationMs <= Date.parse(last.startedAt);
  return steps.slice(0, -1).find((step) => isCreation(step) && step && before(step) && refusalOf(step));
}

/** The field check of each creation answer: the one that fails when it names no order id. */
const CREATION_FIELDS: Partial<Record<string, Check<never>>> = {
  [OPERATION.createMobileCommerceOrder]: fieldsOrderRecord as Check<never>,
  [OPERATION.createQuasiEcomOrder]: fieldsQuasiEcomCreationResult as Check<never>,
};

/** A creation that succeeded but names no order id: its field check is the cause. */
function missingOrderId(blockedBy: BlockedBy, exchange: RecordedExchange): Cause | undefined {
  const check = exchange.operation ? CREATION_FIELDS[exchange.operation] : undefined;
  const id = dataOf(exchange.response.json)?.id;
  if (!check || (typeof id === "string" && id !== "")) return undefined;
  return {
    check: check.name,
    signature: `no order id · HTTP ${exchange.response.status}`,
    reason: `${blockedBy.reason}: data.id is ${id === undefined ? "missing" : show(id)}, so there is no order to go on with`,
    exchange,
  };
}

function where(exchange: RecordedExchange | undefined): string {
  if (!exchange) return "";
  const path = (() => {
    try {
      return new URL(exchange.request.url).pathname;
    } catch {
      return exchange.request.url;
    }
  })();
  return `${exchange.request.method} ${path}`;
}

/** Whether a check was not evaluated because the answer it needed was rate limited (429, 503). */
export function isRateLimited(
  record: CheckRecord,
  exchanges: ReadonlyMap<string, RecordedExchange>,
): boolean {
  const blockedBy = record.blockedBy;
  if (record.status !== "not evaluated" || !blockedBy) return false;
  if (blockedBy.check === RATE_LIMITED) return true;
  const exchange = blockedBy.exchange ? exchanges.get(blockedBy.exchange) : undefined;
  return exchange !== undefined && rateLimitCause(exchange.response) !== undefined;
}

/** Whether a check was not evaluated because an exchange it needed met a transport fault. */
export function isTransportFault(record: Pick<CheckRecord, "status" | "blockedBy">): boolean {
  return record.status === "not evaluated" && record.blockedBy?.check === TRANSPORT_FAULT;
}

export interface ResolvedChecks {
  /** The records in their order, each cause's failure before the first check it blocks. */
  records: CheckRecord[];
  /** Checks not evaluated for a cause no failure reports (a setup that failed without an answer). */
  unexplained: CheckRecord[];
}

/** Rewrites the records so each cause fails once per endpoint (see the file comment). */
export function resolveRootCauses(
  records: readonly CheckRecord[],
  exchanges: readonly RecordedExchange[],
  requirements: RequirementContext,
): ResolvedChecks {
  const byId = new Map(exchanges.map((exchange) => [exchange.id, exchange]));
  const roots = new Map<string, CheckRecord>();
  const blockedCount = new Map<CheckRecord, number>();
  const key = (endpoint: string, signature: string) => `${endpoint}\u0000${signature}`;
  const pointAt = (record: CheckRecord, root: CheckRecord, reason: string) => {
    record.status = "not evaluated";
    record.blockedBy = {
      check: root.check,
      ...(root.case ? { case: root.case } : {}),
      ...(root.subject ? { exchange: root.subject } : {}),
      reason,
    };
    record.detail = `not evaluated, because ${reason}`;
    delete record.findings;
    blockedCount.set(root, (blockedCount.get(root) ?? 0) + 1);
  };

  // The answers envelope.shape or envelope.success-markers itself failed on: the first per
  // endpoint and cause stays.
  for (const record of records) {
    if (record.status !== "failed" || !record.subject) continue;
    if (record.check !== envelopeShape.name && record.check !== envelopeSuccessMarkers.name) continue;
    const exchange = byId.get(record.subject);
    const cause = exchange ? refusalOf(exchange) : undefined;
    if (!cause || cause.check !== record.check) continue;
    const root = roots.get(key(record.endpoint, cause.signature));
    if (root) pointAt(record, root, `${cause.reason}, as for ${root.case ?? root.check}`);
    else roots.set(key(record.endpoint, cause.signature), record);
  }

  // A check that failed for a creation refused before it waits on that refusal instead.
  for (const record of records) {
    const refused = refusedCreationNeeded(record, byId);
    if (!refused) continue;
    record.status = "not evaluated";
    record.blockedBy = {
      check: envelopeSuccessMarkers.name,
      exchange: refused.id,
      reason: `the creation it needed was not made (${where(refused)} answered HTTP ${refused.response.status})`,
    };
    delete record.findings;
  }
  // The creations a step needed and the target refused, by operation and answer: a check whose
  // own creation got that same answer (a duplicate across kinds, a rejection) cannot be judged
  // by it either, the target refuses such orders whatever is sent.
  const neededRefusals = new Map<string, RecordedExchange>();
  for (const record of records) {
    const id = record.blockedBy?.exchange ?? (record.status === "failed" ? record.subject : undefined);
    const exchange = id ? byId.get(id) : undefined;
    const refusal = exchange && isCreation(exchange) ? refusalOf(exchange) : undefined;
    const isNeeded = record.status === "not evaluated" || record.check === refusal?.check;
    if (exchange && refusal && isNeeded)
      neededRefusals.set(`${exchange.operation} ${refusal.signature}`, exchange);
  }
  for (const record of records) {
    if (record.status !== "failed" || record.check.startsWith("envelope.")) continue;
    if (JUDGES_AFTER_A_REFUSAL.has(record.check)) continue;
    const last = byId.get(record.subject ?? record.exchanges.at(-1) ?? "");
    const refusal = last && isCreation(last) ? refusalOf(last) : undefined;
    const needed = refusal && neededRefusals.get(`${last?.operation} ${refusal.signature}`);
    if (!needed || needed.id === last?.id) continue;
    record.status = "not evaluated";
    record.blockedBy = {
      check: refusal.check,
      exchange: needed.id,
      reason: `the target answers such a creation as it answered the one a step needed (${where(needed)}, HTTP ${needed.response.status})`,
    };
    delete record.findings;
  }

  // A refused retry is evidence that the refusal before it changed something only where the
  // target makes such orders at all: where it made none of that kind in the whole run, the retry's
  // refusal is the target's answer to every such creation, and waits on it like the rest.
  const made = new Set(
    exchanges
      .filter((e) => isCreation(e) && e.response.status >= 200 && e.response.status < 300 && !refusalOf(e))
      .map((e) => e.operation),
  );
  for (const record of records) {
    if (record.status !== "failed" || !JUDGES_AFTER_A_REFUSAL.has(record.check)) continue;
    const retry = byId.get(record.subject ?? "");
    const refusal = retry && isCreation(retry) && !made.has(retry.operation) ? refusalOf(retry) : undefined;
    if (!retry || !refusal) continue;
    record.status = "not evaluated";
    record.blockedBy = {
      check: refusal.check,
      exchange: retry.id,
      reason: `the target made no order of this kind in the whole run (${where(retry)} answered HTTP ${retry.response.status})`,
    };
    delete record.findings;
  }

  const out: CheckRecord[] = [];
  for (const record of records) {
    if (record.status === "not evaluated" && record.blockedBy) {
      const cause = causeOf(record.blockedBy, byId);
      if (cause) {
        const rootKey = key(record.endpoint, cause.signature);
        let root = roots.get(rootKey);
        if (!root) {
          const check =
            [envelopeShape, envelopeSuccessMarkers, ...Object.values(CREATION_FIELDS)].find(
              (candidate) => candidate?.name === cause.check,
            ) ?? envelopeSuccessMarkers;
          const requirement = requirementOf(check, requirements);
          root = {
            endpoint: record.endpoint,
            check: check.name,
            case: `answer to ${where(cause.exchange)}`,
            rule: check.rule,
            status: "failed",
            required: requirement.required,
            detail: cause.reason,
            ...(requirement.required ? {} : { reason: requirement.reason }),
            durationMs: 0,
            exchanges: cause.exchange ? [cause.exchange.id] : [],
            source: record.source,
            ruleSource: effectiveSource(check.source, requirements),
            ...(cause.exchange ? { subject: cause.exchange.id } : {}),
          };
          roots.set(rootKey, root);
          out.push(root);
        }
        pointAt(record, root, cause.reason);
      }
    }
    out.push(record);
  }
  for (const [root, count] of blockedCount) {
    root.detail = `${root.detail} — the cause of ${count} check(s) not evaluated on ${root.endpoint}`;
  }
  // A check is explained when the failure it points at is in the report: by the answer that is
  // its cause, or by the check (and case) that failed for it on the same endpoint.
  const explained = new Set([...roots.values()].map((root) => root.subject));
  const failed = new Set(
    out.filter((r) => r.status === "failed").map((r) => key(r.endpoint, `${r.check}\u0000${r.case ?? ""}`)),
  );
  // A run-wide check waits on a rule that failed on any endpoint.
  const failedAnywhere = new Set(out.filter((r) => r.status === "failed").map((r) => r.check));
  const unexplained = out.filter((record) => {
    if (record.status !== "not evaluated") return false;
    const blockedBy = record.blockedBy;
    if (!blockedBy) return true;
    if (blockedBy.exchange && explained.has(blockedBy.exchange)) return false;
    if (record.endpoint === RUN_WIDE && failedAnywhere.has(blockedBy.check)) return false;
    // The failure may sit on another endpoint (a sandbox clock's lifecycle pairs wait on the callbacks').
    return !failed.has(
      key(blockedBy.endpoint ?? record.endpoint, `${blockedBy.check}\u0000${blockedBy.case ?? ""}`),
    );
  });
  return { records: out, unexplained };
}
