/**
 * Mobile-commerce orders (seed §4.1, §4.2): the order record a creation answers, field by field
 * and value by value, then the confirmation flow.
 */
import { beforeAll, describe, it } from "vitest";
import {
  dataOf,
  fieldsOrderRecord,
  fieldsStatusKnown,
  rejectsDuplicateMerchantOrderId,
  semanticsAmountEchoed,
  semanticsCommissionNonNegative,
  semanticsCurrencyOfMethod,
  semanticsDatesOrdered,
  semanticsExchangeRatePositive,
  semanticsMerchantOrderIdEchoed,
  semanticsMethodEchoed,
  semanticsRoutingAttemptsEmpty,
  semanticsStatusAfterOperation,
  semanticsUsdtAmount,
  semanticsUsdtCommission,
} from "../checks/index.ts";
import type { Exchange } from "../h2h-client.ts";
import { type CreatedOrder, createOrder, orderRequest } from "./support/orders.ts";
import {
  confirmationTests,
  failureEnvelopeTests,
  successEnvelopeTests,
  titled,
} from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = await loadSpecTarget(import.meta.url);
const method = target.profile.methods.mobileCommerce;

describe("createMobileCommerceOrder", () => {
  let order: CreatedOrder;
  let withoutMerchantOrderId: CreatedOrder;
  let duplicate: Exchange;
  const record = () => dataOf(order.exchange.response.json) ?? {};

  beforeAll(async () => {
    order = await createOrder(target, "mobile_commerce", { merchantOrderID: true });
    withoutMerchantOrderId = await createOrder(target, "mobile_commerce", { merchantOrderID: false });
    duplicate = await target
      .client()
      .createMobileCommerceOrder(
        orderRequest(target, "mobile_commerce", { merchantOrderID: String(order.request.merchantOrderID) }),
      );
  });

  successEnvelopeTests(target, () => order.exchange);
  it(fieldsOrderRecord.name, (ctx) =>
    verify(
      ctx,
      target,
      fieldsOrderRecord,
      { data: dataOf(order.exchange.response.json), contract: target.contract },
      [order.exchange],
    ),
  );
  it(fieldsStatusKnown.name, (ctx) =>
    verify(ctx, target, fieldsStatusKnown, { status: record().status, known: target.knownStatuses }, [
      order.exchange,
    ]),
  );
  it(semanticsUsdtAmount.name, (ctx) =>
    verify(ctx, target, semanticsUsdtAmount, { record: record(), tolerance: target.profile.usdtTolerance }, [
      order.exchange,
    ]),
  );
  it(semanticsUsdtCommission.name, (ctx) =>
    verify(
      ctx,
      target,
      semanticsUsdtCommission,
      { record: record(), tolerance: target.profile.usdtTolerance },
      [order.exchange],
    ),
  );
  it(semanticsCommissionNonNegative.name, (ctx) =>
    verify(ctx, target, semanticsCommissionNonNegative, record(), [order.exchange]),
  );
  it(semanticsExchangeRatePositive.name, (ctx) =>
    verify(ctx, target, semanticsExchangeRatePositive, record(), [order.exchange]),
  );
  it(semanticsAmountEchoed.name, (ctx) =>
    verify(
      ctx,
      target,
      semanticsAmountEchoed,
      { field: "amount", expected: order.request.amount, received: record().amount },
      [order.exchange],
    ),
  );
  it(semanticsCurrencyOfMethod.name, (ctx) =>
    verify(
      ctx,
      target,
      semanticsCurrencyOfMethod,
      { field: "currency", expected: method.currency, received: record().currency },
      [order.exchange],
    ),
  );
  it(semanticsMethodEchoed.name, (ctx) =>
    verify(
      ctx,
      target,
      semanticsMethodEchoed,
      {
        field: "paymentDetailsData.methodID",
        expected: method.methodID,
        received: (record().paymentDetailsData as Record<string, unknown> | undefined)?.methodID,
      },
      [order.exchange],
    ),
  );
  it(titled(semanticsMerchantOrderIdEchoed, "merchantOrderID sent"), (ctx) =>
    verify(
      ctx,
      target,
      semanticsMerchantOrderIdEchoed,
      {
        field: "idTransactionMerchant",
        expected: order.request.merchantOrderID,
        received: record().idTransactionMerchant,
      },
      [order.exchange],
    ),
  );
  it(titled(semanticsMerchantOrderIdEchoed, "none sent"), (ctx) =>
    verify(
      ctx,
      target,
      semanticsMerchantOrderIdEchoed,
      {
        field: "idTransactionMerchant",
        expected: null,
        received: dataOf(withoutMerchantOrderId.exchange.response.json)?.idTransactionMerchant,
      },
      [withoutMerchantOrderId.exchange],
    ),
  );
  it(semanticsDatesOrdered.name, (ctx) =>
    verify(
      ctx,
      target,
      semanticsDatesOrdered,
      { record: record(), rfc3339: target.profile.gaps.dateFormat === "rfc3339" },
      [order.exchange],
    ),
  );
  it(semanticsRoutingAttemptsEmpty.name, (ctx) =>
    verify(ctx, target, semanticsRoutingAttemptsEmpty, record(), [order.exchange]),
  );
  it(semanticsStatusAfterOperation.name, (ctx) =>
    verify(
      ctx,
      target,
      semanticsStatusAfterOperation,
      {
        operation: "createMobileCommerceOrder",
        expected: target.profile.expectedStatus.createMobileCommerceOrder,
        received: record().status,
      },
      [order.exchange],
    ),
  );
  it(rejectsDuplicateMerchantOrderId.name, (ctx) =>
    verify(
      ctx,
      target,
      rejectsDuplicateMerchantOrderId,
      { response: duplicate.response, pinned: target.profile.errors.duplicateMerchantOrderId },
      [order.exchange, duplicate],
    ),
  );
  failureEnvelopeTests(target, () => duplicate, "duplicate merchantOrderID");
});

confirmationTests(target, "mobile_commerce");
