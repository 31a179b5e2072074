/**
 * Valid orders generated from the contract, for every method the profile
 * lists: fractional amounts and the declared limits, strings at their maximum length, Cyrillic,
 * Kazakh and emoji, optional fields present, absent and null, webHook URLs with a query, a port and
 * percent-encoding. Each is created and confirmed, and every answer is judged by the same named
 * checks as the hand-picked orders; each callback must arrive at exactly the webHook given and carry
 * the order's amount, currency and merchantOrderID. A failure is shrunk to a minimal request, with
 * the seed, the command that re-runs the check, and a copy-paste curl.
 */

import {
  callbacksArrives,
  callbacksExactUrl,
  callbacksMatchesOrder,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksSignatureValid,
  dataOf,
  envelopeJsonContentType,
  envelopeRequestIdPresent,
  envelopeShape,
  envelopeSuccessMarkers,
  fieldsConfirmationResult,
  fieldsDateFraction,
  fieldsDateOffset,
  fieldsMoneyPrecision,
  fieldsOneDateFormat,
  fieldsOrderRecord,
  fieldsQuasiEcomCreationResult,
  fieldsStatusKnown,
  lifetimeSecondsOf,
  moneyValues,
  OPERATIONS_BY_KIND,
  ORDER_KIND,
  recordDates,
  semanticsAmountEchoed,
  semanticsCommissionNonNegative,
  semanticsConfirmationEchoesOrder,
  semanticsCurrencyOfMethod,
  semanticsDatesOrdered,
  semanticsExchangeRatePositive,
  semanticsMerchantOrderIdEchoed,
  semanticsMethodEchoed,
  semanticsRoutingAttemptsEmpty,
  semanticsStatusAfterOperation,
  semanticsTimerValid,
  semanticsUsdtAmount,
  semanticsUsdtCommission,
} from "../../contract/index.ts";
import { PrerequisiteError } from "../engine/run-context.ts";
import { beforeAll, describe, it } from "../engine/spec-api.ts";
import {
  callbackConventions,
  data,
  echoField,
  generatedRun,
  type Judged,
  judged,
  probeEveryMethod,
  probesOf,
  scenarioOf,
  sent,
} from "./generated-orders.driver.ts";
import { caseOf } from "./generated-orders-shrink.driver.ts";
import { refusedAfterLifetime } from "./support/order-lifetime.ts";
import { neutralToken, requestTargetOf, verifyEach } from "./support/probes.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const { seed } = target.probes;
const generated = generatedRun(target);
const { methods, orders } = generated;
const tolerance = profile.usdtTolerance;
const lifetimeSeconds = lifetimeSecondsOf(profile);

// The profile's declared conventions, judged on every date and money value an order shows.
const conventions = profile.conventions;
const DATE_CHECKS = [fieldsDateOffset, fieldsDateFraction];

