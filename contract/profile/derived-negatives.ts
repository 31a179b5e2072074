/**
 * The derived negative cases of one profile, endpoint by endpoint: what a run sends and what
 * `--list-checks` lists come from this one function, so that a rule the profile waives ("none")
 * is absent from both, and a rule it declares is in both.
 */

import type { OrderMethod } from "../generation/index.ts";
import {
  createRequestSchema,
  deriveNegativeCases,
  type GeneratedOrder,
  type GenerateOrdersOptions,
  generateOrders,
  type NegativeCases,
} from "../generation/index.ts";
import {
  ENDPOINTS,
  OPERATIONS_BY_KIND,
  type OperationName,
  ORDER_KINDS,
  type OrderKind,
} from "../schemas/index.ts";
import type { Profile } from "./profile.ts";
import { orderMethodsOf } from "./profile-probes.ts";

export interface DerivedNegatives extends NegativeCases {
  operation: OperationName;
  kind: OrderKind;
  /** A creation's method, and the valid order each case breaks one thing of. */
  method?: OrderMethod;
  base?: GeneratedOrder;
}

/** How the valid bases are generated: the run's seed, prefix, callback URL and card expiry date. */
export type NegativeBaseOptions = Pick<
  GenerateOrdersOptions,
  "seed" | "callbackUrl" | "merchantOrderIdPrefix" | "now"
>;

/** Every derived negative case of the profile: per creation method, then per confirm endpoint. */
export function derivedNegativesOf(profile: Profile, options: NegativeBaseOptions): DerivedNegatives[] {
  const methods = orderMethodsOf(profile);
  const rules = { maxLengths: profile.maxLengths, requestRules: profile.requestRules };
  // Each method's base: a valid order with every optional field present (the plan "all fields"),
  // so that every field's constraints have a value to break.
  const bases = generateOrders({ ...options, methods, testCards: profile.testCards, ...rules }).filter(
    (order) => order.index === 0,
  );
  const out: DerivedNegatives[] = [];
  for (const kind of ORDER_KINDS) {
    for (const base of bases.filter((order) => order.method.kind === kind)) {
      const { method } = base;
      out.push({
        operation: OPERATIONS_BY_KIND[kind].create,
        kind,
        method,
        base,
        ...deriveNegativeCases(createRequestSchema(kind), base.body, {
          method,
          methods,
          testCards: profile.testCards,
          ...rules,
        }),
      });
    }
    const confirm = OPERATIONS_BY_KIND[kind].confirm;
    out.push({
      operation: confirm,
      kind,
      ...deriveNegativeCases(ENDPOINTS[confirm].request, { code: profile.confirmation.successCode }, rules),
    });
  }
  return out;
}
