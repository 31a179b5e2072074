/**
 * The checks the engine runs: after the specs, every registered check of scope `run` judges the
 * run's exchanges through its `overRun`, and every exchange check with an `overExchange` judges
 * each answer. The engine names none of them: a check registers itself (contract/checks
 * defineCheck), and here each judgement becomes a record, masked.
 */
import {
  type Check,
  effectiveSource,
  engineRunChecks,
  type Profile,
  type RecordedExchange,
  type RunJudgement,
  requirementOf,
} from "../../contract/index.ts";
import type { Masker } from "../../contract/kit/index.ts";
import type { CheckRecord } from "./run-model.ts";

/** The names of the run-scope checks: `--only` one of them, and every spec still runs to make its exchanges. */
export function runScopeCheckNames(): string[] {
  return engineRunChecks().map((check) => check.name);
}

/** Every run-scope check's records of the run, in the order the checks were registered. */
export function runScopeChecks(
  exchanges: readonly RecordedExchange[],
  profile: Profile,
  masker: Masker,
): CheckRecord[] {
  return engineRunChecks().flatMap((check) => {
    const judgements = check.overRun
      ? check.overRun({ exchanges, profile })
      : exchanges.flatMap((exchange) => {
          const judgement = check.overExchange?.(exchange, profile);
          return judgement ? [{ subject: exchange.id, exchanges: [exchange.id], ...judgement }] : [];
        });
    return judgements.map((judgement) => recordOf(check, judgement, profile, masker));
  });
}

function recordOf(
  check: Check<never>,
  judgement: RunJudgement,
  profile: Profile,
  masker: Masker,
): CheckRecord {
  const { outcome } = judgement;
  const requirement =
    judgement.notRequired !== undefined
      ? { required: false as const, reason: judgement.notRequired }
      : requirementOf(check, profile);
  const reason = judgement.skipped ?? (requirement.required ? undefined : requirement.reason);
  const detail = masker.text(judgement.skipped ?? outcome.detail);
  return {
    endpoint: judgement.endpoint ?? "(all endpoints)",
    check: check.name,
    ...(judgement.case !== undefined ? { case: masker.text(judgement.case) } : {}),
    rule: check.rule,
    status: judgement.skipped
      ? "skipped"
      : judgement.blockedBy
        ? "not evaluated"
        : outcome.ok
          ? "passed"
          : "failed",
    required: requirement.required,
    detail,
    ...(reason !== undefined ? { reason } : {}),
    durationMs: 0,
    exchanges: judgement.exchanges ?? [],
    source: "runner",
    ruleSource: effectiveSource(check.source, profile),
    ...(judgement.blockedBy ? { blockedBy: judgement.blockedBy } : {}),
    ...(judgement.subject !== undefined ? { subject: judgement.subject } : {}),
    ...(outcome.findings && !outcome.ok
      ? {
          findings: outcome.findings.map((f) => ({
            ...f,
            path: masker.text(f.path),
            expected: masker.text(f.expected),
            actual: masker.text(f.actual),
          })),
        }
      : {}),
  };
}
