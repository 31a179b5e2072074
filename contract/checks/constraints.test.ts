import { describe, expect, it } from "vitest";
import { deriveNegativeCases } from "../generation/index.ts";
import { CreateQuasiEcomOrderRequest } from "../schemas/index.ts";
import { rejectsMissingField, rejectsNonPositiveAmount, rejectsWrongType } from "./behaviour.ts";
import {
  checkOfConstraint,
  rejectsLengthOutOfBounds,
  rejectsMalformedValue,
  rejectsMethodOfOtherKind,
  rejectsMissingConditionalField,
  rejectsOutOfRange,
  rejectsValueOutsideEnum,
} from "./constraints.ts";

const card = {
  number: "4111111111111111",
  mediatorName: "A B",
  lifetimeMonth: "12",
  lifetimeYear: "30",
  cvc: "123",
};
const base = { methodID: 202, amount: 10, clientID: "c-1", requisites: card };
const method202 = {
  kind: "quasi_ecom" as const,
  methodID: 202,
  currency: "KZT",
  maxAmount: 1_000_000,
  requiredFields: ["clientID"],
};
const method101 = { kind: "mobile_commerce" as const, methodID: 101, currency: "RUB", requiredFields: [] };

describe("the check of each constraint", () => {
  it("names one check per keyword, and the non-positive amount its own", () => {
    expect(checkOfConstraint({ keyword: "required", expected: true })).toBe(rejectsMissingField);
    expect(checkOfConstraint({ keyword: "type", expected: "string" })).toBe(rejectsWrongType);
    expect(checkOfConstraint({ keyword: "enum", expected: ["a"] })).toBe(rejectsValueOutsideEnum);
    expect(checkOfConstraint({ keyword: "maxLength", expected: 255 })).toBe(rejectsLengthOutOfBounds);
    expect(checkOfConstraint({ keyword: "pattern", expected: "^\\d{2}$" })).toBe(rejectsMalformedValue);
    expect(checkOfConstraint({ keyword: "format", expected: "uri" })).toBe(rejectsMalformedValue);
    expect(checkOfConstraint({ keyword: "exclusiveMinimum", expected: 0 })).toBe(rejectsNonPositiveAmount);
    expect(checkOfConstraint({ keyword: "maximum", expected: 1_000_000 })).toBe(rejectsOutOfRange);
    expect(checkOfConstraint({ keyword: "required-by-method", expected: 202 })).toBe(
      rejectsMissingConditionalField,
    );
    expect(checkOfConstraint({ keyword: "method", expected: "quasi_ecom" })).toBe(rejectsMethodOfOtherKind);
    expect(() => checkOfConstraint({ keyword: "multipleOf", expected: 2 })).toThrow(
      /"multipleOf".*checkOfConstraint/,
    );
  });

  it("every case derived from a request has a check (none goes unjudged)", () => {
    const { cases } = deriveNegativeCases(CreateQuasiEcomOrderRequest, base, {
      method: method202,
      methods: [method202, method101],
    });
    const judged = new Set(cases.map((c) => checkOfConstraint(c.constraint).name));
    expect([...judged].sort()).toEqual(
      [
        rejectsMissingField,
        rejectsWrongType,
        rejectsValueOutsideEnum,
        rejectsLengthOutOfBounds,
        rejectsMalformedValue,
        rejectsNonPositiveAmount,
        rejectsOutOfRange,
        rejectsMissingConditionalField,
        rejectsMethodOfOtherKind,
      ]
        .map((c) => c.name)
        .sort(),
    );
  });

  it("each fails on an acceptance and on a refusal other than the pinned one", () => {
    const refused = {
      status: 400,
      headers: {},
      body: "",
      json: { data: null, result: { codeError: "validation_error" } },
    };
    const acceptedAnswer = {
      status: 200,
      headers: {},
      body: "",
      json: { data: {}, result: { codeError: "none" } },
    };
    const pinned = { httpStatus: 400, codeError: "validation_error" };
    for (const check of [rejectsMalformedValue, rejectsMissingConditionalField, rejectsOutOfRange]) {
      expect(check.run({ response: refused, pinned }).ok).toBe(true);
      expect(check.run({ response: acceptedAnswer, pinned }).ok).toBe(false);
      expect(check.run({ response: { ...refused, status: 422 }, pinned }).ok).toBe(false);
    }
  });
});
