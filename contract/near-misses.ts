/**
 * Near misses of an identity: values one step away from a valid API key or confirmation code. A
 * target that compares a prefix, ignores letter case, trims, or tests a pattern without anchors
 * takes one of them for the real thing; each must be refused like a wrong one.
 */

export interface NearMiss {
  /** What was changed, for a test title: never the value itself (a key is a secret). */
  name: string;
  value: string;
}

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
 * A valid key with a character added or removed at either end, in another letter case, with
 * whitespace around it, and the other merchant's key with one character changed. The whitespace is
 * a no-break space (U+00A0): HTTP itself strips spaces and tabs around a header value, so those
 * reach no target, while a no-break space does and a trimming comparison drops it.
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
    { name: "a no-break space after it", value: `${key}\u00a0` },
    { name: "a no-break space before it", value: `\u00a0${key}` },
    { name: "a space and a character after it", value: `${key} ${otherChar(last)}` },
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
    { name: "a space before it", value: ` ${code}` },
    { name: "a space after it", value: `${code} ` },
  );
  if (/[0-9]/.test(code)) {
    const digits = (zero: number) =>
      code.replace(/[0-9]/g, (d) => String.fromCodePoint(zero + d.charCodeAt(0) - 0x30));
    misses.push(
      { name: "in Arabic-Indic digits", value: digits(ARABIC_INDIC_ZERO) },
      { name: "in fullwidth digits", value: digits(FULLWIDTH_ZERO) },
    );
  }
  const seen = new Set([code, ...keep]);
  return misses.filter((miss) => {
    if (seen.has(miss.value) || matchesWhole(pattern, miss.value)) return false;
    seen.add(miss.value);
    return true;
  });
}
