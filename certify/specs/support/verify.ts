/**
 * The one way a spec runs a check: run it, record its outcome and evidence on the test (Vitest
 * task meta, which the certify reporter reads), and fail the test when a required check fails.
 * A check judged informational (contract/checks `requirementOf`) is recorded as failed but does
 * not fail the test.
 */
import { type Check, type Exchange, type RejectionInput, requirementOf } from "../../../contract/index.ts";
import type { CallbackTimeline, CheckMeta } from "../../run-context.ts";
import type { SpecTarget } from "./target.ts";

/** The minimum of Vitest's test context that verify needs. */
interface TaskLike {
  task: { meta: { h2h?: CheckMeta } };
}

export class CheckFailure extends Error {
  override name = "CheckFailure";
}

export function verify<Input>(
  context: TaskLike,
  target: SpecTarget,
  check: Check<Input>,
  input: Input,
  evidence: readonly (Exchange | undefined)[] = [],
  extra: { informationalReason?: string; timeline?: CallbackTimeline } = {},
): void {
  const outcome = check.run(input);
  const requirement = requirementOf(check, target.profile.informationalChecks, extra.informationalReason);
  const detail = target.masker.text(outcome.detail);
  context.task.meta.h2h = {
    check: check.name,
    outcome: outcome.ok ? "passed" : "failed",
    detail,
    required: requirement.required,
    ...(requirement.required ? {} : { informationalReason: requirement.reason }),
    exchanges: evidence.flatMap((e) => (e?.id ? [e.id] : [])),
    ...(extra.timeline ? { timeline: extra.timeline } : {}),
  };
  if (!outcome.ok && requirement.required) throw new CheckFailure(`${check.name}: ${detail}`);
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
  pinned: Exclude<keyof SpecTarget["profile"]["errors"], "$comment">,
  evidence: readonly (Exchange | undefined)[] = [answer],
): void {
  verify(
    context,
    target,
    check,
    { response: answer.response, pinned: target.profile.errors[pinned] },
    evidence,
  );
}
