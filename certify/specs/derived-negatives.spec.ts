/**
 * Negative inputs derived from the contract and the profile, never hand-listed (issue 10 §2, §3):
 * for every constraint of a request schema (required, type, enum, format `MM`/`YY`/digits, length,
 * range) and every rule of each method the profile lists (its conditional fields, its amount
 * limits, its order kind), one request that breaks exactly that constraint and nothing else. Each
 * must be refused with a 4xx and the error envelope, with the profile's pinned validation error.
 * Adding a constraint to a schema adds its case here with no other change.
 */
import { beforeAll, describe, it } from "vitest";
import {
  checkOfConstraint,
  createRequestSchema,
  deriveNegativeCases,
  ENDPOINTS,
  type Exchange,
  envelopeFailureMarkers,
  generateOrders,
  type NegativeCase,
  OPERATIONS_BY_KIND,
  ORDER_KINDS,
  type OrderKind,
  type OrderMethod,
} from "../../contract/index.ts";
import { createOrder, orderIdOf } from "./support/orders.ts";
import {
  cardExpiryBase,
  curlOf,
  Limiter,
  mapLimit,
  PROBE_CONCURRENCY,
  probedMethods,
  reproductionOf,
  sendRaw,
  verifyEach,
  withFreshMerchantOrderId,
} from "./support/probes.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const { seed, merchantOrderIdPrefix } = target.probes;
const methods = probedMethods(target);
const pinned = profile.errors.validation;
/** A bound zod writes for every integer: a representation limit, not a constraint of the API. */
const REPRESENTATION_LIMIT = "the safe-integer range of an integer, not a limit of the API";

/**
 * Each method's base request: a valid order with every optional field present (the generated
 * order of the plan "all fields"), so that every field's constraints have a value to break.
 */
const bases = new Map(
  generateOrders({
    seed,
    methods,
    merchantOrderIdPrefix,
    testCards: profile.testCards,
    maxLengths: profile.maxLengths,
    now: cardExpiryBase(),
    // A refused request sends no callback; one a faulty target accepts is never confirmed.
    callbackUrl: target.sink().callbackUrl(`${target.runId}.negatives`),
  })
    .filter((order) => order.index === 0)
    .map((order) => [order.method.methodID, order]),
);

interface Sent {
  testCase: NegativeCase;
  exchange: Exchange;
}

let serial = 0;
/** Every group's sending; all run side by side, before any test of the file. */
const sends: (() => Promise<void>)[] = [];
/** Requests in flight, all groups together: a burst the target (and the callback timing checks) can take. */
const inFlight = new Limiter(PROBE_CONCURRENCY);

/** Sends each case as it is; the base's merchantOrderID is made unique again for each, so a case is never refused as a duplicate. */
async function sendCreations(method: OrderMethod, cases: readonly NegativeCase[]): Promise<Sent[]> {
  const base = bases.get(method.methodID);
  const unique = `${merchantOrderIdPrefix}-${method.methodID}-0`;
  return mapLimit(cases, inFlight, async (testCase) => {
    const body =
      testCase.path !== "merchantOrderID" && typeof testCase.body === "object" && testCase.body !== null
        ? withFreshMerchantOrderId(
            testCase.body as Record<string, unknown>,
            unique,
            merchantOrderIdPrefix,
            "n",
            ++serial,
          )
        : testCase.body;
    const json = body === testCase.body ? testCase.json : JSON.stringify(body);
    if (!base) throw new Error(`no base request for method ${method.methodID}`);
    return { testCase, exchange: await sendRaw(target.client(), base.operation, json) };
  });
}

/** Confirm cases: each on an order of its own that awaits confirmation, so one accepted case spoils no other. */
async function sendConfirmations(kind: OrderKind, cases: readonly NegativeCase[]): Promise<Sent[]> {
  return mapLimit(cases, inFlight, async (testCase) => {
    // An order that could not be created leaves these checks not evaluated, pointing at why.
    const id = orderIdOf(await createOrder(target, kind));
    return {
      testCase,
      exchange: await sendRaw(target.client(), OPERATIONS_BY_KIND[kind].confirm, testCase.json, id),
    };
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
    it(titled(check, label(testCase)), (ctx) => {
      const exchange = answerTo(testCase);
      verify(ctx, target, check, { response: exchange.response, pinned }, [exchange], {
        reproduction: reproductionOf(target, check.name, {
          request: exchange.request.body,
          steps: [
            `${scope}: ${testCase.name} (source: ${testCase.constraint.source}), everything else valid`,
          ],
          curl: curlOf(target, exchange),
        }),
      });
    });
  }
  if (derived.cases.length > 0) {
    it(
      titled(envelopeFailureMarkers, `${scope}, ${derived.cases.length} derived negative cases`),
      async (ctx) => {
        const all = settledValue(sent, `the negative cases of ${scope}`);
        await verifyEach(
          ctx,
          target,
          envelopeFailureMarkers,
          all.map(({ testCase, exchange }) => ({
            label: testCase.name,
            input: exchange.response,
            evidence: [exchange],
            reproduce: async () =>
              reproductionOf(target, envelopeFailureMarkers.name, {
                request: exchange.request.body,
                curl: curlOf(target, exchange),
              }),
          })),
        );
      },
    );
  }
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
  describe(operations.create, () => {
    for (const method of methods.filter((m) => m.kind === kind)) {
      const base = bases.get(method.methodID);
      if (!base) continue;
      const derived = deriveNegativeCases(createRequestSchema(kind), base.body, {
        method,
        methods,
        maxLengths: profile.maxLengths,
        testCards: profile.testCards,
      });
      negativeTests(
        (testCase) => `method ${method.methodID}, ${testCase.name}`,
        derived,
        () => sendCreations(method, derived.cases),
        `method ${method.methodID}`,
      );
    }
  });
  describe(operations.confirm, () => {
    const derived = deriveNegativeCases(ENDPOINTS[operations.confirm].request, {
      code: profile.confirmation.successCode,
    });
    negativeTests(
      (testCase) => testCase.name,
      derived,
      () => sendConfirmations(kind, derived.cases),
      operations.confirm,
    );
  });
}

beforeAll(async () => {
  await Promise.all(sends.map((send) => send()));
});
