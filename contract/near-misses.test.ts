import { describe, expect, it } from "vitest";
import { matchesWhole, nearMissApiKeys, nearMissCodes, standInCodePattern } from "./near-misses.ts";

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
      { name: "a space before it", value: " 1111" },
      { name: "a space after it", value: "1111 " },
      { name: "in Arabic-Indic digits", value: "\u0661\u0661\u0661\u0661" },
      { name: "in fullwidth digits", value: "\uff11\uff11\uff11\uff11" },
    ]);
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
