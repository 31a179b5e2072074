import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asciiPattern, wideClassesIn } from "./ascii-patterns.ts";

/** Characters where engines differ: ASCII digits and spaces beside Arabic-Indic, fullwidth and other Unicode ones. */
const TRICKY = [
  ..."09az_AZ -./:#?\t\n\r\v\f",
  "\u0660", // Arabic-Indic zero
  "\uff11", // fullwidth one
  "\u00a0", // no-break space
  "\u2003", // em space
  "\u3000", // ideographic space
  "\u0085", // next line: a space to Python, not to JavaScript
  "\u001c", // file separator: a space to Python, not to JavaScript
  "\u00e9", // é: a word character to Python, not to JavaScript
  "\b",
];

const PATTERNS = [
  "^\\d{4,8}$",
  "^\\D+$",
  "^[\\d.]+$",
  "^\\w+$",
  "^\\W*$",
  "^[\\w-]{2,}$",
  "^[^\\s/?#]+([/?#]\\S*)?$",
  "\\s",
  "^\\S+$",
  "\\bz",
  "a\\B",
  "^[\\b]$",
  "^\\\\d$",
  "^(?!none$).+$",
];

describe("asciiPattern", () => {
  it("keeps what each pattern matches in JavaScript, and leaves no class that engines read differently", () => {
    for (const source of PATTERNS) {
      const spelled = asciiPattern(source);
      expect(wideClassesIn(spelled), source).toEqual([]);
      const before = new RegExp(source);
      const after = new RegExp(spelled);
      // The u flag (how JSON Schema validators such as ajv compile) reads the spelling the same way.
      const afterU = new RegExp(spelled, "u");
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...TRICKY), { maxLength: 8 }), (chars) => {
          const text = chars.join("");
          const expected = before.test(text);
          return after.test(text) === expected && afterU.test(text) === expected;
        }),
        { seed: 37, numRuns: 400 },
      );
    }
  });

  it("spells \\d as [0-9] and \\s as JavaScript's whitespace list", () => {
    expect(asciiPattern("^\\d{12,19}$")).toBe("^[0-9]{12,19}$");
    expect(asciiPattern("^[\\d-]$")).toBe("^[0-9-]$");
    expect(asciiPattern("^\\D$")).toBe("^[^0-9]$");
    expect(new RegExp(asciiPattern("^\\s$")).test("\u00a0")).toBe(true);
    expect(new RegExp(asciiPattern("^\\s$")).test("\u0085")).toBe(false);
  });

  it("refuses, naming the pattern and the fix, a spelling it cannot give in one class", () => {
    expect(() => asciiPattern("^[^\\D]$")).toThrow(
      /"\^\[\^\\\\D\]\$" uses \\D inside a character class.*\[0-9\]/,
    );
    expect(() => asciiPattern("^\\p{L}$")).toThrow(/uses \\p/);
    expect(() => asciiPattern("^[]$")).toThrow(/an empty class/);
  });

  it("finds the classes a pattern has that engines read differently, not an escaped backslash", () => {
    expect(wideClassesIn("^\\d\\w[\\s]\\b$")).toEqual(["\\d", "\\w", "\\s", "\\b"]);
    expect(wideClassesIn("^\\\\d[0-9]$")).toEqual([]);
  });
});
