/**
 * Order ids over a whole run: §2.2 gives `id` as the unique order id in the service, so no two
 * orders, of one merchant or two, of one kind or the other, share one.
 */
import { OPERATIONS } from "../schemas/index.ts";
import { type Check, defineCheck, fail, pass, show } from "./check.ts";
import { answerRootCause } from "./root-cause.ts";

export interface OrderIdSighting {
  /** `data.id` of an answer that created an order. */
  orderId: unknown;
  /** Where it was seen: the exchange, and whose order it is when that is known. */
  where: string;
}

export const semanticsOrderIdUnique: Check<OrderIdSighting[]> = defineCheck<OrderIdSighting[]>(
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
  {
    source: { kind: "stated", sections: ["§2.2"], what: "id: the unique order ID in the service" },
    // Every order a creation answer names, of both merchants and both kinds.
    overRun: ({ exchanges }) => {
      const created = exchanges.filter(
        (e) =>
          answerRootCause(e.response) === undefined &&
          e.operation !== undefined &&
          OPERATIONS[e.operation].step === "create" &&
          e.response.status >= 200 &&
          e.response.status < 300,
      );
      const sightings = created.map((e) => {
        const data = (e.response.json as { data?: Record<string, unknown> } | undefined)?.data;
        const merchant = typeof data?.merchantID === "string" ? `, merchant ${data.merchantID}` : "";
        return { orderId: data?.id, where: `${e.id} ${e.operation}${merchant}` };
      });
      const outcome = semanticsOrderIdUnique.run(sightings);
      if (created.length >= 2) return [{ outcome }];
      // Fewer than two orders (a run limited by --only, a target refusing every creation, whose
      // refusals fail elsewhere): nothing to compare, and no cause to wait on.
      return [{ outcome, skipped: `the run created ${created.length} order(s): uniqueness needs two` }];
    },
  },
);
