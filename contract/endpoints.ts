/**
 * The four endpoints of the seed's §4, in one place: method, path, request schema and which
 * response schema of the contract answers them. The OpenAPI document, the reference provider's
 * router and the HTTP client all read this table.
 */
import type * as z from "zod";
import {
  ConfirmOrderRequest,
  type Contract,
  CreateMobileCommerceOrderRequest,
  CreateQuasiEcomOrderRequest,
} from "./schemas.ts";

export type OperationName =
  | "createMobileCommerceOrder"
  | "confirmMobileCommerceOrder"
  | "createQuasiEcomOrder"
  | "confirmQuasiEcomOrder";

export type OrderKind = "mobile_commerce" | "quasi_ecom";

export interface Endpoint {
  operation: OperationName;
  /** The seed's section. */
  section: string;
  summary: string;
  method: "POST";
  /** Path relative to `{base_url}`, with `{id}` for the order id where there is one. */
  path: string;
  orderKind: OrderKind;
  request: z.ZodType;
  /** Key of the success envelope in `contract.responses`. */
  response: keyof Contract["responses"];
}

export const ENDPOINTS: Record<OperationName, Endpoint> = {
  createMobileCommerceOrder: {
    operation: "createMobileCommerceOrder",
    section: "4.1",
    summary: "Create mobile-commerce order",
    method: "POST",
    path: "/api/v1/payin/mobile-commerce/h2h",
    orderKind: "mobile_commerce",
    request: CreateMobileCommerceOrderRequest,
    response: "createMobileCommerceOrder",
  },
  confirmMobileCommerceOrder: {
    operation: "confirmMobileCommerceOrder",
    section: "4.2",
    summary: "Confirm mobile-commerce order",
    method: "POST",
    path: "/api/v1/orders/{id}/mobile-commerce-confirm/h2h",
    orderKind: "mobile_commerce",
    request: ConfirmOrderRequest,
    response: "confirmMobileCommerceOrder",
  },
  createQuasiEcomOrder: {
    operation: "createQuasiEcomOrder",
    section: "4.3",
    summary: "Create quasi-ecom order",
    method: "POST",
    path: "/api/v1/payin/quasi-ecom/h2h",
    orderKind: "quasi_ecom",
    request: CreateQuasiEcomOrderRequest,
    response: "createQuasiEcomOrder",
  },
  confirmQuasiEcomOrder: {
    operation: "confirmQuasiEcomOrder",
    section: "4.4",
    summary: "Confirm quasi-ecom order",
    method: "POST",
    path: "/api/v1/orders/{id}/ecom-confirm/h2h",
    orderKind: "quasi_ecom",
    request: ConfirmOrderRequest,
    response: "confirmQuasiEcomOrder",
  },
};

/** The concrete path of an endpoint, with the order id percent-encoded into `{id}`. */
export function endpointPath(operation: OperationName, orderId?: string): string {
  const { path } = ENDPOINTS[operation];
  if (!path.includes("{id}")) return path;
  if (orderId === undefined) throw new Error(`${operation} needs an order id for its path ${path}`);
  return path.replace("{id}", encodeURIComponent(orderId));
}

/**
 * Matches a request path against the endpoints; returns the operation and the decoded order id.
 * Built from the same path templates, so router and client cannot drift apart.
 */
export function matchEndpoint(pathname: string): { operation: OperationName; orderId?: string } | undefined {
  for (const [operation, matcher] of PATH_MATCHERS) {
    const match = matcher.exec(pathname);
    if (!match) continue;
    const encoded = match[1];
    if (encoded === undefined) return { operation };
    try {
      return { operation, orderId: decodeURIComponent(encoded) };
    } catch {
      return { operation, orderId: encoded };
    }
  }
  return undefined;
}

const PATH_MATCHERS: [OperationName, RegExp][] = Object.values(ENDPOINTS).map((endpoint) => [
  endpoint.operation,
  new RegExp(`^${endpoint.path.replace("{id}", "([^/]+)")}$`),
]);

/** The confirm operation for an order kind, and the create operation. */
export const OPERATIONS_BY_KIND: Record<OrderKind, { create: OperationName; confirm: OperationName }> = {
  mobile_commerce: { create: "createMobileCommerceOrder", confirm: "confirmMobileCommerceOrder" },
  quasi_ecom: { create: "createQuasiEcomOrder", confirm: "confirmQuasiEcomOrder" },
};
