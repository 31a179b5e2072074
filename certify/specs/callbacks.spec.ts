/**
 * Callbacks (api §6), for both order kinds and each of the four statuses: the order is made to
 * enter the status as the profile says (a confirmation code; for `expired`, no confirmation and
 * the sandbox clock where the target has one, otherwise waiting), and what arrives at the order's
 * own callback URL on the webhook sink is checked. Then one callback the sink keeps refusing
 * shows the target's retry behaviour.
 */

import type { Check, OrderKind } from "../../contract/index.ts";
import {
  CALLBACK_STATUSES,
  type CallbackScenario,
  callbacksAppealAfterFailure,
  callbacksArrives,
  callbacksBodyParses,
  callbacksDateNotBeforeTrigger,
  callbacksExactlyOnce,
  callbacksExactUrl,
  callbacksMatchesOrder,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksNotBeforeTrigger,
  callbacksRetryPolicy,
  callbacksSandboxClock,
  callbacksSignatureValid,
  callbacksStopsAfterAcknowledgement,
  callbacksStrictJson,
  fieldsDateFraction,
  fieldsDateOffset,
  fieldsMoneyPrecision,
  fieldsOneDateFormat,
  ORDER_KINDS,
  STATUS,
} from "../../contract/index.ts";
import { beforeAll, describe, it } from "../engine/spec-api.ts";
import { callbacksBudgetMs, observeCallbacks } from "./callbacks.driver.ts";
import type { Observed } from "./callbacks-observe.driver.ts";
import type { RetryObserved } from "./callbacks-retries.driver.ts";
import { hookTimeoutFor, withinMeasuredBudget } from "./support/measured-budget.ts";
import { requestTargetOf } from "./support/probes.ts";
import { type Settled, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const retryPolicy = profile.callbacks.retryPolicy;

const SCENARIO_CHECKS: Check<CallbackScenario>[] = [
  callbacksArrives,
  callbacksNotBeforeTrigger,
  callbacksDateNotBeforeTrigger,
  callbacksBodyParses,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksSignatureValid,
  callbacksStrictJson,
  callbacksMatchesOrder,
  callbacksExactlyOnce,
  callbacksStopsAfterAcknowledgement,
];

/** The checks that read a callback's body: none can judge when no body is a JSON object. */
const READS_THE_BODY: ReadonlySet<Check<CallbackScenario>> = new Set([
  callbacksNamesOrder,
  callbacksDateNotBeforeTrigger,
  callbacksNamesStatus,
  callbacksMatchesOrder,
  callbacksExactlyOnce,
  callbacksAppealAfterFailure,
  callbacksStopsAfterAcknowledgement,
]);
const isJsonObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);

/** How the report titles each kind's callback block. */
const KIND_TITLES: Record<OrderKind, string> = {
  mobile_commerce: "mobile commerce",
  quasi_ecom: "quasi-ecom",
};
const observed = new Map<string, Settled<Observed>>();
let retries: Settled<RetryObserved> | undefined;

const setupBudgetMs = callbacksBudgetMs(profile);
beforeAll(
  async () => {
    const work = observeCallbacks(target, observed);
    retries = await withinMeasuredBudget(target, setupBudgetMs, "the callback scenarios", work);
  },
  hookTimeoutFor(target, setupBudgetMs),
);

