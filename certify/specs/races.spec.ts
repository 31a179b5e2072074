/**
 * Races: identical requests sent at once. N creations with one merchantOrderID: exactly
 * one is accepted. N confirmations of one order: exactly one is accepted, and exactly one final
 * callback arrives. N is the profile's `races.concurrency` (default 5), kept within the target's
 * rate limit by whoever writes the profile.
 */

import {
  callbacksOneFinalAfterConcurrentConfirmations,
  concurrentConfirmationsOneAccepted,
  concurrentCreationsOneAccepted,
  dataOf,
  type Exchange,
  lifecycleConventionsOf,
  OPERATIONS_BY_KIND,
  ORDER_KINDS,
  type OrderKind,
  wireTimesOf,
} from "../../contract/index.ts";
import { ORDER_KIND_TAGS } from "../../fixtures/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import { PrerequisiteError } from "../engine/run-context.ts";
import { beforeAll, describe, it } from "../engine/spec-api.ts";
import { callbackId } from "../reports/callback-evidence.ts";
import { hookTimeoutFor, withinMeasuredBudget } from "./support/measured-budget.ts";
import { orderRequest } from "./support/orders.ts";
import { neverOverlapped } from "./support/overlap.ts";
import { callbacksOf, curlOf, reproductionOf } from "./support/probes.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const n = profile.races.concurrency;
const { merchantOrderIdPrefix } = target.probes;
const successOutcome =
  lifecycleConventionsOf(profile).outcomes.find((o) => o.code === profile.confirmation.successCode)
    ?.statuses ?? [];
/** After the final callback arrived, how long to listen for a second one. */
const SETTLE_MS = 500;

interface CreationRace {
  creations: Exchange[];
}

interface Race {
  kind: OrderKind;
  confirmations: Exchange[];
  /** The order the confirmations raced for. */
  order: Exchange;
  callbacks: StoredCallback[];
}

/** N creations at once, one merchantOrderID; each its own connection, none waits for another. */
async function creationRace(kind: OrderKind): Promise<CreationRace> {
  const client = target.client();
  const same = orderRequest(target, kind, {
    merchantOrderID: `${merchantOrderIdPrefix}-race-${ORDER_KIND_TAGS[kind]}`,
  });
  return { creations: await Promise.all(Array.from({ length: n }, () => client.createOrder(kind, same))) };
}

/** N confirmations at once of one order awaiting confirmation, and its callbacks. */
async function race(kind: OrderKind): Promise<Race> {
  const client = target.client();
  const tag = `${target.runId}.race.${ORDER_KIND_TAGS[kind]}`;
  const order = await client.createOrder(
    kind,
    orderRequest(target, kind, { webHook: target.sink().callbackUrl(tag) }),
  );
  const id = dataOf(order.response.json)?.id;
  if (typeof id !== "string")
    throw new PrerequisiteError(
      `the order the confirmations race for could not be created (HTTP ${order.response.status})`,
      order.id,
    );
  const confirmations = await Promise.all(
    Array.from({ length: n }, () => client.confirmOrder(kind, id, profile.confirmation.successCode)),
  );
  const accepted = confirmations.some((c) => c.response.status === 200);
  const callbacks = accepted ? await callbacksOf(target, tag, successOutcome.length, SETTLE_MS) : [];
  return { kind, confirmations, order, callbacks };
}

const races = new Map<OrderKind, Settled<Race>>();
const creationRaces = new Map<OrderKind, Settled<CreationRace>>();
// The profile's waits plus the suite's measured stall: a fixed timeout failed correct targets on loaded machines.
// A request the machine held up may take up to twice requestMs.
const setupBudgetMs = profile.timeouts.callbackMs + profile.timeouts.requestMs * 2 * 3 + 10_000;
beforeAll(
  async () => {
    await withinMeasuredBudget(
      target,
      setupBudgetMs,
      "the race probes",
      Promise.all([
        ...ORDER_KINDS.map(async (kind) => races.set(kind, await settle(race(kind)))),
        ...ORDER_KINDS.map(async (kind) => creationRaces.set(kind, await settle(creationRace(kind)))),
      ]),
    );
  },
  hookTimeoutFor(target, setupBudgetMs),
);

const raceOf = (kind: OrderKind) => settledValue(races.get(kind), `the ${kind} races`);

/** A race whose requests never met at the target proves nothing: not evaluated, and why. */
const serialised = (requests: readonly Exchange[]) => {
  const reason = neverOverlapped(requests.map(wireTimesOf));
  return reason ? { blockedBy: { check: "(race)", reason } } : {};
};

for (const kind of ORDER_KINDS) {
  const { create, confirm } = OPERATIONS_BY_KIND[kind];
  describe(create, () => {
    it(titled(concurrentCreationsOneAccepted, `${n} at once`), (ctx) => {
      const { creations } = settledValue(creationRaces.get(kind), `the ${kind} creation race`);
      verify(
        ctx,
        target,
        concurrentCreationsOneAccepted,
        { answers: creations.map((e) => e.response), pinned: profile.errors.duplicateMerchantOrderId },
        creations,
        {
          ...serialised(creations),
          // A first answer that is not an envelope is the cause; the race is then not evaluated.
          subject: creations[0] ?? null,
          reproduction: reproductionOf(target, concurrentCreationsOneAccepted.name, {
            steps: [`send this request ${n} times at once (one merchantOrderID)`],
            request: creations[0]?.request.body,
            ...(creations[0] ? { curl: curlOf(target, creations[0]) } : {}),
          }),
        },
      );
    });
  });
  describe(confirm, () => {
    it(titled(concurrentConfirmationsOneAccepted, `${n} at once`), (ctx) => {
      const { confirmations, order } = raceOf(kind);
      verify(
        ctx,
        target,
        concurrentConfirmationsOneAccepted,
        {
          answers: confirmations.map((e) => e.response),
          pinned: profile.lifecycle.secondConfirm && profile.errors[profile.lifecycle.secondConfirm],
        },
        [order, ...confirmations],
        {
          ...serialised(confirmations),
          subject: confirmations[0] ?? null,
          reproduction: reproductionOf(target, concurrentConfirmationsOneAccepted.name, {
            steps: [`create an order, then send this confirmation ${n} times at once`],
            request: confirmations[0]?.request.body,
            ...(confirmations[0] ? { curl: curlOf(target, confirmations[0]) } : {}),
          }),
        },
      );
    });
  });
  describe("callbacks (races)", () => {
    it(
      titled(callbacksOneFinalAfterConcurrentConfirmations, `${kind}, ${n} confirmations at once`),
      (ctx) => {
        const { callbacks, confirmations, order } = raceOf(kind);
        verify(
          ctx,
          target,
          callbacksOneFinalAfterConcurrentConfirmations,
          {
            finalStatus: successOutcome[successOutcome.length - 1] ?? "succeeded",
            callbacks: callbacks.map((c) => ({ status: c.status, answeredWith: c.answeredWith })),
          },
          [order, ...confirmations],
          {
            ...serialised(confirmations),
            subject: null,
            callbacks: callbacks.map((c) => callbackId(c.seq)),
            reproduction: reproductionOf(target, callbacksOneFinalAfterConcurrentConfirmations.name, {
              steps: [
                `create an order with a webHook, then confirm it ${n} times at once; count its final callbacks`,
              ],
            }),
          },
        );
      },
    );
  });
}
