/**
 * Amounts finer than the currency's smallest unit, for every method the profile lists: 0.4 of the
 * unit (0.004 at 2 decimals), which rounds to 0, and each declared limit passed by as much, which
 * rounds back onto it (contract/generation/amount-rounding.ts). The first is refused or kept exactly, never
 * made an order of 0; the second is refused. A quasi-ecom creation answers no amount (§2.4): an
 * accepted one is confirmed, and its confirmation result (§2.3) says the order's amount.
 */
import { beforeAll, describe, it } from "vitest";
import {
  type AmountRoundingProbe,
  amountRoundingProbes,
  behaviourAmountNotRoundedPastLimit,
  dataOf,
  describeRuleSource,
  type Exchange,
  generateOrders,
  OPERATIONS_BY_KIND,
  ORDER_KINDS,
} from "../../contract/index.ts";
import { confirm } from "./support/orders.ts";
import {
  cardExpiryBase,
  curlOf,
  Limiter,
  mapLimit,
  PROBE_CONCURRENCY,
  probedMethods,
  reproductionOf,
  sendRaw,
  uniquePartOf,
  withFreshMerchantOrderId,
} from "./support/probes.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const { seed, merchantOrderIdPrefix } = target.probes;
const check = behaviourAmountNotRoundedPastLimit;

/** Each method's base: a valid order of the generated plan, its amount replaced by the probe's. */
const bases = new Map(
  generateOrders({
    seed,
    methods: probedMethods(target),
    merchantOrderIdPrefix,
    testCards: profile.testCards,
    maxLengths: profile.maxLengths,
    requestRules: profile.requestRules,
    now: cardExpiryBase(),
    callbackUrl: target.sink().callbackUrl(`${target.runId}.rounding`),
  })
    .filter((order) => order.index === 0)
    .map((order) => [order.method.methodID, order]),
);

interface Sent {
  creation: Exchange;
  /** The confirmation that read an accepted quasi-ecom order's amount. */
  confirmation?: Exchange;
}

const probes = probedMethods(target).flatMap((method) =>
  bases.has(method.methodID) ? amountRoundingProbes(method, profile.conventions.money) : [],
);
let sent: Settled<Map<AmountRoundingProbe, Sent>> | undefined;
let serial = 0;

/** The body of a probe: the base with the probe's amount, a fresh merchantOrderID and no callback URL. */
function bodyOf(probe: AmountRoundingProbe): string {
  const base = bases.get(probe.method.methodID);
  if (!base) throw new Error(`no base request for method ${probe.method.methodID}`);
  const body = withFreshMerchantOrderId(
    { ...structuredClone(base.body), amount: probe.amount },
    uniquePartOf(base, merchantOrderIdPrefix),
    merchantOrderIdPrefix,
    "r",
    ++serial,
  );
  // An order a faulty target accepts is confirmed to read its amount: it calls back no one.
  const metadata = body.metadata;
  if (typeof metadata === "object" && metadata !== null) delete (metadata as Record<string, unknown>).webHook;
  return JSON.stringify(body);
}

async function send(probe: AmountRoundingProbe): Promise<Sent> {
  const { kind } = probe.method;
  const client = target.client();
  const creation = await sendRaw(
    client,
    OPERATIONS_BY_KIND[kind].create,
    bodyOf(probe),
    undefined,
    check.name,
  );
  const accepted = creation.response.status >= 200 && creation.response.status < 300;
  const id = dataOf(creation.response.json)?.id;
  if (!accepted || kind !== "quasi_ecom" || probe.expect !== "refused-or-exact" || typeof id !== "string")
    return { creation };
  return {
    creation,
    confirmation: await confirm(client, kind, id, profile.confirmation.successCode, check.name),
  };
}

beforeAll(async () => {
  const inFlight = new Limiter(PROBE_CONCURRENCY);
  sent = await settle(
    mapLimit(probes, inFlight, async (probe) => [probe, await send(probe)] as const).then(
      (pairs) => new Map(pairs),
    ),
  );
});

for (const kind of ORDER_KINDS) {
  describe(OPERATIONS_BY_KIND[kind].create, () => {
    for (const probe of probes.filter((p) => p.method.kind === kind)) {
      it(titled(check, `method ${probe.method.methodID}, ${probe.name}`), (ctx) => {
        const answer = settledValue(sent, "the amount rounding probes").get(probe);
        if (!answer) throw new Error(`the probe ${probe.name} was not sent`);
        const { creation, confirmation } = answer;
        const amountFrom = confirmation ?? creation;
        const evidence = confirmation ? [creation, confirmation] : [creation];
        const accepted = creation.response.status >= 200 && creation.response.status < 300;
        const orderAmount = dataOf(amountFrom.response.json)?.amount;
        const unread = accepted && probe.expect === "refused-or-exact" && typeof orderAmount !== "number";
        verify(
          ctx,
          target,
          check,
          {
            sent: probe.amount,
            rounded: probe.rounded,
            decimals: probe.decimals,
            expect: probe.expect,
            response: creation.response,
            pinned: profile.errors.validation,
            orderAmount,
          },
          evidence,
          {
            ruleSource: probe.basis,
            subject: creation,
            ...(unread
              ? {
                  blockedBy: {
                    check: check.name,
                    reason: `the order was accepted, but ${confirmation ? "its confirmation" : "its creation"} answered no amount to compare (HTTP ${amountFrom.response.status})`,
                    ...(amountFrom.id ? { exchange: amountFrom.id } : {}),
                  },
                }
              : {}),
            reproduction: reproductionOf(target, check.name, {
              request: creation.request.body,
              steps: [
                `method ${probe.method.methodID}: amount ${probe.name} (${describeRuleSource(probe.basis)}), everything else valid`,
              ],
              curl: curlOf(target, creation),
            }),
          },
        );
      });
    }
  });
}
