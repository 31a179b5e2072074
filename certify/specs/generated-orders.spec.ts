/**
 * Valid orders generated from the contract, for every method the profile
 * lists: fractional amounts and the declared limits, strings at their maximum length, Cyrillic,
 * Kazakh and emoji, optional fields present, absent and null, webHook URLs with a query, a port and
 * percent-encoding. Each is created and confirmed, and every answer is judged by the same named
 * checks as the hand-picked orders; each callback must arrive at exactly the webHook given and carry
 * the order's amount, currency and merchantOrderID. A failure is shrunk to a minimal request, with
 * the seed, the command that re-runs the check, and a copy-paste curl.
 */
import { beforeAll, describe, it } from "vitest";
import {
  type CallbackScenario,
  type Check,
  callbacksArrives,
  callbacksExactUrl,
  callbacksMatchesOrder,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksSignatureValid,
  callbackValues,
  createRequestSchema,
  dataOf,
  type Exchange,
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
  type GeneratedOrder,
  generateOrders,
  lifecycleConventionsOf,
  moneyValues,
  OPERATIONS_BY_KIND,
  ORDER_KIND,
  type OrderMethod,
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
  shrinkRequest,
} from "../../contract/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import { PrerequisiteError } from "../engine/run-context.ts";
import { callbackId } from "../reports/callback-evidence.ts";
import {
  callbacksOf,
  cardExpiryBase,
  curlOf,
  type JudgedCase,
  Limiter,
  mapLimit,
  neutralToken,
  PROBE_CONCURRENCY,
  probedMethods,
  reproductionOf,
  requestTargetOf,
  sendRaw,
  uniquePartOf,
  verifyEach,
  withFreshMerchantOrderId,
} from "./support/probes.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const { seed, depth, merchantOrderIdPrefix } = target.probes;
const methods = probedMethods(target);
/** The statuses a confirmation with the success code leads to: its callbacks. */
const successOutcome =
  lifecycleConventionsOf(profile).outcomes.find((o) => o.code === profile.confirmation.successCode)
    ?.statuses ?? [];
/** Orders in flight, every method together. */
const inFlight = new Limiter(PROBE_CONCURRENCY);
/** Most resends one shrink may make, per depth. */
const SHRINK_ATTEMPTS = { quick: 25, thorough: 120 } as const;

/** What one generated order met: its creation, confirmation and callbacks. */
interface Probe {
  order: GeneratedOrder;
  body: Record<string, unknown>;
  created: Exchange;
  confirmed: Exchange | undefined;
  /** The tag of its callback URL, when it names one. */
  tag: string | undefined;
  callbacks: StoredCallback[];
}

/** The run id tag of a generated order's callback URL. */
const tagFor = (methodID: number, index: number) => `${target.runId}.gen.${methodID}.${index}`;

const orders = generateOrders({
  seed,
  depth,
  methods,
  merchantOrderIdPrefix,
  testCards: profile.testCards,
  maxLengths: profile.maxLengths,
  requestRules: profile.requestRules,
  nullOptionals: profile.gaps.nullOptionals === "accept",
  now: cardExpiryBase(),
  callbackUrl: ({ methodID, index }) => target.sink().callbackUrl(tagFor(methodID, index)),
});

/** Creates an order from exactly these bytes and confirms it with the success code. */
async function createAndConfirm(order: GeneratedOrder, json: string) {
  const client = target.client();
  const created = await sendRaw(client, order.operation, json);
  const id = dataOf(created.response.json)?.id;
  const confirmed =
    typeof id === "string"
      ? await client.confirmOrder(order.kind, id, profile.confirmation.successCode)
      : undefined;
  return { created, confirmed };
}

async function probe(order: GeneratedOrder): Promise<Probe> {
  const { created, confirmed } = await createAndConfirm(order, order.json);
  const tag = order.webHook !== null ? tagFor(order.method.methodID, order.index) : undefined;
  const accepted = confirmed !== undefined && confirmed.response.status === 200;
  const callbacks =
    tag !== undefined && accepted ? await callbacksOf(target, tag, successOutcome.length, 0) : [];
  return { order, body: order.body, created, confirmed, tag, callbacks };
}

