/**
 * Negative inputs derived from the contract and the profile, never hand-listed:
 * for every constraint of a request schema (required, type, enum, format `MM`/`YY`/digits, length,
 * range) and every rule of each method the profile lists (its conditional fields, its amount
 * limits, its order kind), one request that breaks exactly that constraint and nothing else. Each
 * must be refused with a 4xx and the error envelope, with the profile's pinned validation error.
 * Adding a constraint to a schema adds its case here with no other change.
 */

import {
  checkOfConstraint,
  derivedNegativesOf,
  describeRuleSource,
  envelopeFailureMarkers,
  type NegativeCase,
  OPERATIONS_BY_KIND,
  ORDER_KINDS,
} from "../../contract/index.ts";
import { beforeAll, describe, it } from "../engine/spec-api.ts";
import {
  advisoryReason,
  negativesRun,
  type Sent,
  sendConfirmations,
  sendCreations,
  waivedReason,
} from "./derived-negatives.driver.ts";
import { cardExpiryBase, curlOf, reproductionOf, verifyEach } from "./support/probes.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const { seed, merchantOrderIdPrefix } = target.probes;
const pinned = profile.errors.validation;
/** A bound zod writes for every integer: a representation limit, not a constraint of the API. */
const REPRESENTATION_LIMIT = "the safe-integer range of an integer, not a limit of the API";

/** Every case, from the same derivation `--list-checks` lists: a waived rule is in neither. */
const derivedNegatives = derivedNegativesOf(profile, {
  seed,
  merchantOrderIdPrefix,
  now: cardExpiryBase(),
  // A refused request sends no callback; one a faulty target accepts is never confirmed.
  callbackUrl: target.sink().callbackUrl(`${target.runId}.negatives`),
});

const negatives = negativesRun(target);
/** Every group's sending; all run side by side, before any test of the file. */
const sends: (() => Promise<void>)[] = [];

/** envelope.failure-markers over the answers to `cases`; with `informationalReason`, reported only. */
function failureMarkersTest(
  scope: string,
  what: string,
  cases: readonly NegativeCase[],
  sentNow: () => Sent[],
  informationalReason?: string,
): void {
  if (cases.length === 0) return;
  it(titled(envelopeFailureMarkers, `${scope}, ${what}`), async (ctx) => {
    const judged = sentNow().filter((s) => cases.includes(s.testCase));
    if (judged.length === 0) {
      ctx.skip("the target accepted every one of these cases: no refusal to read");
      return;
    }
    await verifyEach(
      ctx,
      target,
      envelopeFailureMarkers,
      judged.map(({ testCase, exchange }) => ({
        label: testCase.name,
        input: exchange.response,
        evidence: [exchange],
        reproduce: async () =>
          reproductionOf(target, envelopeFailureMarkers.name, {
            request: exchange.request.body,
            curl: curlOf(target, exchange),
          }),
      })),
      informationalReason,
    );
  });
}

function negativeTests(
  label: (testCase: NegativeCase) => string,
  derived: { cases: NegativeCase[]; skipped: { name: string; reason: string }[] },
  send: () => Promise<Sent[]>,
  scope: string,
): void {
  let sent: Settled<Sent[]> | undefined;
  sends.push(async () => {
    sent = await settle(send());
  });
  const answerTo = (testCase: NegativeCase) => {
    const found = settledValue(sent, `the negative cases of ${scope}`).find((s) => s.testCase === testCase);
    if (!found) throw new Error(`the case ${testCase.name} was not sent`);
    return found.exchange;
  };
  for (const testCase of derived.cases) {
    const check = checkOfConstraint(testCase.constraint);
    const advisory = advisoryReason(testCase);
    it(titled(check, label(testCase)), (ctx) => {
      const exchange = answerTo(testCase);
      // A body that is JSON but no object is, to many parsers, no JSON body at all: either
      // documented refusal fits it.
      const pinnedFor = testCase.path === "" ? [pinned ?? {}, profile.errors.invalidJson ?? {}] : pinned;
      verify(ctx, target, check, { response: exchange.response, pinned: pinnedFor }, [exchange], {
        ...(advisory ? { informationalReason: advisory } : {}),
        normalisation: testCase.constraint.normalisation,
        ruleSource: testCase.constraint.basis,
        reproduction: reproductionOf(target, check.name, {
          request: exchange.request.body,
          steps: [
            `${scope}: ${testCase.name} (${describeRuleSource(testCase.constraint.basis)}), everything else valid`,
          ],
          curl: curlOf(target, exchange),
        }),
      });
    });
  }
  // One cause, one verdict: a case whose own rule cannot fail the run feeds no required check.
  const required = derived.cases.filter((testCase) => !waivedReason(profile, testCase));
  const waived = derived.cases.filter((testCase) => waivedReason(profile, testCase));
  failureMarkersTest(scope, `${required.length} derived negative cases`, required, () =>
    settledValue(sent, `the negative cases of ${scope}`),
  );
  // What an advisory case refused is still read for its markers, but only as a report.
  failureMarkersTest(
    scope,
    `${waived.length} advisory or waived derived negative cases, those refused`,
    waived,
    () =>
      settledValue(sent, `the negative cases of ${scope}`).filter((s) => s.exchange.response.status >= 300),
    "advisory or waived cases: their answers are reported, never required",
  );
  for (const skipped of derived.skipped) {
    if (skipped.reason === REPRESENTATION_LIMIT) continue;
    const keyword = skipped.name.split(": ")[1]?.split(" ")[0] ?? "";
    const check = (() => {
      try {
        return checkOfConstraint({ keyword, expected: undefined });
      } catch {
        return undefined;
      }
    })();
    it(`${check?.name ?? "behaviour.rejects-missing-field"} › ${scope} ${skipped.name}`, (ctx) =>
      ctx.skip(`no request breaks this constraint alone: ${skipped.reason}`));
  }
}

for (const kind of ORDER_KINDS) {
  const operations = OPERATIONS_BY_KIND[kind];
  const ofKind = derivedNegatives.filter((derived) => derived.kind === kind);
  describe(operations.create, () => {
    for (const derived of ofKind.filter((d) => d.operation === operations.create)) {
      const { method, base } = derived;
      if (!method) continue;
      negativeTests(
        (testCase) => `method ${method.methodID}, ${testCase.name}`,
        derived,
        () => sendCreations(negatives, method, base, derived.cases),
        `method ${method.methodID}`,
      );
    }
  });
  describe(operations.confirm, () => {
    for (const derived of ofKind.filter((d) => d.operation === operations.confirm)) {
      negativeTests(
        (testCase) => testCase.name,
        derived,
        () => sendConfirmations(negatives, kind, derived.cases),
        operations.confirm,
      );
    }
  });
}

beforeAll(async () => {
  await Promise.all(sends.map((send) => send()));
});
