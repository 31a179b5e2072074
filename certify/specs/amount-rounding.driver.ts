/**
 * The amount rounding probes' sending: each method's base order, its amount replaced by each
 * probe's, sent as it is; an accepted quasi-ecom order is confirmed, to read its amount.
 */
import {
  type AmountRoundingProbe,
  amountRoundingProbes,
  behaviourAmountNotRoundedPastLimit,
  dataOf,
  type Exchange,
  type GeneratedOrder,
  generateOrders,
  OPERATIONS_BY_KIND,
} from "../../contract/index.ts";
import { confirm } from "./support/orders.ts";
import {
  cardExpiryBase,
  Limiter,
  mapLimit,
  PROBE_CONCURRENCY,
  probedMethods,
  sendRaw,
  uniquePartOf,
  withFreshMerchantOrderId,
} from "./support/probes.ts";
import type { SpecTarget } from "./support/target.ts";

const check = behaviourAmountNotRoundedPastLimit;

export interface Sent {
  creation: Exchange;
  /** The confirmation that read an accepted quasi-ecom order's amount. */
  confirmation?: Exchange;
}

/** The run's probes, and the base each method's are made from. */
export interface RoundingRun {
  readonly target: SpecTarget;
  /** Each method's base: a valid order of the generated plan, its amount replaced by the probe's. */
  readonly bases: Map<number, GeneratedOrder>;
  readonly probes: AmountRoundingProbe[];
  /** How many probes were made so far: each gets a merchantOrderID of its own. */
  serial: number;
}

export function roundingRun(target: SpecTarget): RoundingRun {
  const { profile } = target;
  const { seed, merchantOrderIdPrefix } = target.probes;
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
  const probes = probedMethods(target).flatMap((method) =>
    bases.has(method.methodID) ? amountRoundingProbes(method, profile.conventions.money) : [],
  );
  return { target, bases, probes, serial: 0 };
}

/** The body of a probe: the base with the probe's amount, a fresh merchantOrderID and no callback URL. */
function bodyOf(run: RoundingRun, probe: AmountRoundingProbe): string {
  const { merchantOrderIdPrefix } = run.target.probes;
  const base = run.bases.get(probe.method.methodID);
  if (!base) throw new Error(`no base request for method ${probe.method.methodID}`);
  const body = withFreshMerchantOrderId(
    { ...structuredClone(base.body), amount: probe.amount },
    uniquePartOf(base, merchantOrderIdPrefix),
    merchantOrderIdPrefix,
    "r",
    ++run.serial,
  );
  // An order a faulty target accepts is confirmed to read its amount: it calls back no one.
  const metadata = body.metadata;
  if (typeof metadata === "object" && metadata !== null) delete (metadata as Record<string, unknown>).webHook;
  return JSON.stringify(body);
}

async function send(run: RoundingRun, probe: AmountRoundingProbe): Promise<Sent> {
  const { target } = run;
  const { kind } = probe.method;
  const client = target.client();
  const creation = await sendRaw(
    client,
    OPERATIONS_BY_KIND[kind].create,
    bodyOf(run, probe),
    undefined,
    check.name,
  );
  const accepted = creation.response.status >= 200 && creation.response.status < 300;
  const id = dataOf(creation.response.json)?.id;
  if (!accepted || kind !== "quasi_ecom" || probe.expect !== "refused-or-exact" || typeof id !== "string")
    return { creation };
  return {
    creation,
    confirmation: await confirm(client, kind, id, target.profile.confirmation.successCode, check.name),
  };
}

/** Sends every probe, a bounded burst, and pairs each with what it met. */
export async function sendEveryProbe(run: RoundingRun): Promise<Map<AmountRoundingProbe, Sent>> {
  const inFlight = new Limiter(PROBE_CONCURRENCY);
  return mapLimit(run.probes, inFlight, async (probe) => [probe, await send(run, probe)] as const).then(
    (pairs) => new Map(pairs),
  );
}