// --- what is judged, and on what --------------------------------------------------------------------

type Stage = "create" | "confirm" | "callback";

interface Judged<Input> {
  check: Check<Input>;
  stage: Stage;
  /** Only for orders of this kind (the answer of its creation differs). */
  kind?: typeof ORDER_KIND.mobile_commerce | typeof ORDER_KIND.quasi_ecom;
  input(p: Probe): Input;
}

const data = (e: Exchange | undefined) => dataOf(e?.response.json) ?? {};
const sent = (p: Probe, field: string) => p.body[field];
const echoField = (p: Probe) =>
  p.order.kind === ORDER_KIND.mobile_commerce ? "idTransactionMerchant" : "merchantOrderID";
const tolerance = profile.usdtTolerance;

function judged<Input>(entry: Judged<Input>): Judged<unknown> {
  return entry as unknown as Judged<unknown>;
}

// The profile's declared conventions, judged on every date and money value an order shows.
const conventions = profile.conventions;
const DATE_CHECKS = [fieldsDateOffset, fieldsDateFraction];
/** The dates and the amount of a probe's callbacks, at the profile's paths. */
const callbackConventions = (p: Probe) =>
  callbackValues(
    p.callbacks.map((c) => c.json),
    { dateUpdated: profile.callbacks.dateUpdatedPath, amount: profile.callbacks.amountPath },
    conventions.money,
  );

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

/** The callback scenario of a generated order: it entered the success outcome's last status. */
function scenarioOf(p: Probe): CallbackScenario {
  const { callbacks: paths } = profile;
  return {
    orderId: String(data(p.created).id),
    statusEntered: successOutcome[successOutcome.length - 1] ?? "succeeded",
    callbacks: p.callbacks.map((c) => target.observed(c)),
    triggeredAtMs: Date.parse(p.confirmed?.startedAt ?? p.created.startedAt),
    // Its answer received, at the latest (startedAt keeps whole ms).
    triggeredByMs:
      Date.parse(p.confirmed?.startedAt ?? p.created.startedAt) +
      (p.confirmed?.durationMs ?? p.created.durationMs) +
      1,
    timeoutMs: profile.timeouts.callbackMs,
    paths: {
      id: paths.idPath,
      status: paths.statusPath,
      ...(paths.amountPath ? { amount: paths.amountPath } : {}),
      ...(paths.currencyPath ? { currency: paths.currencyPath } : {}),
      ...(paths.merchantOrderIdPath ? { merchantOrderId: paths.merchantOrderIdPath } : {}),
    },
    order: {
      amount: Number(sent(p, "amount")),
      currency: p.order.method.currency,
      merchantOrderID:
        typeof sent(p, "merchantOrderID") === "string" ? (sent(p, "merchantOrderID") as string) : null,
    },
    signed: paths.signature.scheme !== "none",
  };
}

const CALLBACKS: Judged<unknown>[] = [
  ...[
    callbacksArrives,
    callbacksNamesOrder,
    callbacksNamesStatus,
    callbacksSignatureValid,
    callbacksMatchesOrder,
  ].map((check) => judged({ check, stage: "callback", input: scenarioOf })),
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
      input: (p) => ({ dates: callbackConventions(p).dates, convention: conventions.dates }),
    }),
  ),
  // A callback's date is compared with the order record's, where the creation answers one.
  judged({
    check: fieldsOneDateFormat,
    stage: "callback",
    input: (p) => ({
      dates: [...recordDates(data(p.created)), ...callbackConventions(p).dates],
      convention: conventions.dates,
    }),
  }),
  judged({
    check: fieldsMoneyPrecision,
    stage: "callback",
    input: (p) => ({ values: callbackConventions(p).money }),
  }),
];