const CREATION: Judged<unknown>[] = [
  ...[envelopeJsonContentType, envelopeShape, envelopeRequestIdPresent, envelopeSuccessMarkers].map((check) =>
    judged({ check, stage: "create", input: (p) => p.created.response }),
  ),
  judged({
    check: fieldsOrderRecord,
    stage: "create",
    kind: ORDER_KIND.mobile_commerce,
    input: (p) => ({ data: dataOf(p.created.response.json), contract: target.contract }),
  }),
  judged({
    check: fieldsQuasiEcomCreationResult,
    stage: "create",
    kind: ORDER_KIND.quasi_ecom,
    input: (p) => ({ data: dataOf(p.created.response.json), contract: target.contract }),
  }),
  judged({
    check: fieldsStatusKnown,
    stage: "create",
    input: (p) => ({ status: data(p.created).status, known: target.knownStatuses }),
  }),
  judged({
    check: semanticsStatusAfterOperation,
    stage: "create",
    input: (p) => ({
      operation: p.order.operation,
      expected: profile.expectedStatus[p.order.operation],
      received: data(p.created).status,
    }),
  }),
  judged({
    check: semanticsMerchantOrderIdEchoed,
    stage: "create",
    input: (p) => ({
      field: echoField(p),
      expected: sent(p, "merchantOrderID") ?? null,
      received: data(p.created)[echoField(p)],
    }),
  }),
  ...[semanticsUsdtAmount, semanticsUsdtCommission].map((check) =>
    judged({
      check,
      stage: "create",
      kind: ORDER_KIND.mobile_commerce,
      input: (p) => ({ record: data(p.created), tolerance }),
    }),
  ),
  ...[semanticsCommissionNonNegative, semanticsExchangeRatePositive, semanticsRoutingAttemptsEmpty].map(
    (check) =>
      judged({ check, stage: "create", kind: ORDER_KIND.mobile_commerce, input: (p) => data(p.created) }),
  ),
  judged({
    check: semanticsAmountEchoed,
    stage: "create",
    kind: ORDER_KIND.mobile_commerce,
    input: (p) => ({ field: "amount", expected: sent(p, "amount"), received: data(p.created).amount }),
  }),
  judged({
    check: semanticsCurrencyOfMethod,
    stage: "create",
    kind: ORDER_KIND.mobile_commerce,
    input: (p) => ({
      field: "currency",
      expected: p.order.method.currency,
      received: data(p.created).currency,
    }),
  }),
  judged({
    check: semanticsMethodEchoed,
    stage: "create",
    kind: ORDER_KIND.mobile_commerce,
    input: (p) => ({
      field: "paymentDetailsData.methodID",
      expected: p.order.method.methodID,
      received: (data(p.created).paymentDetailsData as Record<string, unknown> | undefined)?.methodID,
    }),
  }),
  ...DATE_CHECKS.map((check) =>
    judged({
      check,
      stage: "create",
      kind: ORDER_KIND.mobile_commerce,
      input: (p) => ({ dates: recordDates(data(p.created)), convention: conventions.dates }),
    }),
  ),
  judged({
    check: fieldsMoneyPrecision,
    stage: "create",
    kind: ORDER_KIND.mobile_commerce,
    input: (p) => ({ values: moneyValues(data(p.created), conventions.money) }),
  }),
  judged({
    check: semanticsDatesOrdered,
    stage: "create",
    kind: ORDER_KIND.mobile_commerce,
    input: (p) => ({ record: data(p.created), rfc3339: profile.gaps.dateFormat === "rfc3339" }),
  }),
];

const CONFIRMATION: Judged<unknown>[] = [
  judged({ check: envelopeSuccessMarkers, stage: "confirm", input: (p) => p.confirmed?.response }),
  judged({
    check: fieldsConfirmationResult,
    stage: "confirm",
    input: (p) => ({ data: dataOf(p.confirmed?.response.json), contract: target.contract }),
  }),
  judged({
    check: fieldsStatusKnown,
    stage: "confirm",
    input: (p) => ({ status: data(p.confirmed).status, known: target.knownStatuses }),
  }),
  judged({
    check: semanticsConfirmationEchoesOrder,
    stage: "confirm",
    input: (p) => ({
      pathId: String(data(p.created).id),
      order: {
        amount: sent(p, "amount"),
        currency: p.order.method.currency,
        merchantOrderID: sent(p, "merchantOrderID") ?? null,
      },
      result: data(p.confirmed),
    }),
  }),
  judged({ check: semanticsTimerValid, stage: "confirm", input: (p) => data(p.confirmed) }),
  judged({
    check: fieldsMoneyPrecision,
    stage: "confirm",
    input: (p) => ({ values: moneyValues(data(p.confirmed), conventions.money) }),
  }),
  judged({
    check: semanticsStatusAfterOperation,
    stage: "confirm",
    input: (p) => {
      const operation = OPERATIONS_BY_KIND[p.order.kind].confirm;
      return { operation, expected: profile.expectedStatus[operation], received: data(p.confirmed).status };
    },
  }),
];

