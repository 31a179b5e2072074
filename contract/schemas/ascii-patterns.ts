/**
 * Regular expressions as every engine reads them alike. The suite's patterns are JavaScript's,
 * compiled without the `u` flag, where `\d`, `\w` and `\b` are ASCII only; Python's `re`, and
 * other engines a generic tool may use, read `\d` as any Unicode digit and `\s` as their own list
 * of spaces. A pattern written out here says the JavaScript meaning in explicit classes, so a
 * fuzzer that reads the OpenAPI document sends and expects what the suite's checks mean.
 */

/** What JavaScript's `\s` matches (ECMA-262 WhiteSpace and LineTerminator), as a class body. */
export const JS_WHITESPACE =
  "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";

/** JavaScript's `\d`, `\w` and `\s`, as class bodies. */
const CLASS_BODIES: Readonly<Record<string, string>> = {
  d: "0-9",
  w: "A-Za-z0-9_",
  s: JS_WHITESPACE,
};

const WORD = "[A-Za-z0-9_]";
/** JavaScript's `\b` and `\B` (an ASCII word boundary, and its absence), with lookarounds. */
const BOUNDARIES: Readonly<Record<string, string>> = {
  b: `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`,
  B: `(?:(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD}))`,
};

/** Escapes whose meaning differs between engines, or that mean more than ASCII in some: found by {@link wideClassesIn}. */
const WIDE_ESCAPE = /\\[dDwWsSbBpP]/;

/**
 * `source` (a JavaScript pattern, compiled without flags) with `\d`, `\w`, `\s`, their negations
 * and `\b`/`\B` spelled as explicit classes: the same strings match in JavaScript, and in any other
 * engine they match what JavaScript means. A spelling this cannot give in a class of its own (a
 * negated escape inside a class, `\p`, an empty class) throws, naming the pattern and the fix.
 */
export function asciiPattern(source: string): string {
  const refuse = (what: string) => {
    throw new Error(
      `the pattern ${JSON.stringify(source)} uses ${what}, which engines read differently: write it with explicit ranges such as [0-9]`,
    );
  };
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i] as string;
    if (char === "\\") {
      const next = source[i + 1];
      i++;
      if (next === undefined) return out + char;
      const body = CLASS_BODIES[next.toLowerCase()];
      if (body !== undefined) {
        const negated = next !== next.toLowerCase();
        if (!inClass) out += negated ? `[^${body}]` : `[${body}]`;
        else if (negated) refuse(`\\${next} inside a character class`);
        else out += body;
      } else if (next === "b" || next === "B") {
        // In a class, JavaScript reads `\b` as a backspace and `\B` as the letter B.
        out += inClass ? (next === "b" ? "\\x08" : "B") : BOUNDARIES[next];
      } else if (next === "p" || next === "P") refuse(`\\${next}`);
      else out += char + next;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      out += char;
      continue;
    }
    if (char === "[") {
      // In JavaScript `[]` matches nothing and `[^]` anything; elsewhere `]` there is a literal.
      const rest = source.slice(i + 1);
      if (rest.startsWith("]") || rest.startsWith("^]")) refuse("an empty class");
      inClass = true;
    }
    out += char;
  }
  return out;
}

/** Whether a pattern uses an escape that engines read differently (`\d`, `\w`, `\s`, `\b`, `\p`, negations). */
export function wideClassesIn(source: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== "\\") continue;
    const pair = source.slice(i, i + 2);
    if (WIDE_ESCAPE.test(pair)) found.push(pair);
    i++;
  }
  return found;
}
