/**
 * The four endpoints' operation names, order kinds and paths (seed §4), free of any schema so
 * that the k6 load bundles can use them without carrying a validator library.
 */

export type OperationName =
  | "createMobileCommerceOrder"
  | "confirmMobileCommerceOrder"
  | "createQuasiEcomOrder"
  | "confirmQuasiEcomOrder";

export type OrderKind = "mobile_commerce" | "quasi_ecom";

/** Path relative to `{base_url}`, with `{id}` for the order id where there is one. */
export const ENDPOINT_PATHS: Record<OperationName, string> = {
  createMobileCommerceOrder: "/api/v1/payin/mobile-commerce/h2h",
  confirmMobileCommerceOrder: "/api/v1/orders/{id}/mobile-commerce-confirm/h2h",
  createQuasiEcomOrder: "/api/v1/payin/quasi-ecom/h2h",
  confirmQuasiEcomOrder: "/api/v1/orders/{id}/ecom-confirm/h2h",
};

/** The concrete path of an endpoint, with the order id percent-encoded into `{id}`. */
export function endpointPath(operation: OperationName, orderId?: string): string {
  const path = ENDPOINT_PATHS[operation];
  if (!path.includes("{id}")) return path;
  if (orderId === undefined) throw new Error(`${operation} needs an order id for its path ${path}`);
  return path.replace("{id}", encodeURIComponent(orderId));
}

/** The create and confirm operations of each order kind. */
export const OPERATIONS_BY_KIND: Record<OrderKind, { create: OperationName; confirm: OperationName }> = {
  mobile_commerce: { create: "createMobileCommerceOrder", confirm: "confirmMobileCommerceOrder" },
  quasi_ecom: { create: "createQuasiEcomOrder", confirm: "confirmQuasiEcomOrder" },
};
