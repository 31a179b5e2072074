import { describe, expect, it } from "vitest";
import {
  matchesWhole,
  NORMALISATIONS,
  nearMissApiKeys,
  nearMissCodes,
  normalisedValues,
  standInCodePattern,
} from "./near-misses.ts";

describe("near-miss API keys", () => {
  const misses = nearMissApiKeys("sandbox-key-merchant-1", "sandbox-key-merchant-2");
  const values = misses.map((m) => m.value);

  it("add or remove a character at either end, change the case, wrap it in whitespace HTTP keeps", () => {
    expect(values).toEqual([
      "sandbox-key-merchant-12",
      "tsandbox-key-merchant-1",
      "sandbox-key-merchant-",
      "andbox-key-merchant-1",
      "SANDBOX-KEY-MERCHANT-1",
      "sandbox-key-merchant-1\u00a0",
      "\u00a0sandbox-key-merchant-1",
      "sandbox-key-merchant-1 2",
      "sandbox-key-merchant-3",
    ]);
  });

  it("mark a malformed credential with the normalisation that reads it as the key, and no other credential", () => {
    const byName = Object.fromEntries(misses.map((m) => [m.name, m.normalisation]));
    expect(byName).toEqual({
      "a character added at the end": undefined,
      "a character added at the start": undefined,
      "the last character removed": undefined,
      "the first character removed": undefined,
      "in another letter case": undefined,
      "a no-break space after it": "trim-whitespace",
      "a no-break space before it": "trim-whitespace",
      "a space and a character after it": "first-token",
      "the other merchant's key with its last character changed": undefined,
    });
    // What the everyday idioms make of each marked one: the key itself, so nothing is given away.
    const key = "sandbox-key-merchant-1";
    for (const miss of misses.filter((m) => m.normalisation === "trim-whitespace"))
      expect(miss.value.trim()).toBe(key);
    for (const miss of misses.filter((m) => m.normalisation === "first-token"))
      expect(/^Bearer\s+(\S+)/.exec(`Bearer ${miss.value}`)?.[1]).toBe(key);
    for (const miss of misses.filter((m) => m.normalisation === undefined)) {
      expect(miss.value.trim()).not.toBe(key);
      expect(/^Bearer\s+(\S+)/.exec(`Bearer ${miss.value}`)?.[1]).not.toBe(key);
    }
  });

  it("never send a valid key, and name no value in a title", () => {
    const collide = nearMissApiKeys("key-1", "key-2");
    expect(collide.map((m) => m.value)).not.toContain("key-2");
    for (const miss of misses) expect(miss.name).not.toContain("sandbox");
  });

  it("leave out the other merchant's key when there is none, and the case change of a key without letters", () => {
    const digits = nearMissApiKeys("1234567890");
    expect(digits.some((m) => m.name.includes("other merchant"))).toBe(false);
    expect(digits.some((m) => m.name.includes("case"))).toBe(false);
  });
});

describe("near-miss confirmation codes", () => {
  it("break the reference's 4-8 digits by one step each", () => {
    expect(nearMissCodes("1111", "^\\d{4,8}$", ["2222", "3333", "0000"])).toEqual([
      { name: "a letter before it", value: "x1111" },
      { name: "a letter after it", value: "1111x" },
      { name: "one character too few", value: "111" },
      { name: "one character too many", value: "111111111" },
      { name: "a space before it", value: " 1111", normalisation: "trim-whitespace" },
      { name: "a space after it", value: "1111 ", normalisation: "trim-whitespace" },
      { name: "in Arabic-Indic digits", value: "\u0661\u0661\u0661\u0661", normalisation: "unicode-digits" },
      { name: "in fullwidth digits", value: "\uff11\uff11\uff11\uff11", normalisation: "unicode-digits" },
    ]);
  });

  it("read non-ASCII digits by their value only for a code of digits alone", () => {
    const mixed = nearMissCodes("ab12", "[a-z0-9]{4}");
    expect(mixed.find((m) => m.name === "in fullwidth digits")?.normalisation).toBeUndefined();
  });

  it("leave out a step the pattern accepts", () => {
    const names = nearMissCodes("ab12", "[a-z0-9]{2,}").map((m) => m.name);
    expect(names).not.toContain("a letter before it");
    expect(names).not.toContain("one character too many");
    expect(names).toContain("one character too few");
  });

  it("judge a pattern as a whole, anchored or not", () => {
    expect(matchesWhole("\\d{4,8}", "x1111")).toBe(false);
    expect(matchesWhole("^\\d{4,8}$", "1111")).toBe(true);
  });

  it("stand in with the success code's kind and length when the profile declares no format", () => {
    expect(standInCodePattern("246810")).toBe("[0-9]{6}");
    expect(nearMissCodes("246810", standInCodePattern("246810")).map((m) => m.value)).toContain("2468102");
  });
});

describe("normalised values", () => {
  it("give what each everyday normalisation reads, and nothing where none changes the value", () => {
    expect(normalisedValues("\u00a012\u00a0")).toEqual([["trim-whitespace", "12"]]);
    expect(normalisedValues("0\u0663")).toEqual([["unicode-digits", "03"]]);
    expect(normalisedValues("\uff11\uff12")).toEqual(
      [
        ["unicode-digits", "12"],
        ["scalar-coercion", 12],
      ].slice(0, 1),
    );
    expect(normalisedValues("\u09e7\u09ea")).toEqual([["unicode-digits", "14"]]);
    expect(normalisedValues("1500")).toEqual([["scalar-coercion", 1500]]);
    expect(normalisedValues(12345)).toEqual([["scalar-coercion", "12345"]]);
    expect(normalisedValues("x1111")).toEqual([]);
    expect(normalisedValues(1.5)).toEqual([["scalar-coercion", "1.5"]]);
    expect(normalisedValues(null)).toEqual([]);
  });

  it("each say where they come from", () => {
    for (const text of Object.values(NORMALISATIONS)) expect(text).toMatch(/\(.+\)/);
  });
});
