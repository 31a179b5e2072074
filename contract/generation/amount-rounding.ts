/**
 * Amounts finer than the currency's smallest unit, where rounding moves them across a bound: 0.4
 * of the unit (0.004 at 2 decimals), which is more than 0 as sent and 0 once rounded, and a
 * method's limit passed by the same 0.4 of a unit, which rounds back onto the limit. A target that
 * rounds before it judges makes an order of 0, or takes an amount beyond its limit.
 */
import type { MoneyConvention, RuleSource } from "../checks/index.ts";
import type { OrderMethod } from "./request-json-schema.ts";
import { constraintBasis } from "./request-rules.ts";

/**
 * Decimals of an amount where the profile declares none (`conventions.money.amountDecimals`): the
 * cent, as the derived negatives break a limit by one cent.
 */
export const DEFAULT_AMOUNT_DECIMALS = 2;

export interface AmountRoundingProbe {
  method: OrderMethod;
  /** What the amount is, for a test title: `0.004, below the smallest unit 0.01 (rounds to 0)`. */
  name: string;
  /** The amount sent. */
  amount: number;
  /** The amount it rounds to at the money's decimals. */
  rounded: number;
  decimals: number;
  /**
   * `refused-or-exact`: within every bound as sent, past one once rounded (to 0): refused, or kept
   * exactly. `refused`: past a bound as sent (a method's limit), within it once rounded: refused.
   */
  expect: "refused-or-exact" | "refused";
  /** The bound it is judged by: amount > 0, or the method's minAmount or maxAmount. */
  basis: RuleSource;
}

/** `value` written with `digits` decimals, as a JSON number (no binary tail: 0.004, not 0.0040000000000000001). */
const fixed = (value: number, digits: number) => Number(value.toFixed(digits));

/** Every rounding probe of one method: below the smallest unit, and past each limit it declares. */
export function amountRoundingProbes(
  method: OrderMethod,
  money: MoneyConvention | undefined,
): AmountRoundingProbe[] {
  const decimals = money?.amountDecimals ?? DEFAULT_AMOUNT_DECIMALS;
  const unit = 10 ** -decimals;
  const tiny = fixed(0.4 * unit, decimals + 1);
  const declared = { rules: {} };
  const probes: AmountRoundingProbe[] = [];
  const belowMinimum = method.minAmount !== undefined && tiny < method.minAmount;
  probes.push({
    method,
    name: `${tiny}, below the smallest unit ${fixed(unit, decimals)} (rounds to 0)`,
    amount: tiny,
    rounded: 0,
    decimals,
    // Below a declared minimum it is refused whatever it rounds to.
    expect: belowMinimum ? "refused" : "refused-or-exact",
    basis: constraintBasis("amount", belowMinimum ? "minimum" : "exclusiveMinimum", declared),
  });
  if (method.maxAmount !== undefined) {
    const amount = fixed(method.maxAmount + 0.4 * unit, decimals + 1);
    probes.push({
      method,
      name: `${amount}, past the maximum ${method.maxAmount} by less than a unit (rounds to ${fixed(amount, decimals)})`,
      amount,
      rounded: fixed(amount, decimals),
      decimals,
      expect: "refused",
      basis: constraintBasis("amount", "maximum", declared),
    });
  }
  if (method.minAmount !== undefined && method.minAmount - 0.4 * unit > tiny) {
    const amount = fixed(method.minAmount - 0.4 * unit, decimals + 1);
    probes.push({
      method,
      name: `${amount}, below the minimum ${method.minAmount} by less than a unit (rounds to ${fixed(amount, decimals)})`,
      amount,
      rounded: fixed(amount, decimals),
      decimals,
      expect: "refused",
      basis: constraintBasis("amount", "minimum", declared),
    });
  }
  return probes;
}
