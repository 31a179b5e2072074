import { describe, expect, it } from "vitest";
import { amountRoundingProbes } from "./amount-rounding.ts";
import type { OrderMethod } from "./request-json-schema.ts";

const method = (limits: Partial<OrderMethod>): OrderMethod => ({
  kind: "mobile_commerce",
  methodID: 101,
  currency: "RUB",
  minAmount: undefined,
  maxAmount: undefined,
  requiredFields: [],
  ...limits,
});

const summary = (m: OrderMethod, decimals?: number) =>
  amountRoundingProbes(m, decimals === undefined ? undefined : { amountDecimals: decimals }).map((p) => [
    p.amount,
    p.rounded,
    p.expect,
    p.basis.kind,
  ]);

describe("amountRoundingProbes", () => {
  it("sends 0.4 of a cent, which rounds to 0, and the maximum passed by as much: refused or kept, and refused", () => {
    expect(summary(method({ maxAmount: 1_000_000 }))).toEqual([
      [0.004, 0, "refused-or-exact", "necessary"],
      [1_000_000.004, 1_000_000, "refused", "declared"],
    ]);
    const [tiny] = amountRoundingProbes(method({}), undefined);
    expect(tiny?.name).toBe("0.004, below the smallest unit 0.01 (rounds to 0)");
  });

  it("follows the decimals the profile declares", () => {
    expect(summary(method({ maxAmount: 5000 }), 0)).toEqual([
      [0.4, 0, "refused-or-exact", "necessary"],
      [5000.4, 5000, "refused", "declared"],
    ]);
    expect(summary(method({}), 3)).toEqual([[0.0004, 0, "refused-or-exact", "necessary"]]);
  });

  it("below a declared minimum, the tiny amount is refused, and so is the minimum less 0.4 of a cent", () => {
    expect(summary(method({ minAmount: 1000, maxAmount: 50_000_000 }))).toEqual([
      [0.004, 0, "refused", "declared"],
      [50_000_000.004, 50_000_000, "refused", "declared"],
      [999.996, 1000, "refused", "declared"],
    ]);
  });
});
