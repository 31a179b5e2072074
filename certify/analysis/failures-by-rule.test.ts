/** Failures and advisories by rule count results: a record that stands for several counts them all. */
import { describe, expect, it } from "vitest";
import type { CheckRecord } from "../engine/run-model.ts";
import { advisoriesByRule, failuresByRule } from "./failures-by-rule.ts";

const record = (extra: Partial<CheckRecord>): CheckRecord => ({
  endpoint: "provider · createMobileCommerceOrder",
  check: "envelope.json-content-type",
  rule: "r",
  status: "failed",
  required: true,
  detail: "Content-Type is text/plain",
  durationMs: 1,
  exchanges: ["x4"],
  source: "observe",
  ...extra,
});

describe("rules by what failed", () => {
  it("counts every result a record stands for (observe's failures past its list)", () => {
    const [rule] = failuresByRule([
      record({}),
      record({ exchanges: ["x8"] }),
      record({ exchanges: [], case: "98 more failed, not listed", count: 98 }),
      record({ status: "passed", count: 300 }),
    ]);
    expect(rule).toMatchObject({ check: "envelope.json-content-type", count: 100 });
    expect(rule?.first.exchanges).toEqual(["x4"]);
  });

  it("counts every advisory result a record stands for", () => {
    const [rule] = advisoriesByRule([
      record({ required: false, reason: "informational" }),
      record({ required: false, reason: "informational", count: 9 }),
    ]);
    expect(rule?.count).toBe(10);
  });
});
