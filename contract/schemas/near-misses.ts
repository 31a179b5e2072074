/**
 * Near misses of an identity: values one step away from a valid API key or confirmation code. A
 * target that compares a prefix, ignores letter case, trims, or tests a pattern without anchors
 * takes one of them for the real thing; each must be refused like a wrong one.
 */

export interface NearMiss {
  /** What was changed, for a test title: never the value itself (a key is a secret). */
  name: string;
  value: string;
  /**
   * The common, harmless normalisation that would explain an acceptance: the value it gives is
   * the valid one. Undefined for a value that is another identity (a character added or
   * removed, another letter case): its acceptance is wrong whatever the target normalises.
   */
  normalisation?: Normalisation;
}

/**
 * Normalisations that ordinary, correct code applies to its input, each with where it comes from.
 * An acceptance one of them explains gives nothing away (the valid value is still needed), so it
 * is reported as an advisory unless the profile lists the normalisation in `strictInput`.
 */
export const NORMALISATIONS = {
  "trim-whitespace":
    "trimming Unicode whitespace around a value (String.prototype.trim(), \\s in a regular expression, Python's str.strip()), which drops a no-break space",
  "first-token":
    "reading the first whitespace-separated word after the scheme (splitting the header on whitespace), which drops what follows a space",
  "unicode-digits":
    "reading a non-ASCII decimal digit by its value (NFKC folds fullwidth digits; \\d and int() with Unicode semantics read any script's)",
  "scalar-coercion":
    'coercing a JSON scalar to the field\'s type when it spells the same value (Jackson\'s default, pydantic\'s lax mode): "1500" read as 1500, 12345 as "12345"',
} as const;

export type Normalisation = keyof typeof NORMALISATIONS;

export const NORMALISATION_NAMES = Object.keys(NORMALISATIONS) as Normalisation[];

/** A character that is not the one at `at`: the next letter or digit of its own kind. */
function otherChar(char: string): string {
  if (/[0-8a-yA-Y]/.test(char)) return String.fromCharCode(char.charCodeAt(0) + 1);
  if (char === "9") return "0";
  if (char === "z") return "a";
  if (char === "Z") return "A";
  return "x";
}

