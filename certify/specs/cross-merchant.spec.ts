/**
 * Checks that need a second merchant (H2H_API_KEY_2): merchantOrderID is unique within one
 * merchant account only (§8), and one merchant cannot act on another's order. Without the
 * second key they are skipped by name, with the reason.
 */

import type { Exchange } from "../../contract/index.ts";
import {
  acceptsMerchantOrderIdOfOtherMerchant,
  OPERATIONS_BY_KIND,
  type OrderKind,
  rejectsOtherMerchantsOrder,
} from "../../contract/index.ts";
import { beforeAll, describe, it } from "../engine/spec-api.ts";
import { type CreatedOrder, confirm, createOrder, orderIdOf } from "./support/orders.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify, verifyRejection } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const SKIP_REASON = "H2H_API_KEY_2 is not set: cross-merchant checks need a second merchant's API key";

interface CrossMerchant {
  firstMerchantsOrder: CreatedOrder;
  sameIdSecondMerchant: CreatedOrder;
  secondConfirmsFirsts: Exchange;
}

async function crossMerchant(kind: OrderKind): Promise<CrossMerchant> {
  const firstMerchantsOrder = await createOrder(target, kind, { merchantOrderID: true });
  const sameIdSecondMerchant = await createOrder(
    target,
    kind,
    { merchantOrderID: String(firstMerchantsOrder.request.merchantOrderID) },
    target.secondClient(),
  );
  const secondConfirmsFirsts = await confirm(
    target.secondClient(),
    kind,
    orderIdOf(firstMerchantsOrder),
    target.profile.confirmation.successCode,
  );
  return { firstMerchantsOrder, sameIdSecondMerchant, secondConfirmsFirsts };
}

for (const kind of ["mobile_commerce", "quasi_ecom"] as OrderKind[]) {
  const { create, confirm: confirmOperation } = OPERATIONS_BY_KIND[kind];
  let prepared: Settled<CrossMerchant> | undefined;

  beforeAll(async () => {
    if (target.secondApiKey) prepared = await settle(crossMerchant(kind));
  });

  describe(create, () => {
    it(acceptsMerchantOrderIdOfOtherMerchant.name, (ctx) => {
      if (!target.secondApiKey) return ctx.skip(SKIP_REASON);
      const { firstMerchantsOrder, sameIdSecondMerchant } = settledValue(
        prepared,
        "the cross-merchant orders",
      );
      verify(ctx, target, acceptsMerchantOrderIdOfOtherMerchant, sameIdSecondMerchant.exchange.response, [
        firstMerchantsOrder.exchange,
        sameIdSecondMerchant.exchange,
      ]);
    });
  });

  describe(confirmOperation, () => {
    it(rejectsOtherMerchantsOrder.name, (ctx) => {
      if (!target.secondApiKey) return ctx.skip(SKIP_REASON);
      const { firstMerchantsOrder, secondConfirmsFirsts } = settledValue(
        prepared,
        "the cross-merchant orders",
      );
      verifyRejection(
        ctx,
        target,
        rejectsOtherMerchantsOrder,
        secondConfirmsFirsts,
        target.profile.lifecycle.otherMerchantConfirm,
        [firstMerchantsOrder.exchange, secondConfirmsFirsts],
      );
    });
  });
}
