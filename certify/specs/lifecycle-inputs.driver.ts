/**
 * What each lifecycle probe is judged by: the named check for a probed operation's answer, and
 * the inputs of the checks on the proof after a refusal, the order's timer and its callbacks.
 */
import {
  AFTER_WRONG_CODE,
  acceptanceExplained,
  acceptsMerchantOrderIdOfOtherMerchant,
  type Check,
  confirmableAfterWrongCode,
  dataOf,
  describeRuleSource,
  type Exchange,
  type LifecycleError,
  type LifecycleModel,
  type LifecycleOperation,
  NOT_CREATED,
  type Normalisation,
  OPERATIONS_BY_KIND,
  type OrderKind,
  otherOrderKind,
  REFUSED_CREATION,
  type ReachablePair,
  type RefusalProofInput,
  type RefusalTimerInput,
  type RejectionInput,
  rejectsConfirmAfterExpiry,
  rejectsConfirmingTwice,
  rejectsDuplicateMerchantOrderId,
  rejectsMalformedCode,
  rejectsMethodOfOtherKind,
  rejectsMissingField,
  rejectsNonPositiveAmount,
  rejectsOtherKindConfirmPath,
  rejectsOtherMerchantsOrder,
  rejectsOutOfRange,
  rejectsTrafficTypeOutsideEnum,
  rejectsWrongCode,
  requirementOf,
  semanticsStatusAfterOperation,
} from "../../contract/index.ts";
import type { BlockedBy } from "../engine/run-context.ts";
import type { LifecycleContext, OrderRun, ProofRun } from "./lifecycle-context.driver.ts";
import { mayHaveOutlived } from "./support/order-lifetime.ts";
import { curlOf, reproductionOf } from "./support/probes.ts";

/** Each refused creation's body, from a valid one, and the check that judges its refusal. */
export function refusedCreations(
  profile: LifecycleContext["profile"],
): Record<
  string,
  { breaks: (kind: OrderKind, body: Record<string, unknown>) => void; check: Check<RejectionInput> }
> {
  return {
    [REFUSED_CREATION.nonPositiveAmount]: {
      breaks: (_kind, body) => {
        body.amount = 0;
      },
      check: rejectsNonPositiveAmount,
    },
    [REFUSED_CREATION.trafficType]: {
      breaks: (_kind, body) => {
        body.trafficType = "bulk";
      },
      check: rejectsTrafficTypeOutsideEnum,
    },
    [REFUSED_CREATION.noMethod]: {
      breaks: (_kind, body) => {
        delete body.methodID;
      },
      check: rejectsMissingField,
    },
    [REFUSED_CREATION.otherKindMethod]: {
      breaks: (kind, body) => {
        body.methodID = profile.methods[otherOrderKind(kind)].methodID;
      },
      check: rejectsMethodOfOtherKind,
    },
    [REFUSED_CREATION.aboveMaximum]: {
      breaks: (kind, body) => {
        body.amount = (profile.methods[kind].maxAmount ?? 0) + 1;
      },
      check: rejectsOutOfRange,
    },
  };
}

/** The named check that judges a probed operation's answer, the input it is given, and the normalisation that may explain it. */
export type AnswerCheck = {
  check: Check<never>;
  input: (answer: Exchange) => unknown;
  normalisation?: Normalisation | undefined;
};

/** The named check that judges the answer to a probed operation, and the error it expects. */
export function answerCheck(
  lc: LifecycleContext,
  model: LifecycleModel,
  pair: ReachablePair,
): AnswerCheck | undefined {
  const op = model.operations.find((o) => o.id === pair.operation) as LifecycleOperation;
  const expect = pair.transition.expect;
  if (expect.outcome === "no-request") return undefined;
  const kind = model.kind;
  if (expect.outcome === "accepted") {
    if (op.action === "create" && op.merchantOrderId === "same")
      return { check: acceptsMerchantOrderIdOfOtherMerchant as Check<never>, input: (a) => a.response };
    if (pair.state === AFTER_WRONG_CODE)
      return { check: confirmableAfterWrongCode as Check<never>, input: (a) => a.response };
    const operation = OPERATIONS_BY_KIND[kind][op.action === "create" ? "create" : "confirm"];
    return {
      check: semanticsStatusAfterOperation as Check<never>,
      input: (a) => ({ operation, expected: expect.status, received: dataOf(a.response.json)?.status }),
    };
  }
  const pinned = { httpStatus: expect.httpStatus, codeError: expect.codeError };
  const rejection = (check: Check<RejectionInput>) => ({
    check: check as Check<never>,
    input: (a: Exchange): RejectionInput => ({ response: a.response, pinned }),
    normalisation: op.normalisation,
  });
  if (op.refusedBody !== undefined)
    return rejection(refusedCreations(lc.profile)[op.refusedBody]?.check ?? rejectsMissingField);
  if (op.malformedCode !== undefined) return rejection(rejectsMalformedCode);
  if (op.action === "confirm" && op.path === "other-kind") return rejection(rejectsOtherKindConfirmPath);
  if (op.merchant === "other" && op.action === "confirm") return rejection(rejectsOtherMerchantsOrder);
  const byError: Record<LifecycleError, Check<RejectionInput>> = {
    invalidCode: rejectsWrongCode,
    orderNotFound: rejectsOtherMerchantsOrder,
    duplicateMerchantOrderId: rejectsDuplicateMerchantOrderId,
    validation: rejectsMissingField,
    invalidOrderState:
      pair.state === lc.conventions.expiredStatus ? rejectsConfirmAfterExpiry : rejectsConfirmingTwice,
  };
  return rejection(byError[expect.error]);
}

