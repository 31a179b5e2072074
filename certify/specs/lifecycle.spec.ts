/**
 * The order lifecycle as a model: the statuses and transitions of the profile become
 * one state machine (contract/generation/lifecycle-model.ts), and every operation is tried in every reachable
 * state, on an order of its own: before and after expiry, after each final status, after a wrong
 * code, through the other flow's path, by the other merchant, again with the same merchantOrderID.
 * The model says what each answer must be, and which callbacks the order's moves cause (none for a
 * move that changes nothing). Then `timer`: an order whose clock is N seconds ahead (the sandbox
 * clock, or real time without one) answers a timer N seconds lower.
 *
 * States an order leaves by itself (processing) are probed before they settle, with answers that
 * hold in the state they settle to as well; a move is made on a state only once the callbacks of
 * the moves before it arrived; the sandbox clock is never moved in a state that is still settling.
 */

import {
  acceptanceExplained,
  type Check,
  callbacksFollowLifecycle,
  confirmsLateInLifetime,
  dataOf,
  describeRuleSource,
  ORDER_KINDS,
  type OrderKind,
  type ReachablePair,
  refusalChangesNothing,
  refusalKeepsTimer,
  semanticsTimerFollowsClock,
  timerCountsDownLifetime,
} from "../../contract/index.ts";
import type { BlockedBy } from "../engine/run-context.ts";
import { beforeAll, describe, it } from "../engine/spec-api.ts";
import { callbackId } from "../reports/callback-evidence.ts";
import { lifecycleBudgetMs, runLifecycleProbes, type TimerResults } from "./lifecycle.driver.ts";
import { KIND_TITLES, lifecycleContext, type OrderRun, type ProofRun } from "./lifecycle-context.driver.ts";
import {
  type AnswerCheck,
  answerCheck,
  callbacksInput,
  caseLabel,
  notRefused,
  orderReproduction,
  proofInput,
  timerInput,
  waivedMoveOf,
  waivedRefusal,
} from "./lifecycle-inputs.driver.ts";
import { kindProbes } from "./lifecycle-orders.driver.ts";
import {
  type LateRun,
  lateSecondsOf,
  lateSteps,
  measuredAge,
  successStatusOf,
  timerSteps,
} from "./lifecycle-timer.driver.ts";
import { hookTimeoutFor, withinMeasuredBudget } from "./support/measured-budget.ts";
import { reproductionOf } from "./support/probes.ts";
import { settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const lc = lifecycleContext(target);
const { conventions, lifetimeSeconds } = lc;
const lateSeconds = lateSecondsOf(lc);
const successStatus = successStatusOf(lc);
/** Each order kind's probes, and what the timer probes and the late confirmations found. */
const kinds = ORDER_KINDS.map((kind) => ({ kind, ...kindProbes(lc, kind) }));
const results: TimerResults = { timers: new Map(), lateRuns: new Map() };
const { timers, lateRuns } = results;

for (const { kind, model, everyPair, opOf, reasonOf, blockedOf, runs } of kinds) {
  describe(`lifecycle (${KIND_TITLES[kind]})`, () => {
    const runOf = (pair: ReachablePair) => settledValue(runs.get(pair), `the probe of ${caseLabel(pair)}`);
    const reproduction = (check: string, run: OrderRun, pair: ReachablePair) =>
      orderReproduction(lc, kind, check, run, pair);

    /** After a refusal: the proof shows it changed nothing, and the order's timer still runs. */
    const proofTests = (pair: ReachablePair, judge: AnswerCheck | undefined) => {
      const awaits = model.states.find((s) => s.id === pair.transition.next)?.awaitsConfirmation === true;
      const prove = (
        check: Check<never>,
        input: (run: OrderRun, proof: ProofRun) => unknown,
        before?: (run: OrderRun, proof: ProofRun) => BlockedBy | undefined,
      ) =>
        it(titled(check, caseLabel(pair)), (ctx) => {
          const reason = reasonOf(pair);
          if (reason) return ctx.skip(reason);
          const expiry = blockedOf(pair);
          if (expiry) return verify(ctx, target, check, undefined as never, [], { blockedBy: expiry });
          const run = runOf(pair);
          const proof = run.proof;
          if (!proof) throw new Error(`${caseLabel(pair)} sent no proof after its refusal`);
          const unrefused = notRefused(pair, judge, run);
          if (unrefused && opOf(pair.operation).refusedBody !== undefined)
            return ctx.skip(`${unrefused.reason} (its refusal is judged by ${unrefused.check} elsewhere)`);
          const blockedBy = unrefused ?? proof.late ?? before?.(run, proof);
          // A step accepted as an advisory (a code a harmless normalisation reads as valid) leaves
          // its proof an advisory too: not evaluated, it must not hold the run back as partial.
          const answer = run.answers.get(pair);
          const explained =
            answer && acceptanceExplained(answer.response.status, judge?.normalisation, target.profile);
          verify(ctx, target, check, input(run, proof) as never, run.exchanges, {
            ...(explained
              ? {
                  informationalReason: `the step it follows was accepted as an advisory (${describeRuleSource(explained)})`,
                }
              : waivedRefusal(lc, judge)),
            ...(blockedBy ? { blockedBy } : {}),
            subject: proof.exchange,
            reproduction: reproduction(check.name, run, pair),
          });
        });
      prove(refusalChangesNothing as Check<never>, (run, proof) => proofInput(run, pair, proof));
      // The timer is a confirmation's: a refused one must leave it running.
      if (awaits && lifetimeSeconds !== undefined && opOf(pair.operation).action === "confirm")
        prove(
          refusalKeepsTimer as Check<never>,
          (run, proof) => timerInput(lc, run, proof),
          (run, proof) =>
            refusalChangesNothing.run(proofInput(run, pair, proof)).ok
              ? undefined
              : {
                  check: refusalChangesNothing.name,
                  case: caseLabel(pair),
                  reason: "the right code after the refusal was not accepted",
                },
        );
    };

    for (const pair of everyPair) {
      const judge = answerCheck(lc, model, pair);
      // A broken creation's refusal is judged where its rule is probed (derived negatives, the
      // fixed cases); here it only sets up the proof.
      if (judge && opOf(pair.operation).refusedBody === undefined) {
        it(titled(judge.check, caseLabel(pair)), (ctx) => {
          const reason = reasonOf(pair);
          if (reason) return ctx.skip(reason);
          const blockedBy = blockedOf(pair);
          if (blockedBy) return verify(ctx, target, judge.check, undefined as never, [], { blockedBy });
          const run = runOf(pair);
          const answer = run.answers.get(pair);
          if (!answer) throw new Error(`${caseLabel(pair)} sent no request to judge`);
          const late = run.late.get(pair);
          verify(ctx, target, judge.check, judge.input(answer) as never, run.exchanges, {
            ...(late ? { blockedBy: late } : {}),
            normalisation: judge.normalisation,
            subject: answer,
            reproduction: reproduction(judge.check.name, run, pair),
          });
        });
      }
      if (pair.transition.proof !== undefined) proofTests(pair, judge);
      it(titled(callbacksFollowLifecycle, caseLabel(pair)), (ctx) => {
        const reason = reasonOf(pair);
        if (reason) return ctx.skip(reason);
        const blockedBy = blockedOf(pair);
        if (blockedBy)
          return verify(ctx, target, callbacksFollowLifecycle, undefined as never, [], {
            subject: null,
            blockedBy,
          });
        const run = runOf(pair);
        const waived = waivedMoveOf(lc, model, run);
        verify(ctx, target, callbacksFollowLifecycle, callbacksInput(lc, run), run.exchanges, {
          ...(waived ? { informationalReason: waived } : {}),
          subject: null,
          callbacks: run.callbacks.map((c) => callbackId(c.seq)),
          reproduction: reproduction(callbacksFollowLifecycle.name, run, pair),
        });
      });
    }
  });
}

const setupBudgetMs = lifecycleBudgetMs(lc);
beforeAll(
  async () => {
    const work = runLifecycleProbes(lc, kinds, results);
    await withinMeasuredBudget(target, setupBudgetMs, "the lifecycle probes", work);
  },
  hookTimeoutFor(target, setupBudgetMs),
);

describe("lifecycle (timer)", () => {
  for (const kind of ORDER_KINDS) {
    it(titled(semanticsTimerFollowsClock, KIND_TITLES[kind]), (ctx) => {
      const run = settledValue(timers.get(kind), `the ${KIND_TITLES[kind]} timer probe`);
      verify(
        ctx,
        target,
        semanticsTimerFollowsClock,
        {
          stayed: run.stayed,
          moved: run.moved,
          seconds: run.seconds,
          how: lc.clock.works ? "the sandbox clock" : "real time",
          toleranceSeconds: profile.lifecycle.timerToleranceSeconds,
          lifetimeSeconds,
          reads: run.reads,
          timerStepSeconds: profile.lifecycle.timerUnit === "milliseconds" ? 0.001 : 1,
        },
        run.evidence,
        {
          // A refused confirmation carries no timer: the refusal is judged by the checks of confirming.
          ...(run.refused.length > 0
            ? {
                blockedBy: {
                  check: "(setup)",
                  reason: `the timer probe's confirmations were not all accepted (${run.refused.join("; ")}): no timers to compare`,
                },
              }
            : {}),
          reproduction: reproductionOf(target, semanticsTimerFollowsClock.name, {
            steps: timerSteps(lc, kind, run),
          }),
        },
      );
    });
  }
});

describe("lifecycle (late in the declared lifetime)", () => {
  /** Why the late confirmation is not tried at all: the profile declares no lifetime to probe. */
  const noLifetime =
    lateSeconds === undefined
      ? "the profile provokes expiry manually (callbackTriggers.expired): it declares no lifetime to confirm an order late in"
      : undefined;
  const steps = (kind: OrderKind, run: LateRun) => lateSteps(lc, kind, run);
  for (const kind of ORDER_KINDS) {
    it(titled(confirmsLateInLifetime, KIND_TITLES[kind]), (ctx) => {
      if (noLifetime) return ctx.skip(noLifetime);
      if (lc.lateBlocked)
        return verify(ctx, target, confirmsLateInLifetime, undefined as never, [], {
          blockedBy: lc.lateBlocked,
        });
      const run = settledValue(lateRuns.get(kind), `the ${KIND_TITLES[kind]} late confirmation`);
      const age = measuredAge(run);
      verify(
        ctx,
        target,
        confirmsLateInLifetime,
        {
          response: run.confirmation.response,
          lifetimeSeconds: lifetimeSeconds as number,
          ageSeconds: {
            least: run.movedSeconds + age.minElapsedSeconds,
            most: run.movedSeconds + age.maxElapsedSeconds,
          },
          successStatus: successStatus ?? profile.confirmation.successCode,
          callbackStatuses:
            successStatus !== undefined && conventions.callbackStatuses.includes(successStatus)
              ? run.callbacks.map((c) => c.status)
              : undefined,
        },
        run.evidence,
        {
          ...(run.late ? { blockedBy: run.late } : {}),
          subject: run.confirmation,
          callbacks: run.callbacks.map((c) => callbackId(c.seq)),
          reproduction: reproductionOf(target, confirmsLateInLifetime.name, { steps: steps(kind, run) }),
        },
      );
    });
    it(titled(timerCountsDownLifetime, KIND_TITLES[kind]), (ctx) => {
      if (noLifetime) return ctx.skip(noLifetime);
      if (lc.lateBlocked)
        return verify(ctx, target, timerCountsDownLifetime, undefined as never, [], {
          blockedBy: lc.lateBlocked,
        });
      const run = settledValue(lateRuns.get(kind), `the ${KIND_TITLES[kind]} late confirmation`);
      const timer = dataOf(run.confirmation.response.json)?.timer;
      const accepted = run.confirmation.response.status === 200;
      verify(
        ctx,
        target,
        timerCountsDownLifetime,
        {
          timer:
            typeof timer === "number" && profile.lifecycle.timerUnit === "milliseconds"
              ? timer / 1000
              : timer,
          lifetimeSeconds: lifetimeSeconds as number,
          movedSeconds: run.movedSeconds,
          ...measuredAge(run),
          toleranceSeconds: profile.lifecycle.timerToleranceSeconds,
          timerStepSeconds: profile.lifecycle.timerUnit === "milliseconds" ? 0.001 : 1,
        },
        run.evidence,
        {
          ...(accepted
            ? {}
            : {
                blockedBy: run.late ?? {
                  check: confirmsLateInLifetime.name,
                  case: KIND_TITLES[kind],
                  reason: "the late confirmation was not accepted, so it carries no timer",
                },
              }),
          subject: run.confirmation,
          reproduction: reproductionOf(target, timerCountsDownLifetime.name, { steps: steps(kind, run) }),
        },
      );
    });
  }
});
