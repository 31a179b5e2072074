/**
 * The four endpoints of the API description's §4, in one place: method, path, request schema and which
 * response schema of the contract answers them. The OpenAPI document, the reference provider's
 * router and the HTTP client all read this table.
 */
import type * as z from "zod";
import { OPERATION_NAMES, OPERATIONS, type OperationName, type OrderKind } from "./names.ts";
import {
  ConfirmOrderRequest,
  CreateMobileCommerceOrderRequest,
  CreateQuasiEcomOrderRequest,
} from "./schemas.ts";

export interface Endpoint {
  /** The operation, also the key of its success envelope in `contract.responses`. */
  operation: OperationName;
  /** The API description's section. */
  section: string;
  summary: string;
  method: "POST";
  /** Path relative to `{base_url}`, with `{id}` for the order id where there is one. */
  path: string;
  orderKind: OrderKind;
  request: z.ZodType;
}

/** The create request of each order kind; both confirm requests are alike (§4.2, §4.4). */
const CREATE_REQUESTS: Record<OrderKind, z.ZodType> = {
  mobile_commerce: CreateMobileCommerceOrderRequest,
  quasi_ecom: CreateQuasiEcomOrderRequest,
};

/** How an order kind reads in a summary. */
const KIND_WORDS: Record<OrderKind, string> = {
  mobile_commerce: "mobile-commerce",
  quasi_ecom: "quasi-ecom",
};

export const ENDPOINTS = Object.fromEntries(
  OPERATION_NAMES.map((operation): [OperationName, Endpoint] => {
    const { kind, step, section, path } = OPERATIONS[operation];
    const create = step === "create";
    return [
      operation,
      {
        operation,
        section,
        summary: `${create ? "Create" : "Confirm"} ${KIND_WORDS[kind]} order`,
        method: "POST",
        path,
        orderKind: kind,
        request: create ? CREATE_REQUESTS[kind] : ConfirmOrderRequest,
      },
    ];
  }),
) as Record<OperationName, Endpoint>;

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
