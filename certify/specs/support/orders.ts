/** Orders as the target's profile says to make them: its method, amount and required fields. */
import { dataOf, type Exchange, type H2hClient, type OrderKind } from "../../../contract/index.ts";
import { buildOrderRequest, ORDER_KIND_TAGS, uniqueMerchantOrderId } from "../../../fixtures/index.ts";
import { PrerequisiteError } from "../../engine/run-context.ts";
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
  const method = target.profile.methods[kind];
  const merchantOrderID =
    extras.merchantOrderID === true || extras.merchantOrderID === undefined
      ? uniqueMerchantOrderId(target.runId, ORDER_KIND_TAGS[kind])
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
  return buildOrderRequest(kind, { ...common, withClientMetadata: method.requires.clientMetadata });
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
  const exchange = await client.createOrder(kind, request);
  const id = dataOf(exchange.response.json)?.id;
  return { request, exchange, id: typeof id === "string" ? id : undefined };
}

/**
 * The id of a created order, or a PrerequisiteError that says creation failed and names the
 * exchange: the checks waiting on the order are then "not evaluated", and its answer the cause.
 */
export function orderIdOf(order: CreatedOrder): string {
  if (order.id !== undefined) return order.id;
  throw new PrerequisiteError(
    `the order these checks need could not be created (${order.exchange.request.method} ${new URL(order.exchange.request.url).pathname} answered HTTP ${order.exchange.response.status}${order.exchange.response.status === 200 ? " with no order id" : ""})`,
    order.exchange.id,
  );
}

/** Confirms an order; `probeOf` names the check the confirmation probes, where it is a probe. */
export function confirm(
  client: H2hClient,
  kind: OrderKind,
  orderId: string,
  code: string,
  probeOf?: string,
): Promise<Exchange> {
  return client.confirmOrder(kind, orderId, code, probeOf ? { probeOf } : undefined);
}
