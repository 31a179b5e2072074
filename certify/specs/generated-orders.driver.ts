/**
 * The generated orders' probes: valid orders generated from the contract for every method the
 * profile lists, each created from its exact bytes, confirmed with the success code, and its
 * callbacks collected; then what each check is given of a probe, and how its failure is
 * reproduced (generated-orders-shrink.driver.ts).
 */
import {
  type CallbackScenario,
  type Check,
  callbackPathsOf,
  callbackValues,
  dataOf,
  type Exchange,
  type GeneratedOrder,
  generateOrders,
  lifecycleConventionsOf,
  ORDER_KIND,
  type OrderMethod,
} from "../../contract/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import {
  callbacksOf,
  cardExpiryBase,
  Limiter,
  mapLimit,
  PROBE_CONCURRENCY,
  probedMethods,
  sendRaw,
} from "./support/probes.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import type { SpecTarget } from "./support/target.ts";

/** What one generated order met: its creation, confirmation and callbacks. */
export interface Probe {
  order: GeneratedOrder;
  body: Record<string, unknown>;
  created: Exchange;
  confirmed: Exchange | undefined;
  /** The tag of its callback URL, when it names one. */
  tag: string | undefined;
  callbacks: StoredCallback[];
}

export type Stage = "create" | "confirm" | "callback";

/** A check, the stage of a probe it judges, and what it is given of the probe. */
export interface Judged<Input> {
  check: Check<Input>;
  stage: Stage;
  /** Only for orders of this kind (the answer of its creation differs). */
  kind?: typeof ORDER_KIND.mobile_commerce | typeof ORDER_KIND.quasi_ecom;
  input(p: Probe): Input;
}

export function judged<Input>(entry: Judged<Input>): Judged<unknown> {
  return entry as unknown as Judged<unknown>;
}

/** The generated orders of a run, and their probes as they are made. */
export interface GeneratedRun {
  readonly target: SpecTarget;
  readonly methods: OrderMethod[];
  readonly orders: GeneratedOrder[];
  /** The statuses a confirmation with the success code leads to: its callbacks. */
  readonly successOutcome: readonly string[];
  /** Orders in flight, every method together. */
  readonly inFlight: Limiter;
  /** Each method's probes, once made. */
  readonly probes: Map<number, Settled<Probe[]>>;
  /** How many requests the shrinks resent so far: each gets a merchantOrderID of its own. */
  resends: number;
}

/** The run id tag of a generated order's callback URL. */
const tagFor = (target: SpecTarget, methodID: number, index: number) =>
  `${target.runId}.gen.${methodID}.${index}`;

export function generatedRun(target: SpecTarget): GeneratedRun {
  const { profile } = target;
  const { seed, depth, merchantOrderIdPrefix } = target.probes;
  const methods = probedMethods(target);
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
    callbackUrl: ({ methodID, index }) => target.sink().callbackUrl(tagFor(target, methodID, index)),
  });
  return {
    target,
    methods,
    orders,
    successOutcome:
      lifecycleConventionsOf(profile).outcomes.find((o) => o.code === profile.confirmation.successCode)
        ?.statuses ?? [],
    inFlight: new Limiter(PROBE_CONCURRENCY),
    probes: new Map(),
    resends: 0,
  };
}

/** Creates an order from exactly these bytes and confirms it with the success code. */
async function createAndConfirm(target: SpecTarget, order: GeneratedOrder, json: string) {
  const client = target.client();
  const created = await sendRaw(client, order.operation, json);
  const id = dataOf(created.response.json)?.id;
  const confirmed =
    typeof id === "string"
      ? await client.confirmOrder(order.kind, id, target.profile.confirmation.successCode)
      : undefined;
  return { created, confirmed };
}

async function probe(run: GeneratedRun, order: GeneratedOrder): Promise<Probe> {
  const { target } = run;
  const { created, confirmed } = await createAndConfirm(target, order, order.json);
  const tag = order.webHook !== null ? tagFor(target, order.method.methodID, order.index) : undefined;
  const accepted = confirmed !== undefined && confirmed.response.status === 200;
  const callbacks =
    tag !== undefined && accepted ? await callbacksOf(target, tag, run.successOutcome.length, 0) : [];
  return { order, body: order.body, created, confirmed, tag, callbacks };
}

/** The probes of one method, made once for every block that judges them. */
export async function probesOf(run: GeneratedRun, method: OrderMethod): Promise<Probe[]> {
  const known = run.probes.get(method.methodID);
  if (known) return settledValue(known, `the generated orders of method ${method.methodID}`);
  const mine = run.orders.filter((o) => o.method.methodID === method.methodID);
  const settled = await settle(mapLimit(mine, run.inFlight, (order) => probe(run, order)));
  run.probes.set(method.methodID, settled);
  return settledValue(settled, `the generated orders of method ${method.methodID}`);
}

/** Every method's probes side by side: the run takes as long as the slowest method, not their sum. */
export async function probeEveryMethod(run: GeneratedRun): Promise<void> {
  await Promise.all(run.methods.map((method) => settle(probesOf(run, method))));
}

// --- what the checks are given of a probe ---------------------------------------------------------

export const data = (e: Exchange | undefined) => dataOf(e?.response.json) ?? {};
export const sent = (p: Probe, field: string) => p.body[field];
export const echoField = (p: Probe) =>
  p.order.kind === ORDER_KIND.mobile_commerce ? "idTransactionMerchant" : "merchantOrderID";

/** The dates and the amount of a probe's callbacks, at the profile's paths. */
export const callbackConventions = (profile: SpecTarget["profile"], p: Probe) =>
  callbackValues(
    p.callbacks.map((c) => c.json),
    { dateUpdated: profile.callbacks.dateUpdatedPath, amount: profile.callbacks.amountPath },
    profile.conventions.money,
  );

/** The callback scenario of a generated order: it entered the success outcome's last status. */
export function scenarioOf(run: GeneratedRun, p: Probe): CallbackScenario {
  const { target, successOutcome } = run;
  const { profile } = target;
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
    paths: callbackPathsOf(paths),
    order: {
      amount: Number(sent(p, "amount")),
      currency: p.order.method.currency,
      merchantOrderID:
        typeof sent(p, "merchantOrderID") === "string" ? (sent(p, "merchantOrderID") as string) : null,
    },
    signed: paths.signature.scheme !== "none",
  };
}