export const caseLabel = (pair: ReachablePair) => `${pair.state}: ${pair.operation}`;

/** What the proof after `pair`'s refusal must show, and its answer. */
export function proofInput(run: OrderRun, pair: ReachablePair, proof: ProofRun): RefusalProofInput {
  return {
    refused: pair.operation,
    proof: proof.operation,
    shows:
      pair.transition.next === NOT_CREATED
        ? "its merchantOrderID must still be free"
        : "the order must still await its confirmation",
    response: (run.proof ?? proof).exchange.response,
  };
}

/** The timer the proof's confirmation answered, with what the order's age allows; undefined where none is due. */
export function timerInput(
  lc: LifecycleContext,
  run: OrderRun,
  proof: ProofRun,
): RefusalTimerInput | undefined {
  const { profile, lifetimeSeconds } = lc;
  if (lifetimeSeconds === undefined || run.creation === undefined || proof.operation === "create")
    return undefined;
  const raw = dataOf(proof.exchange.response.json)?.timer;
  const milliseconds = profile.lifecycle.timerUnit === "milliseconds";
  const startOf = (e: Exchange) => Date.parse(e.startedAt);
  const endOf = (e: Exchange) => startOf(e) + e.durationMs;
  return {
    timer: typeof raw === "number" && milliseconds ? raw / 1000 : raw,
    lifetimeSeconds,
    movedSeconds: run.movedAheadS,
    minElapsedSeconds: Math.max(0, (startOf(proof.exchange) - endOf(run.creation)) / 1000),
    maxElapsedSeconds: (endOf(proof.exchange) - startOf(run.creation)) / 1000,
    toleranceSeconds: profile.lifecycle.timerToleranceSeconds,
    timerStepSeconds: milliseconds ? 0.001 : 1,
  };
}

/** Why the proof after `pair` cannot be judged: the request it follows was not refused. */
export function notRefused(
  pair: ReachablePair,
  judge: AnswerCheck | undefined,
  run: OrderRun,
): BlockedBy | undefined {
  const answer = run.answers.get(pair);
  return judge && answer && !judge.check.run(judge.input(answer) as never).ok
    ? {
        check: judge.check.name,
        case: caseLabel(pair),
        reason: `${pair.operation} was not refused, so there is no refusal to undo`,
      }
    : undefined;
}

/** A refusal the profile does not require leaves its proof informational too. */
export function waivedRefusal(
  lc: LifecycleContext,
  judge: AnswerCheck | undefined,
): { informationalReason?: string } {
  const requirement = judge ? requirementOf(judge.check, lc.target.profile) : { required: true as const };
  return requirement.required
    ? {}
    : { informationalReason: `the refusal it follows is not required (${requirement.reason})` };
}

/** How to reproduce a probe of `pair` on its order: the path, the operations, each step as it went. */
export function orderReproduction(
  lc: LifecycleContext,
  kind: OrderKind,
  check: string,
  run: OrderRun,
  pair: ReachablePair,
) {
  const answer = run.answers.get(pair);
  return reproductionOf(lc.target, check, {
    steps: [
      `a new ${kind} order: ${pair.path.join(", then ") || "(none)"}; then ${run.pairs.map((p) => p.operation).join(", then ")}`,
      ...run.steps,
    ],
    ...(answer ? { request: answer.request.body, curl: curlOf(lc.target, answer) } : {}),
  });
}

/**
 * One cause, one verdict: when a move of the run expects a refusal that is advisory or waived for
 * this profile, a target may take that move, and the callbacks it then sends cannot fail the run.
 */
export function waivedMoveOf(lc: LifecycleContext, model: LifecycleModel, run: OrderRun): string | undefined {
  const { target } = lc;
  for (const pair of run.pairs) {
    const check = answerCheck(lc, model, pair)?.check;
    if (!check) continue;
    const requirement = requirementOf(check, target.profile);
    if (!requirement.required)
      return `the order also went through ${pair.operation}, whose expected answer is not required (${requirement.reason})`;
    const answer = run.answers.get(pair);
    const op = model.operations.find((o) => o.id === pair.operation);
    const explained =
      answer && acceptanceExplained(answer.response.status, op?.normalisation, target.profile);
    if (explained)
      return `the order also went through ${pair.operation}, which the target accepted as an advisory (${describeRuleSource(explained)})`;
  }
  return undefined;
}

export function callbacksInput(lc: LifecycleContext, run: OrderRun) {
  const { conventions, lifetimeSeconds } = lc;
  // In real time (no sandbox clock moved it), an order left awaiting its confirmation expires once
  // its lifetime has passed; a slow run may outlast it. A margin for the clocks' skew.
  // A confirmation refused once the lifetime may have passed may be the expiry: what the model
  // expects from it on may not come, and the expired callback may.
  const outlived =
    conventions.expiredStatus !== null &&
    (run.lateMove !== undefined ||
      (run.endsAwaiting &&
        mayHaveOutlived(run.collectedAtMs - run.createdAtMs, lifetimeSeconds, run.movedAheadS)));
  return {
    expected:
      run.lateMove === undefined
        ? run.expectedCallbacks
        : run.expectedCallbacks.slice(0, run.lateMove.expectedBefore),
    received: run.callbacks.map((c) => ({ status: c.status, body: c.bodyBase64 })),
    ...(outlived ? { mayAlsoArrive: [conventions.expiredStatus as string] } : {}),
  };
}