// --- reproducing a failure --------------------------------------------------------------------------

let resends = 0;

/** Shrinks a failing order to the smallest request that still fails the check, by resending it. */
async function shrunk(p: Probe, entry: Judged<unknown>): Promise<ReturnType<typeof reproductionOf>> {
  const check = entry.check;
  const unique = uniquePartOf(p.order, merchantOrderIdPrefix);
  let lastFailing: Exchange = p.created;
  const stillFails = async (candidate: Record<string, unknown>) => {
    const body = withFreshMerchantOrderId(candidate, unique, merchantOrderIdPrefix, "s", ++resends);
    const json = JSON.stringify(body);
    const client = target.client();
    const created = await sendRaw(client, p.order.operation, json);
    const id = dataOf(created.response.json)?.id;
    // A candidate the target refuses fails for another reason: it does not stand for this failure.
    if (entry.check.group !== "envelope" && created.response.status !== 200) return false;
    const confirmed =
      entry.stage === "confirm" && typeof id === "string"
        ? await client.confirmOrder(p.order.kind, id, profile.confirmation.successCode)
        : undefined;
    const fails = !check.run(entry.input({ ...p, body, created, confirmed, callbacks: [] })).ok;
    if (fails) lastFailing = created;
    return fails;
  };
  const result = await shrinkRequest(p.body, stillFails, {
    schema: createRequestSchema(p.order.kind),
    method: p.order.method,
    maxLengths: profile.maxLengths,
    requestRules: profile.requestRules,
    maxAttempts: SHRINK_ATTEMPTS[depth],
  });
  return reproductionOf(target, check.name, {
    request: lastFailing.request.body,
    shrunk: [`generated order ${p.order.name}`, ...result.steps, `${result.attempts} resend(s)`],
    curl: curlOf(target, lastFailing),
    ...(entry.stage === "confirm"
      ? {
          steps: [
            `create the order (curl below), then confirm it with code ${profile.confirmation.successCode}`,
          ],
        }
      : {}),
  });
}

function caseOf(p: Probe, entry: Judged<unknown>): JudgedCase<unknown> {
  const evidence =
    entry.stage === "create"
      ? [p.created]
      : entry.stage === "confirm"
        ? [p.created, p.confirmed]
        : [p.created, p.confirmed];
  return {
    label: p.order.name,
    input: entry.input(p),
    evidence,
    ...(entry.stage === "callback"
      ? { subject: null, callbacks: p.callbacks.map((c) => callbackId(c.seq)) }
      : {}),
    reproduce:
      entry.stage === "callback"
        ? async () =>
            reproductionOf(target, entry.check.name, {
              request: p.created.request.body,
              steps: [
                `create generated order ${p.order.name} with metadata.webHook ${p.order.webHook}`,
                `confirm it with ${profile.confirmation.successCode}`,
                `callbacks received: ${p.callbacks.map((c) => `${c.status ?? "?"} at ${neutralToken(c.path)}`).join(", ") || "none"}`,
              ],
              curl: curlOf(target, p.created),
            })
        : () => shrunk(p, entry),
  };
}

// --- the tests ------------------------------------------------------------------------------------------

const probes = new Map<number, Settled<Probe[]>>();

/** The probes of one method, made once for every block that judges them. */
async function probesOf(method: OrderMethod): Promise<Probe[]> {
  const known = probes.get(method.methodID);
  if (known) return settledValue(known, `the generated orders of method ${method.methodID}`);
  const mine = orders.filter((o) => o.method.methodID === method.methodID);
  const settled = await settle(mapLimit(mine, inFlight, probe));
  probes.set(method.methodID, settled);
  return settledValue(settled, `the generated orders of method ${method.methodID}`);
}

beforeAll(
  async () => {
    // Every method side by side: the run takes as long as the slowest method, not their sum.
    await Promise.all(methods.map((method) => settle(probesOf(method))));
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
          const all = await probesOf(method);
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
            judgedOnes.map((p) => caseOf(p, entry)),
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
