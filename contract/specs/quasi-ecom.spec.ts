/**
 * Quasi-ecom orders (seed §4.3, §4.4): the creation result, then the confirmation flow. The
 * request carries a test card; every recorded copy of it is masked.
 */
import { beforeAll, describe, it } from "vitest";
import {
  dataOf,
  fieldsQuasiEcomCreationResult,
  fieldsStatusKnown,
  rejectsDuplicateMerchantOrderId,
  semanticsMerchantOrderIdEchoed,
  semanticsStatusAfterOperation,
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

describe("createQuasiEcomOrder", () => {
  let order: CreatedOrder;
  let withoutMerchantOrderId: CreatedOrder;
  let duplicate: Exchange;
  const result = () => dataOf(order.exchange.response.json) ?? {};

  beforeAll(async () => {
    order = await createOrder(target, "quasi_ecom", { merchantOrderID: true });
    withoutMerchantOrderId = await createOrder(target, "quasi_ecom", { merchantOrderID: false });
    // The same merchantOrderID again, through the other order kind: uniqueness is per merchant account.
    duplicate = await target
      .client()
      .createMobileCommerceOrder(
        orderRequest(target, "mobile_commerce", { merchantOrderID: String(order.request.merchantOrderID) }),
      );
  });

  successEnvelopeTests(target, () => order.exchange);
  it(fieldsQuasiEcomCreationResult.name, (ctx) =>
    verify(
      ctx,
      target,
      fieldsQuasiEcomCreationResult,
      { data: dataOf(order.exchange.response.json), contract: target.contract },
      [order.exchange],
    ),
  );
  it(fieldsStatusKnown.name, (ctx) =>
    verify(ctx, target, fieldsStatusKnown, { status: result().status, known: target.knownStatuses }, [
      order.exchange,
    ]),
  );
  it(titled(semanticsMerchantOrderIdEchoed, "merchantOrderID sent"), (ctx) =>
    verify(
      ctx,
      target,
      semanticsMerchantOrderIdEchoed,
      {
        field: "merchantOrderID",
        expected: order.request.merchantOrderID,
        received: result().merchantOrderID,
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
        field: "merchantOrderID",
        expected: null,
        received: dataOf(withoutMerchantOrderId.exchange.response.json)?.merchantOrderID,
      },
      [withoutMerchantOrderId.exchange],
    ),
  );
  it(semanticsStatusAfterOperation.name, (ctx) =>
    verify(
      ctx,
      target,
      semanticsStatusAfterOperation,
      {
        operation: "createQuasiEcomOrder",
        expected: target.profile.expectedStatus.createQuasiEcomOrder,
        received: result().status,
      },
      [order.exchange],
    ),
  );
  it(titled(rejectsDuplicateMerchantOrderId, "across order kinds"), (ctx) =>
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

confirmationTests(target, "quasi_ecom");