const CALLBACKS: Judged<unknown>[] = [
  ...[
    callbacksArrives,
    callbacksNamesOrder,
    callbacksNamesStatus,
    callbacksSignatureValid,
    callbacksMatchesOrder,
  ].map((check) => judged({ check, stage: "callback", input: (p) => scenarioOf(generated, p) })),
  judged({
    check: callbacksExactUrl,
    stage: "callback",
    input: (p) => ({
      expected: requestTargetOf(p.order.webHook as string),
      received: p.callbacks.map((c) => neutralToken(c.path)),
    }),
  }),
  ...DATE_CHECKS.map((check) =>
    judged({
      check,
      stage: "callback",
      input: (p) => ({ dates: callbackConventions(profile, p).dates, convention: conventions.dates }),
    }),
  ),
  // A callback's date is compared with the order record's, where the creation answers one.
  judged({
    check: fieldsOneDateFormat,
    stage: "callback",
    input: (p) => ({
      dates: [...recordDates(data(p.created)), ...callbackConventions(profile, p).dates],
      convention: conventions.dates,
    }),
  }),
  judged({
    check: fieldsMoneyPrecision,
    stage: "callback",
    input: (p) => ({ values: callbackConventions(profile, p).money }),
  }),
];

// --- the tests ------------------------------------------------------------------------------------------

beforeAll(
  async () => {
    await probeEveryMethod(generated);
  },
  profile.timeouts.callbackMs + profile.timeouts.requestMs * 4 + 30_000,
);

function blockFor(title: string, entries: readonly Judged<unknown>[]) {
  describe(title, () => {
    for (const method of methods) {
      const count = orders.filter((o) => o.method.methodID === method.methodID).length;
      for (const entry of entries) {
        if (entry.kind !== undefined && entry.kind !== method.kind) continue;
        if (entry.stage !== "callback" && title !== OPERATIONS_BY_KIND[method.kind][entry.stage]) continue;
        const label = `method ${method.methodID}, ${count} generated orders (seed ${seed})`;
        it(titled(entry.check, label), async (ctx) => {
          const all = await probesOf(generated, method);
          const judgedOnes =
            entry.stage === "confirm"
              ? all.filter((p) => p.confirmed !== undefined)
              : entry.stage === "callback"
                ? all.filter((p) => p.tag !== undefined && p.confirmed?.response.status === 200)
                : all;
          if (judgedOnes.length === 0) {
            // Nothing to judge because the target refused what these checks need: not evaluated, pointing at why.
            const refused =
              all.find((p) => p.confirmed === undefined)?.created ??
              all.find((p) => p.confirmed !== undefined && p.confirmed.response.status !== 200)?.confirmed;
            if (refused)
              throw new PrerequisiteError(
                `no generated order of method ${method.methodID} was ${entry.stage === "callback" ? "confirmed" : "created"} (HTTP ${refused.response.status})`,
                refused.id,
              );
            return ctx.skip(`no generated order of method ${method.methodID} names a webHook`);
          }
          await verifyEach(
            ctx,
            target,
            entry.check,
            judgedOnes.map((p) => {
              // A slow machine may confirm after the order's declared lifetime: a refusal then may be the expiry.
              const blockedBy =
                entry.stage === "confirm" && p.confirmed
                  ? refusedAfterLifetime({
                      lifetimeSeconds,
                      creation: p.created,
                      step: p.confirmed,
                      what: "the success code was sent",
                      expiredAnswer: profile.errors.invalidOrderState,
                    })
                  : undefined;
              return { ...caseOf(generated, p, entry), ...(blockedBy ? { blockedBy } : {}) };
            }),
          );
        });
      }
    }
  });
}

for (const kind of [ORDER_KIND.mobile_commerce, ORDER_KIND.quasi_ecom]) {
  if (!methods.some((m) => m.kind === kind)) continue;
  blockFor(OPERATIONS_BY_KIND[kind].create, CREATION);
  blockFor(OPERATIONS_BY_KIND[kind].confirm, CONFIRMATION);
}
blockFor("callbacks (generated orders)", CALLBACKS);
