/** Orders as the target's profile says to make them: its method, amount and required fields. */
import {
  buildMobileCommerceOrderRequest,
  buildQuasiEcomOrderRequest,
  uniqueMerchantOrderId,
} from "../../../fixtures/payloads.ts";
import { dataOf } from "../../checks/semantics.ts";
import type { OrderKind } from "../../endpoints.ts";
import type { Exchange, H2hClient } from "../../h2h-client.ts";
import type { SpecTarget } from "./target.ts";

export interface OrderExtras {
  /** A merchantOrderID; `true` makes a unique one, `false` sends none. */
  merchantOrderID?: string | boolean;
  webHook?: string;
}

export function orderRequest(
  target: SpecTarget,
  kind: OrderKind,
  extras: OrderExtras = {},
): Record<string, unknown> {
  const method =
    kind === "mobile_commerce" ? target.profile.methods.mobileCommerce : target.profile.methods.quasiEcom;
  const merchantOrderID =
    extras.merchantOrderID === true || extras.merchantOrderID === undefined
      ? uniqueMerchantOrderId(target.runId, kind === "mobile_commerce" ? "mc" : "qe")
      : extras.merchantOrderID === false
        ? undefined
        : extras.merchantOrderID;
  const common = {
    methodID: method.methodID,
    amount: method.amount,
    withClientID: method.requires.clientID,
    ...(merchantOrderID !== undefined ? { merchantOrderID } : {}),
    ...(extras.webHook !== undefined ? { webHook: extras.webHook } : {}),
  };
  return kind === "mobile_commerce"
    ? buildMobileCommerceOrderRequest({ ...common, withClientMetadata: method.requires.clientMetadata })
    : buildQuasiEcomOrderRequest(common);
}

export interface CreatedOrder {
  request: Record<string, unknown>;
  exchange: Exchange;
  /** The order id the target answered, or undefined when creation failed. */
  id: string | undefined;
}

export async function createOrder(
  target: SpecTarget,
  kind: OrderKind,
  extras: OrderExtras = {},
  client: H2hClient = target.client(),
): Promise<CreatedOrder> {
  const request = orderRequest(target, kind, extras);
  const exchange =
    kind === "mobile_commerce"
      ? await client.createMobileCommerceOrder(request)
      : await client.createQuasiEcomOrder(request);
  const id = dataOf(exchange.response.json)?.id;
  return { request, exchange, id: typeof id === "string" ? id : undefined };
}

/** The id of a created order, or an error that says creation failed and why. */
export function orderIdOf(order: CreatedOrder): string {
  if (order.id !== undefined) return order.id;
  throw new Error(
    `the order could not be created (HTTP ${order.exchange.response.status}): ${order.exchange.response.body.slice(0, 200)}`,
  );
}

export function confirm(
  client: H2hClient,
  kind: OrderKind,
  orderId: string,
  code: string,
): Promise<Exchange> {
  return kind === "mobile_commerce"
    ? client.confirmMobileCommerceOrder(orderId, code)
    : client.confirmQuasiEcomOrder(orderId, code);
}
