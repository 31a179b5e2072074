/**
 * The four endpoints of the seed's §4, in one place: method, path, request schema and which
 * response schema of the contract answers them. The OpenAPI document, the reference provider's
 * router and the HTTP client all read this table.
 */
import type * as z from "zod";
import { ENDPOINT_PATHS, type OperationName, type OrderKind } from "./names.ts";
import {
  ConfirmOrderRequest,
  type Contract,
  CreateMobileCommerceOrderRequest,
  CreateQuasiEcomOrderRequest,
} from "./schemas.ts";

export {
  ENDPOINT_PATHS,
  endpointPath,
  OPERATIONS_BY_KIND,
  type OperationName,
  type OrderKind,
} from "./names.ts";

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
    path: ENDPOINT_PATHS.createMobileCommerceOrder,
    orderKind: "mobile_commerce",
    request: CreateMobileCommerceOrderRequest,
    response: "createMobileCommerceOrder",
  },
  confirmMobileCommerceOrder: {
    operation: "confirmMobileCommerceOrder",
    section: "4.2",
    summary: "Confirm mobile-commerce order",
    method: "POST",
    path: ENDPOINT_PATHS.confirmMobileCommerceOrder,
    orderKind: "mobile_commerce",
    request: ConfirmOrderRequest,
    response: "confirmMobileCommerceOrder",
  },
  createQuasiEcomOrder: {
    operation: "createQuasiEcomOrder",
    section: "4.3",
    summary: "Create quasi-ecom order",
    method: "POST",
    path: ENDPOINT_PATHS.createQuasiEcomOrder,
    orderKind: "quasi_ecom",
    request: CreateQuasiEcomOrderRequest,
    response: "createQuasiEcomOrder",
  },
  confirmQuasiEcomOrder: {
    operation: "confirmQuasiEcomOrder",
    section: "4.4",
    summary: "Confirm quasi-ecom order",
    method: "POST",
    path: ENDPOINT_PATHS.confirmQuasiEcomOrder,
    orderKind: "quasi_ecom",
    request: ConfirmOrderRequest,
    response: "confirmQuasiEcomOrder",
  },
};

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
