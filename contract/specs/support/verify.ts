/**
 * The one way a spec runs a check: run it, record its outcome and evidence on the test (Vitest
 * task meta, which the certify reporter reads), and fail the test when a required check fails.
 * A check the profile marks informational is recorded as failed but does not fail the test.
 */
import type { Check } from "../../checks/check.ts";
import type { Exchange } from "../../h2h-client.ts";
import type { SpecTarget } from "./target.ts";

export interface CheckMeta {
  check: string;
  outcome: "passed" | "failed";
  detail: string;
  required: boolean;
  /** Why the check is informational for this target, when it is. */
  informationalReason?: string;
  /** Ids of the recorded exchanges the check looked at. */
  exchanges: string[];
  /** For callback checks: what arrived, when, for which order. */
  timeline?: CallbackTimeline;
}

export interface CallbackTimeline {
  orderId: string;
  scenario: string;
  triggeredAt: string;
  deliveries: {
    status: string;
    arrivedAfterMs: number;
    delivery: number;
    answeredWith: number;
    signature: string;
  }[];
}

declare module "vitest" {
  interface TaskMeta {
    h2h?: CheckMeta;
  }
}

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
  const informationalReason =
    target.profile.informationalChecks[check.name] ??
    extra.informationalReason ??
    (check.warning ? "a warning: reported, never required" : undefined);
  const detail = target.masker.text(outcome.detail);
  context.task.meta.h2h = {
    check: check.name,
    outcome: outcome.ok ? "passed" : "failed",
    detail,
    required: informationalReason === undefined,
    ...(informationalReason !== undefined ? { informationalReason } : {}),
    exchanges: evidence.flatMap((e) => (e?.id ? [e.id] : [])),
    ...(extra.timeline ? { timeline: extra.timeline } : {}),
  };
  if (!outcome.ok && informationalReason === undefined) throw new CheckFailure(`${check.name}: ${detail}`);
}
