import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DateConvention, fieldsDateFraction, fieldsDateOffset } from "../checks/index.ts";
import { dateConventionPattern, spellForGenericTools } from "./openapi-generic.ts";

const CONVENTIONS: DateConvention[] = [
  { offset: "utc", fractionalSeconds: "required", fractionDigits: 3 },
  { offset: "utc" },
  { offset: "utc", fractionalSeconds: "forbidden" },
  { fractionalSeconds: "required" },
  { fractionDigits: 6 },
  { offset: "any", fractionalSeconds: "forbidden" },
];

/** Dates near the conventions' edges: every offset spelling, fraction separator and length, case, junk. */
const dates = fc
  .tuple(
    fc.constantFrom("2026-11-27", "2026-11-27 ", "x", "", "a\nb", "\u2028"),
    fc.constantFrom("T", "t", " "),
    fc.constantFrom("07:21:16", "7:21:16", "07:21"),
    fc.constantFrom("", ".123", ",123", ".1", ".123456", ".", ".12a"),
    fc.constantFrom("", "Z", "z", "+00:00", "-00:00", "+0000", "+03:00", "+0300", "+00", "Zx", "\u0660"),
  )
  .map((parts) => parts.join(""));

describe("dateConventionPattern", () => {
  it("accepts a date exactly when fields.date-offset and fields.date-fraction both pass it", () => {
    for (const convention of CONVENTIONS) {
      const source = dateConventionPattern(convention);
      expect(source, JSON.stringify(convention)).toBeDefined();
      const pattern = new RegExp(source as string, "u");
      fc.assert(
        fc.property(dates, (value) => {
          const input = { dates: [{ path: "data.dateAdded", value }], convention };
          const checks = fieldsDateOffset.run(input).ok && fieldsDateFraction.run(input).ok;
          return pattern.test(value) === checks;
        }),
        { seed: 37, numRuns: 600 },
      );
    }
  });

  it("is undefined where the profile declares neither an offset nor a fraction rule", () => {
    expect(dateConventionPattern(undefined)).toBeUndefined();
    expect(
      dateConventionPattern({ offset: "any", fractionalSeconds: "any", oneFormat: true }),
    ).toBeUndefined();
  });
});

describe("spellForGenericTools", () => {
  it("drops additionalProperties {} and an anyOf that allows anything, spells patterns in ASCII, and leaves names and data alone", () => {
    const schema = {
      type: "object",
      additionalProperties: {},
      properties: {
        additionalProperties: {},
        pattern: { type: "string", pattern: "^\\d+$" },
        redirect: { anyOf: [{}, { type: "null" }] },
        closed: { type: "object", additionalProperties: false },
        open: { type: "object", additionalProperties: { type: "string", pattern: "\\w" } },
      },
      examples: [{ pattern: "\\d" }],
    };
    spellForGenericTools(schema);
    expect(schema).toEqual({
      type: "object",
      properties: {
        additionalProperties: {},
        pattern: { type: "string", pattern: "^[0-9]+$" },
        redirect: {},
        closed: { type: "object", additionalProperties: false },
        open: { type: "object", additionalProperties: { type: "string", pattern: "[A-Za-z0-9_]" } },
      },
      examples: [{ pattern: "\\d" }],
    });
  });
});
