/**
 * Callbacks out of the usual order: succeeded_by_appeal before failed_by_terminal, a final
 * status followed by another, orders the merchant never made, other amounts. Each is taken or
 * refused, never a 5xx or no answer; an unknown order's answer is judged as the profile says.
 */

import {
  type Delivery,
  ORDER_KINDS,
  type OrderKind,
  receiverAnswersVariation,
  receiverUnknownOrder,
  validDelivery,
} from "../../contract/index.ts";
import { describe, it, type SpecTestContext } from "../engine/spec-api.ts";
import { verify } from "../specs/support/verify.ts";
import { loadReceiverTarget } from "./support.ts";

const target = loadReceiverTarget(import.meta.filename);
const { profile, secret } = target;

/** The amounts a callback may carry: the method's, its limits where declared, and cents. */
function amountsOf(kind: OrderKind): number[] {
  const method = profile.methods[kind];
  const amounts = [method.minAmount, method.maxAmount, Math.floor(method.amount) + 0.01, 1];
  return [...new Set(amounts.filter((a): a is number => a !== undefined))];
}

const sequences: { kind: OrderKind; n: number; statuses: string[]; label: string }[] = ORDER_KINDS.flatMap(
  (kind) => [
    {
      kind,
      n: 2,
      statuses: ["succeeded_by_appeal", "failed_by_terminal"],
      label: "succeeded_by_appeal before failed_by_terminal",
    },
    { kind, n: 3, statuses: ["succeeded", "expired"], label: "expired after succeeded" },
  ],
);

const judge = (delivery: Delivery) => async (context: SpecTestContext) => {
  const { answer, exchange } = await target.deliver(delivery);
  verify(context, target, receiverAnswersVariation, { answer }, [exchange], { subject: null });
};

describe("(order variations)", () => {
  for (const { kind, n, statuses, label } of sequences)
    statuses.forEach((status, i) => {
      const delivery = validDelivery(
        profile,
        secret,
        target.orderOf(kind, n),
        status,
        `${label}, ${kind}: ${i === 0 ? "first" : "then"} ${status}`,
      );
      it(`${receiverAnswersVariation.name} › ${delivery.case}`, judge(delivery));
    });
  for (const kind of ORDER_KINDS) {
    const delivery = validDelivery(
      profile,
      secret,
      target.unknownOrder(kind, "variation"),
      "succeeded",
      `an unknown order, ${kind}`,
    );
    it(`${receiverAnswersVariation.name} › ${delivery.case}`, judge(delivery));
    for (const amount of amountsOf(kind)) {
      const order = { ...target.orderOf(kind, 4), amount };
      const amounted = validDelivery(profile, secret, order, "succeeded", `amount ${amount}, ${kind}`);
      it(`${receiverAnswersVariation.name} › ${amounted.case}`, judge(amounted));
    }
  }
});

describe("(unknown orders)", () => {
  const expected = profile.callbacks.unknownOrder ?? "refuse";
  for (const kind of ORDER_KINDS) {
    const delivery = validDelivery(
      profile,
      secret,
      target.unknownOrder(kind, "order"),
      "succeeded",
      `an order never made, ${kind}`,
    );
    it(`${receiverUnknownOrder.name} › ${delivery.case}`, async (context) => {
      const { answer, exchange } = await target.deliver(delivery);
      verify(context, target, receiverUnknownOrder, { answer, expected }, [exchange], { subject: null });
    });
  }
});
