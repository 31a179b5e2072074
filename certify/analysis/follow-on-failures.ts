/**
 * The root cause first. A target that accepts what it must refuse (a wrong code) or refuses what
 * it must accept moves its order off the path the suite modelled; every later check of that order
 * fails too, and a report sorted by count buries the cause. A required failure follows from such
 * a failure when its evidence holds, before the answer it judges, that failure's answer or the
 * same request answered the same way on another order (the same wrong code accepted on the way to
 * a later step); and a failure-envelope check of an answer follows from the failure that says the
 * request was not refused at all. It is recorded with `followsFrom`, shown under its cause, and
 * the cause's rule comes first.
 */
import type { RecordedExchange } from "../../contract/index.ts";
import { type CheckRecord, isFailure } from "../engine/run-model.ts";

/** Where a failure's cause sits, as a reader finds it. */
export interface FailureRef {
  endpoint: string;
  check: string;
  case?: string;
}

/**
 * Failures that change an order's course: a refusal the target did not give (or gave where it
 * must accept), the status an operation answered. A field or envelope failure leaves the order
 * where it was, so it explains nothing after it.
 */
function movesTheOrder(record: CheckRecord): boolean {
  // A key accepted where it must be refused moves no order: the request was the merchant's own.
  if (/-api-key$/.test(record.check)) return false;
  return record.check.startsWith("behaviour.") || record.check === "semantics.status-after-operation";
}

/**
 * A cause that stands for its step on any order: a request the target must refuse, accepted. Only
 * such a request, sent again on the way to a later step, moves that order the same way; a request
 * it must accept is sent by every order and explains none of them.
 */
function acceptedWhereRefused(record: CheckRecord, answer: RecordedExchange): boolean {
  return record.check.startsWith("behaviour.rejects-") && answer.response.status < 300;
}

/** Checks that read an answer as a refusal: an answer that was no refusal fails them for that cause alone. */
const READS_A_REFUSAL = /^envelope\.failure-/;

/** A request and its answer, the order's own ids left out: the same step taken on another order. */
function stepOf(exchange: RecordedExchange): string {
  const path = new URL(exchange.request.url).pathname.replace(/\/orders\/[^/]+\//, "/orders/{id}/");
  return `${exchange.request.method} ${path} ${exchange.request.body} -> ${exchange.response.status}`;
}

const refOf = (record: CheckRecord): FailureRef => ({
  endpoint: record.endpoint,
  check: record.check,
  ...(record.case !== undefined ? { case: record.case } : {}),
});

/** Sets `followsFrom` on each required failure an earlier failure of its order explains; returns how many. */
export function markFollowOnFailures(
  checks: readonly CheckRecord[],
  exchanges: readonly RecordedExchange[],
): number {
  const startOf = new Map(exchanges.map((e) => [e.id, Date.parse(e.startedAt)]));
  const byId = new Map(exchanges.map((e) => [e.id, e]));
  const causes = checks.filter(
    (record) => isFailure(record) && movesTheOrder(record) && record.subject !== undefined,
  );
  if (causes.length === 0) return 0;
  const causeByAnswer = new Map<string, CheckRecord[]>();
  const causeByStep = new Map<string, CheckRecord>();
  for (const cause of causes) {
    const list = causeByAnswer.get(cause.subject as string) ?? [];
    list.push(cause);
    causeByAnswer.set(cause.subject as string, list);
    const answer = byId.get(cause.subject as string);
    // The first failure of a step, by when it was sent, stands for it.
    if (answer && acceptedWhereRefused(cause, answer)) {
      const step = stepOf(answer);
      const known = causeByStep.get(step);
      const knownAt = known ? (startOf.get(known.subject as string) ?? 0) : Number.POSITIVE_INFINITY;
      if ((startOf.get(answer.id) ?? 0) < knownAt) causeByStep.set(step, cause);
    }
  }
  /** The earliest cause among the answers a record looked at, other than the one it judges itself. */
  const directCauseOf = (record: CheckRecord): CheckRecord | undefined => {
    let found: CheckRecord | undefined;
    let foundAt = Number.POSITIVE_INFINITY;
    const ownAt =
      record.subject !== undefined
        ? (startOf.get(record.subject) ?? Number.POSITIVE_INFINITY)
        : Number.POSITIVE_INFINITY;
    // An answer that was no refusal at all fails the checks that read it as one for that cause alone.
    const own = record.subject !== undefined ? byId.get(record.subject) : undefined;
    if (own && own.response.status < 400 && READS_A_REFUSAL.test(record.check)) {
      const noRefusal = (causeByAnswer.get(own.id) ?? []).find((cause) => cause !== record);
      if (noRefusal) return noRefusal;
    }
    for (const id of record.exchanges) {
      if (id === record.subject) continue;
      const at = startOf.get(id) ?? Number.POSITIVE_INFINITY;
      // Only an answer before the one judged can have moved the order it finds.
      if (at > ownAt || at >= foundAt) continue;
      const exchange = byId.get(id);
      // The same step failing on another order is the same fault again, no cause of its own rule.
      const byStep = exchange ? causeByStep.get(stepOf(exchange)) : undefined;
      const cause =
        (causeByAnswer.get(id) ?? []).find((c) => c !== record) ??
        (byStep && byStep.check !== record.check ? byStep : undefined);
      if (cause && cause !== record) {
        found = cause;
        foundAt = at;
      }
    }
    return found;
  };
  let marked = 0;
  for (const record of checks) {
    if (!isFailure(record)) continue;
    let cause = directCauseOf(record);
    if (!cause) continue;
    // The cause of the cause, up to the first: each step is strictly earlier, so this ends.
    const seen = new Set<CheckRecord>([record]);
    for (let next = directCauseOf(cause); next && !seen.has(next); next = directCauseOf(next)) {
      seen.add(cause);
      cause = next;
    }
    record.followsFrom = refOf(cause);
    marked += 1;
  }
  return marked;
}

/** A failure's place in words: `endpoint › check › case`. */
export function describeRef(ref: FailureRef): string {
  return `${ref.endpoint} › ${ref.check}${ref.case ? ` › ${ref.case}` : ""}`;
}
