/**
 * The one way a spec runs a check: run it, record its outcome and evidence on the test (Vitest
 * task meta, which the certify reporter reads), and fail the test when a required check fails.
 * A check judged informational (contract/checks `requirementOf`) is recorded as failed but does
 * not fail the test.
 */
import {
  acceptanceExplained,
  answerRootCause,
  type Check,
  describeRuleSource,
  type Exchange,
  effectiveSource,
  envelopeShape,
  type Normalisation,
  RATE_LIMITED,
  type RejectionInput,
  type RuleSource,
  rateLimitCause,
  requirementOf,
  transportFaultCause,
} from "../../../contract/index.ts";
import type { BlockedBy, CallbackTimeline, CheckMeta, Reproduction } from "../../engine/run-context.ts";
import type { SpecTarget } from "./target.ts";

/** The minimum of Vitest's test context that verify needs. */
interface TaskLike {
  task: { meta: { h2h?: CheckMeta } };
}

export class CheckFailure extends Error {
  override name = "CheckFailure";
}

export interface VerifyExtra {
  informationalReason?: string;
  /** The basis of what is judged, when it is not the check's own (a derived negative's constraint). */
  ruleSource?: RuleSource;
  timeline?: CallbackTimeline;
  /** How to reproduce the failure of a generated or stateful probe; recorded only when the check fails. */
  reproduction?: Reproduction;
  /**
   * The exchange whose answer the check judges (default: the last of `evidence`); null when it
   * judges none (callbacks). When that answer is not JSON or not an envelope, the check is not
   * evaluated: `envelope.shape` fails for it instead, once (one cause per failure).
   */
  subject?: Exchange | null;
  /** Ids of the callbacks the check looks at (`callback-<seq>`). */
  callbacks?: string[];
  /** A failure this check depends on, known to the spec (no callback arrived): not evaluated. */
  blockedBy?: BlockedBy;
  /**
   * For a probe: the common, harmless normalisation that makes its input valid. An acceptance it
   * explains is an advisory, unless the profile lists it in `strictInput`.
   */
  normalisation?: Normalisation | undefined;
}

export function verify<Input>(
  context: TaskLike,
  // The receiver battery's specs judge with the same two: the profile and the masker.
  target: Pick<SpecTarget, "profile" | "masker">,
  check: Check<Input>,
  input: Input,
  evidence: readonly (Exchange | undefined)[] = [],
  extra: VerifyExtra = {},
): void {
  const requirement = requirementOf(check, target.profile, extra.informationalReason);
  const subject = extra.subject === undefined ? evidence.at(-1) : (extra.subject ?? undefined);
  // An answer that may be another request's (a desync) is no answer for any check it is evidence of.
  const faulty = evidence.find((e) => e !== undefined && transportFaultCause(e) !== undefined);
  // A rate-limited answer is no answer for any check, envelope.shape included.
  const cause = faulty
    ? transportFaultCause(faulty)
    : subject
      ? (rateLimitCause(subject.response) ?? answerRootCause(subject.response))
      : undefined;
  const causeExchange = faulty ?? subject;
  const common = {
    check: check.name,
    ruleSource: extra.ruleSource ?? effectiveSource(check.source, target.profile),
    required: requirement.required,
    ...(requirement.required ? {} : { informationalReason: requirement.reason }),
    exchanges: evidence.flatMap((e) => (e?.id ? [e.id] : [])),
    ...(subject?.id ? { subject: subject.id } : {}),
    ...(extra.timeline ? { timeline: extra.timeline } : {}),
    ...(extra.callbacks ? { callbacks: extra.callbacks } : {}),
  };
  if (extra.blockedBy) {
    const reason = target.masker.text(extra.blockedBy.reason);
    context.task.meta.h2h = {
      ...common,
      outcome: "not evaluated",
      detail: `not evaluated, because ${reason}`,
      blockedBy: { ...extra.blockedBy, reason },
    };
    return;
  }
  if (cause && (faulty || cause.check === RATE_LIMITED || check.name !== envelopeShape.name)) {
    const reason = target.masker.text(cause.reason);
    context.task.meta.h2h = {
      ...common,
      outcome: "not evaluated",
      detail: `not evaluated, because ${reason}`,
      blockedBy: {
        check: cause.check,
        reason,
        signature: cause.signature,
        ...(causeExchange?.id ? { exchange: causeExchange.id } : {}),
      },
    };
    return;
  }
  const outcome = check.run(input);
  if (outcome.notEvaluated) {
    // The check met a rate-limited answer among several (a race): it waits on that answer.
    const limited = evidence.find((e) => e !== undefined && rateLimitCause(e.response) !== undefined);
    const reason = target.masker.text(outcome.notEvaluated.reason);
    context.task.meta.h2h = {
      ...common,
      outcome: "not evaluated",
      detail: `not evaluated, because ${reason}`,
      blockedBy: { ...outcome.notEvaluated, reason, ...(limited?.id ? { exchange: limited.id } : {}) },
    };
    return;
  }
  // An acceptance a harmless normalisation explains gives nothing away: reported, not required.
  const explained =
    !outcome.ok && subject
      ? acceptanceExplained(subject.response.status, extra.normalisation, target.profile)
      : undefined;
  const judged = explained
    ? {
        ...common,
        required: false,
        ruleSource: explained,
        informationalReason: describeRuleSource(explained),
      }
    : common;
  const detail = target.masker.text(outcome.detail);
  const findings = outcome.findings?.map((finding) => ({
    ...finding,
    expected: target.masker.text(finding.expected),
    actual: target.masker.text(finding.actual),
  }));
  context.task.meta.h2h = {
    ...judged,
    outcome: outcome.ok ? "passed" : "failed",
    detail,
    ...(findings ? { findings } : {}),
    ...(!outcome.ok && extra.reproduction
      ? { reproduction: maskedReproduction(target, extra.reproduction) }
      : {}),
  };
  if (!outcome.ok && judged.required) throw new CheckFailure(`${check.name}: ${detail}`);
}

/** A reproduction with every text passed through the run's masker (the curl, the request, the steps). */
function maskedReproduction(target: Pick<SpecTarget, "masker">, reproduction: Reproduction): Reproduction {
  const mask = (text: string) => target.masker.text(text);
  return {
    ...reproduction,
    command: mask(reproduction.command),
    ...(reproduction.request !== undefined ? { request: mask(reproduction.request) } : {}),
    ...(reproduction.curl !== undefined ? { curl: mask(reproduction.curl) } : {}),
    ...(reproduction.shrunk ? { shrunk: reproduction.shrunk.map(mask) } : {}),
    ...(reproduction.steps ? { steps: reproduction.steps.map(mask) } : {}),
  };
}

/**
 * Runs a rejection check on one answer, against the error the target's profile pins for it
 * (`errors.<name>`; unpinned, any refusal will do). `evidence` defaults to the answer itself.
 */
export function verifyRejection(
  context: TaskLike,
  target: SpecTarget,
  check: Check<RejectionInput>,
  answer: Exchange,
  /** The profile's error that pins the refusal; undefined: any refusal will do. */
  pinned: Exclude<keyof SpecTarget["profile"]["errors"], "$comment"> | undefined,
  evidence: readonly (Exchange | undefined)[] = [answer],
  /** What the refusal cannot be judged without (a step before it that did not go as it needs). */
  blockedBy?: BlockedBy,
): void {
  verify(
    context,
    target,
    check,
    { response: answer.response, pinned: pinned === undefined ? undefined : target.profile.errors[pinned] },
    evidence,
    blockedBy ? { blockedBy } : {},
  );
}