/** A letter case other than the key's own: swapped letter by letter; undefined for a key without letters. */
function otherCase(value: string): string | undefined {
  const swapped = Array.from(value, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(
    "",
  );
  return swapped === value ? undefined : swapped;
}

/**
 * A valid key with a character added or removed at either end, in another letter case, and the
 * other merchant's key with one character changed: other credentials, well formed, that only a
 * loose comparison takes. Then credentials that are not well-formed tokens (RFC 6750 `b64token`):
 * the key with a no-break space around it (HTTP itself strips spaces and tabs around a header
 * value, so those reach no target) or a space and a character after it; a target that trims or
 * splits the header reads the valid key, so each carries that normalisation.
 */
export function nearMissApiKeys(key: string, otherKey?: string): NearMiss[] {
  const chars = Array.from(key);
  const first = chars[0] ?? "x";
  const last = chars.at(-1) ?? "x";
  const misses: NearMiss[] = [
    { name: "a character added at the end", value: `${key}${otherChar(last)}` },
    { name: "a character added at the start", value: `${otherChar(first)}${key}` },
  ];
  if (chars.length > 1) {
    misses.push(
      { name: "the last character removed", value: chars.slice(0, -1).join("") },
      { name: "the first character removed", value: chars.slice(1).join("") },
    );
  }
  const cased = otherCase(key);
  if (cased !== undefined) misses.push({ name: "in another letter case", value: cased });
  misses.push(
    { name: "a no-break space after it", value: `${key}\u00a0`, normalisation: "trim-whitespace" },
    { name: "a no-break space before it", value: `\u00a0${key}`, normalisation: "trim-whitespace" },
    {
      name: "a space and a character after it",
      value: `${key} ${otherChar(last)}`,
      normalisation: "first-token",
    },
  );
  if (otherKey !== undefined && otherKey.length > 0) {
    const other = Array.from(otherKey);
    other[other.length - 1] = otherChar(other.at(-1) as string);
    misses.push({ name: "the other merchant's key with its last character changed", value: other.join("") });
  }
  const valid = new Set([key, otherKey]);
  return misses.filter((miss) => !valid.has(miss.value));
}

/** Whether a code matches a pattern as a whole, whatever anchors the pattern itself has. */
export function matchesWhole(pattern: string, value: string): boolean {
  return new RegExp(`^(?:${pattern})$`).test(value);
}

/** The stand-in format of a code when the profile declares none: the success code's own kind and length. */
export function standInCodePattern(successCode: string): string {
  const length = Array.from(successCode).length;
  return /^[0-9]+$/.test(successCode) ? `[0-9]{${length}}` : `[A-Za-z0-9]{${length}}`;
}

const ARABIC_INDIC_ZERO = 0x0660;
const FULLWIDTH_ZERO = 0xff10;

/** How far lengths are tried when looking for a pattern's shortest and longest code. */
const LONGEST_TRIED = 64;

/**
 * Codes that break `pattern` by one step, each from `code` (a valid one): a letter before or after
 * it, one character too few or too many for the pattern's shortest and longest length, a space
 * before or after it, its digits written in Arabic-Indic or fullwidth digits. A step the pattern
 * accepts is no break of it and is left out, as is a value equal to one of `keep` (the codes with an
 * outcome).
 */
export function nearMissCodes(code: string, pattern: string, keep: readonly string[] = []): NearMiss[] {
  const chars = Array.from(code);
  const cycled = (length: number) =>
    Array.from({ length }, (_, i) => chars[i % chars.length] as string).join("");
  const accepted = (length: number) => matchesWhole(pattern, cycled(length));
  const misses: NearMiss[] = [
    { name: "a letter before it", value: `x${code}` },
    { name: "a letter after it", value: `${code}x` },
  ];
  if (chars.length > 0) {
    let shortest = 1;
    while (shortest <= LONGEST_TRIED && !accepted(shortest)) shortest++;
    if (shortest <= LONGEST_TRIED) {
      let longest = shortest;
      while (longest < LONGEST_TRIED && accepted(longest + 1)) longest++;
      if (shortest > 1) misses.push({ name: "one character too few", value: cycled(shortest - 1) });
      if (longest < LONGEST_TRIED)
        misses.push({ name: "one character too many", value: cycled(longest + 1) });
    }
  }
  misses.push(
    { name: "a space before it", value: ` ${code}`, normalisation: "trim-whitespace" },
    { name: "a space after it", value: `${code} `, normalisation: "trim-whitespace" },
  );
  if (/[0-9]/.test(code)) {
    const digits = (zero: number) =>
      code.replace(/[0-9]/g, (d) => String.fromCodePoint(zero + d.charCodeAt(0) - 0x30));
    // Only a code of digits alone reads back as itself; letters beside them are kept as they are.
    const normalisation: Normalisation | undefined = /^[0-9]+$/.test(code) ? "unicode-digits" : undefined;
    misses.push(
      {
        name: "in Arabic-Indic digits",
        value: digits(ARABIC_INDIC_ZERO),
        ...(normalisation ? { normalisation } : {}),
      },
      {
        name: "in fullwidth digits",
        value: digits(FULLWIDTH_ZERO),
        ...(normalisation ? { normalisation } : {}),
      },
    );
  }
  const seen = new Set([code, ...keep]);
  return misses.filter((miss) => {
    if (seen.has(miss.value) || matchesWhole(pattern, miss.value)) return false;
    seen.add(miss.value);
    return true;
  });
}

/** Each decimal digit of another script (Unicode `Nd`) written as its ASCII digit; nothing else changes. */
function asciiDigits(text: string): string {
  return text.replace(/\p{Nd}/gu, (digit) => {
    // Unicode's decimal digits come in runs of ten from zero: a digit's value is its place in its run.
    let code = digit.codePointAt(0) as number;
    let place = 0;
    while (/\p{Nd}/u.test(String.fromCodePoint(code - 1))) {
      code -= 1;
      place += 1;
    }
    return String(place % 10);
  });
}

/**
 * What each normalisation makes of one value of a JSON body, where it changes it: the value a
 * target that applies it would read. The first-token one applies to a header, not a body.
 */
export function normalisedValues(value: unknown): [Normalisation, unknown][] {
  const out: [Normalisation, unknown][] = [];
  if (typeof value === "string") {
    if (value.trim() !== value) out.push(["trim-whitespace", value.trim()]);
    const digits = asciiDigits(value);
    if (digits !== value) out.push(["unicode-digits", digits]);
    if (/^-?[0-9]+(?:\.[0-9]+)?$/.test(value)) out.push(["scalar-coercion", Number(value)]);
  } else if (typeof value === "number" && Number.isFinite(value)) {
    out.push(["scalar-coercion", String(value)]);
  }
  return out;
}