for (const kind of ORDER_KINDS) {
  describe(`callbacks (${KIND_TITLES[kind]})`, () => {
    for (const status of CALLBACK_STATUSES) {
      const checks =
        status === STATUS.succeeded_by_appeal
          ? [...SCENARIO_CHECKS, callbacksAppealAfterFailure]
          : SCENARIO_CHECKS;
      if (profile.sandboxClock && "unconfirmedForSeconds" in profile.callbackTriggers[status]) {
        it(titled(callbacksSandboxClock, status), (ctx) => {
          const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
          verify(
            ctx,
            target,
            callbacksSandboxClock,
            seen.clock ?? {},
            seen.clock?.exchange ? [seen.clock.exchange] : [],
            {
              subject: null,
              ...(profile.sandboxClock === "required"
                ? {}
                : {
                    informationalReason:
                      'the profile declares the clock optional ("sandboxClock": true): when it fails, the suite warns and waits out the lifetime',
                  }),
            },
          );
        });
      }
      for (const check of checks) {
        it(titled(check, status), (ctx) => {
          const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
          // One cause per failure: with no callback at all, only callbacks.arrives judges; with no
          // body that is a JSON object, only body-parses (and what reads no body) does.
          const arrived = seen.scenario.callbacks;
          const blockedBy =
            seen.blockedBy ??
            (check !== callbacksArrives && arrived.length === 0
              ? {
                  check: callbacksArrives.name,
                  case: status,
                  reason: `no callback arrived for the ${kind} order that entered ${status}`,
                }
              : READS_THE_BODY.has(check) && arrived.length > 0 && !arrived.some((c) => isJsonObject(c.json))
                ? {
                    check: callbacksBodyParses.name,
                    case: status,
                    reason: `no callback body for the ${kind} order that entered ${status} is a JSON object`,
                  }
                : undefined);
          verify(ctx, target, check, seen.scenario, seen.evidence, {
            subject: null,
            callbacks: seen.callbacks,
            ...(blockedBy ? { blockedBy } : {}),
            ...(check === callbacksArrives ? { timeline: seen.timeline } : {}),
          });
        });
      }
      it(titled(callbacksExactUrl, status), (ctx) => {
        const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
        const arrived = seen.arrivedAt ?? [];
        const blockedBy =
          seen.blockedBy ??
          (arrived.length === 0
            ? {
                check: callbacksArrives.name,
                case: status,
                reason: `no callback arrived for the ${kind} order that entered ${status}`,
              }
            : undefined);
        verify(
          ctx,
          target,
          callbacksExactUrl,
          { expected: requestTargetOf(seen.webHook ?? "http://sink.invalid/"), received: arrived },
          seen.evidence,
          { subject: null, callbacks: seen.callbacks, ...(blockedBy ? { blockedBy } : {}) },
        );
      });
      // The declared conventions, on the order's record, its confirmation and every callback body.
      for (const check of [fieldsDateOffset, fieldsDateFraction, fieldsOneDateFormat]) {
        it(titled(check, status), (ctx) => {
          const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
          const dates = seen.conventions?.dates ?? [];
          verify(ctx, target, check, { dates, convention: profile.conventions.dates }, seen.evidence, {
            subject: null,
            callbacks: seen.callbacks,
          });
        });
      }
      it(titled(fieldsMoneyPrecision, status), (ctx) => {
        const seen = settledValue(observed.get(`${kind}:${status}`), `the ${kind} → ${status} scenario`);
        verify(ctx, target, fieldsMoneyPrecision, { values: seen.conventions?.money ?? [] }, seen.evidence, {
          subject: null,
          callbacks: seen.callbacks,
        });
      });
    }
  });
}

describe("callbacks (retries)", () => {
  // The first attempt and every retry are each signed over their own bytes.
  it(titled(callbacksSignatureValid, "every delivery, retries included"), (ctx) => {
    const seen = settledValue(retries, "the retry scenario");
    verify(ctx, target, callbacksSignatureValid, seen.scenario, seen.evidence, {
      subject: null,
      callbacks: seen.callbacks,
      timeline: seen.timeline,
    });
  });
  it(callbacksRetryPolicy.name, (ctx) => {
    const seen = settledValue(retries, "the retry scenario");
    verify(
      ctx,
      target,
      callbacksRetryPolicy,
      {
        attemptsAtMs: seen.attemptsAtMs,
        policy: retryPolicy,
        observerStallMs: seen.observerStallMs,
        machineStallMs: seen.machineStallMs,
        targetOnThisHost: seen.targetOnThisHost,
      },
      seen.evidence,
      {
        subject: null,
        callbacks: seen.callbacks,
        ...(retryPolicy
          ? {}
          : { informationalReason: "the profile declares no retry policy: observed, not judged" }),
        timeline: seen.timeline,
      },
    );
  });
});
