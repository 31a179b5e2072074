/**
 * Order ids over a whole run: §2.2 gives `id` as the unique order id in the service, so no two
 * orders, of one merchant or two, of one kind or the other, share one.
 */
import { defineCheck, fail, pass, show } from "./check.ts";

export interface OrderIdSighting {
  /** `data.id` of an answer that created an order. */
  orderId: unknown;
  /** Where it was seen: the exchange, and whose order it is when that is known. */
  where: string;
}

export const semanticsOrderIdUnique = defineCheck<OrderIdSighting[]>(
  "semantics.order-id-unique",
  "semantics",
  "No two orders created in a run share an id, whichever merchant and order kind made them (§2.2: the unique order ID in the service).",
  (sightings) => {
    const seen = new Map<string, string[]>();
    for (const { orderId, where } of sightings) {
      if (typeof orderId !== "string" || orderId === "") continue;
      seen.set(orderId, [...(seen.get(orderId) ?? []), where]);
    }
    const repeated = [...seen].filter(([, places]) => places.length > 1);
    if (repeated.length === 0) return pass(`${seen.size} distinct ids in ${sightings.length} created orders`);
    const [id, places] = repeated[0] as [string, string[]];
    return fail(
      `${repeated.length} id(s) given to more than one order; ${show(id)} to ${places.length} orders (${places.slice(0, 3).join(", ")}${places.length > 3 ? ", ..." : ""})`,
    );
  },
  { source: { kind: "stated", sections: ["§2.2"], what: "id: the unique order ID in the service" } },
);
