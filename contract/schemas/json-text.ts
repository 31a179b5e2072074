/**
 * What JSON.parse forgives in a body, read from the bytes as received: a byte order mark, bytes
 * that are not UTF-8, a member name twice in one object (JSON.parse keeps the last value, a
 * first-wins parser the first), a lone surrogate escape (`\ud800`). RFC 8259 §8.1 forbids the
 * first two, §4 calls the third's meaning unpredictable, and I-JSON (RFC 7493 §2.1, §2.3) forbids
 * the last two. One pass of a small tokenizer, no tree: a certify run scans every answer.
 */
import { isUtf8 } from "node:buffer";

export type JsonTextProblem = "byte-order-mark" | "invalid-utf8" | "duplicate-name" | "lone-surrogate";

export interface JsonTextIssue {
  problem: JsonTextProblem;
  /** Where: a dotted path (`result.status`, `data.items[0]`), `(body)` for the body as a whole. */
  path: string;
  /** What was found, in words: the name and where both of its members start, the bytes. */
  detail: string;
}

export interface JsonTextReport {
  /** The first {@link MAX_JSON_TEXT_ISSUES} issues, in the order met. */
  issues: JsonTextIssue[];
  /** How many more there were. */
  more: number;
}

/** A hostile body may hold thousands: the first few say what is wrong. */
export const MAX_JSON_TEXT_ISSUES = 10;

/** The UTF-8 byte order mark. */
const BOM = [0xef, 0xbb, 0xbf] as const;

const hex = (bytes: Uint8Array) =>
  [...bytes].map((b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ");

/**
 * Where `bytes` stop being UTF-8: each ill-formed sequence (its maximal subpart, as a decoder
 * replaces it with one U+FFFD), with its offset. Called only when isUtf8 said no.
 */
function invalidUtf8Sequences(bytes: Uint8Array, report: (offset: number, length: number) => void): void {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    // Unicode Table 3-7: the lead byte fixes the length and the range of the second byte.
    let need = 0;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f; // ED A0..BF would be a surrogate
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else {
      report(i, 1);
      i += 1;
      continue;
    }
    let j = 1;
    for (; j <= need; j++) {
      const c = bytes[i + j];
      const lo = j === 1 ? low : 0x80;
      const hi = j === 1 ? high : 0xbf;
      if (c === undefined || c < lo || c > hi) break;
    }
    if (j <= need) {
      report(i, j);
      i += j;
    } else i += need + 1;
  }
}

/** Collects issues up to the bound, counting the rest. */
class Issues {
  readonly report: JsonTextReport = { issues: [], more: 0 };
  add(problem: JsonTextProblem, path: () => string, detail: () => string): void {
    if (this.report.issues.length < MAX_JSON_TEXT_ISSUES)
      this.report.issues.push({ problem, path: path(), detail: detail() });
    else this.report.more += 1;
  }
}

/** One object or array being read: its path from the root, and for an object the names seen. */
interface Frame {
  /** Path segments: a member name, or an array index. */
  key: string | number | undefined;
  array: boolean;
  /** Each member name seen in this object, with where its string starts. */
  names: Map<string, number> | undefined;
  /** In an object: the next string is a member name. In an array: the index of the next item. */
  expectName: boolean;
  index: number;
}

function pathOf(stack: readonly Frame[], last: string | number | undefined): string {
  let path = "";
  const add = (key: string | number | undefined) => {
    if (key === undefined) return;
    if (typeof key === "number") path += `[${key}]`;
    else
      path += /^[A-Za-z_$][\w$-]*$/.test(key) ? (path === "" ? key : `.${key}`) : `[${JSON.stringify(key)}]`;
  };
  for (const frame of stack.slice(1)) add(frame.key);
  add(last);
  return path === "" ? "(body)" : path;
}

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** The code unit a `\uXXXX` escape at `at` (the backslash) gives, or -1 when it is not one. */
function escapedUnit(text: string, at: number): number {
  if (text.charCodeAt(at) !== 92 || text.charCodeAt(at + 1) !== 117) return -1;
  for (let k = at + 2; k < at + 6; k++) if (!isHex(text.charCodeAt(k))) return -1;
  return Number.parseInt(text.slice(at + 2, at + 6), 16);
}

/**
 * Scans JSON text for duplicate member names and lone surrogates (escaped, or raw in a string
 * that did not come from UTF-8). Stops quietly where the text is not JSON: that is another
 * check's finding. A leading U+FEFF is skipped (the byte check reports it).
 */
export function scanJsonText(text: string, into: Issues = new Issues()): JsonTextReport {
  // Decoded UTF-8 holds none: only a text made otherwise needs the slow look at every character.
  const rawSurrogates = !(text as unknown as { isWellFormed(): boolean }).isWellFormed();
  const stack: Frame[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  /**
   * Where the next backslash and quote are, each found once and again only when passed: a string
   * of 10,000 escapes costs one pass, not one per escape.
   */
  let nextBackslash = -2;
  let nextQuote = -2;
  const n = text.length;
  /** The member name of the value about to be read, for paths. */
  let currentName: string | undefined;

  /** Reads a string opening at `i`; returns the index after its closing quote, or -1. */
  const readString = (start: number, path: () => string): number => {
    let j = start + 1;
    for (;;) {
      if (nextBackslash !== -1 && nextBackslash < j) nextBackslash = text.indexOf("\\", j);
      if (nextQuote !== -1 && nextQuote < j) nextQuote = text.indexOf('"', j);
      const quote = nextQuote;
      if (quote === -1) return -1;
      if (rawSurrogates) {
        for (let k = j; k < quote && (nextBackslash === -1 || k < nextBackslash); k++) {
          const c = text.charCodeAt(k);
          if (c >= 0xd800 && c <= 0xdfff) {
            const pair =
              c <= 0xdbff
                ? (text.charCodeAt(k + 1) & 0xfc00) === 0xdc00
                : (text.charCodeAt(k - 1) & 0xfc00) === 0xd800;
            if (!pair)
              into.add(
                "lone-surrogate",
                path,
                () => `a lone surrogate U+${c.toString(16).toUpperCase()}, unescaped`,
              );
          }
        }
      }
      if (nextBackslash === -1 || nextBackslash > quote) return quote + 1;
      // An escape before the quote: judge it, then go on after it.
      const at = nextBackslash;
      const unit = escapedUnit(text, at);
      if (unit === -1) {
        j = at + 2;
        continue;
      }
      if (unit >= 0xd800 && unit <= 0xdbff) {
        const low = escapedUnit(text, at + 6);
        if (low >= 0xdc00 && low <= 0xdfff) {
          j = at + 12;
          continue;
        }
        into.add(
          "lone-surrogate",
          path,
          () => `${text.slice(at, at + 6)}, a high surrogate with no low one after it`,
        );
      } else if (unit >= 0xdc00 && unit <= 0xdfff) {
        into.add(
          "lone-surrogate",
          path,
          () => `${text.slice(at, at + 6)}, a low surrogate with no high one before it`,
        );
      }
      j = at + 6;
    }
  };

  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) {
      i += 1;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === 123 || c === 91) {
      // `{` or `[`: a value opens; its key is the member name or the array index before it.
      const key = top ? (top.array ? top.index : currentName) : undefined;
      stack.push({
        key,
        array: c === 91,
        expectName: c === 123,
        index: 0,
        names: c === 123 ? new Map() : undefined,
      });
      currentName = undefined;
      i += 1;
      continue;
    }
    if (c === 125 || c === 93) {
      stack.pop();
      currentName = undefined;
      i += 1;
      continue;
    }
    if (c === 44) {
      // `,`: the next member name, or the next item.
      if (top?.array) top.index += 1;
      else if (top) top.expectName = true;
      currentName = undefined;
      i += 1;
      continue;
    }
    if (c === 58) {
      i += 1;
      continue;
    }
    if (c === 34) {
      const start = i;
      if (top && !top.array && top.expectName) {
        const end = readString(start, () => pathOf(stack, undefined));
        if (end === -1) break;
        const raw = text.slice(start + 1, end - 1);
        let name = raw;
        if (raw.includes("\\")) {
          try {
            name = JSON.parse(text.slice(start, end)) as string;
          } catch {
            break;
          }
        }
        const names = top.names as Map<string, number>;
        const first = names.get(name);
        if (first === undefined) names.set(name, start);
        else
          into.add(
            "duplicate-name",
            () => pathOf(stack, name),
            () =>
              `member ${JSON.stringify(name)} twice in one object (at characters ${first} and ${start}): JSON.parse keeps the second, a first-wins parser the first`,
          );
        currentName = name;
        top.expectName = false;
        i = end;
        continue;
      }
      const key = top ? (top.array ? top.index : currentName) : undefined;
      const end = readString(start, () => pathOf(stack, key));
      if (end === -1) break;
      i = end;
      continue;
    }
    // A number or a literal: skip to the next delimiter.
    let j = i + 1;
    while (j < n) {
      const d = text.charCodeAt(j);
      if (
        d === 44 ||
        d === 125 ||
        d === 93 ||
        d === 32 ||
        d === 10 ||
        d === 13 ||
        d === 9 ||
        d === 58 ||
        d === 34
      )
        break;
      j += 1;
    }
    i = j;
  }
  return into.report;
}

/**
 * What a body's bytes break of strict JSON (see above), or undefined when nothing. `text` is the
 * bytes decoded as UTF-8 with a BOM kept (U+FEFF) and bad bytes as U+FFFD; given when the caller
 * has it already.
 */
export function jsonTextIssues(bytes: Uint8Array, text?: string): JsonTextReport | undefined {
  const issues = new Issues();
  if (bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2])
    issues.add(
      "byte-order-mark",
      () => "(body)",
      () => "a UTF-8 byte order mark (EF BB BF) before the JSON text",
    );
  if (!isUtf8(bytes))
    invalidUtf8Sequences(bytes, (offset, length) =>
      issues.add(
        "invalid-utf8",
        () => "(body)",
        () =>
          `byte${length > 1 ? "s" : ""} ${hex(bytes.subarray(offset, offset + length))} at byte ${offset} ${length > 1 ? "are" : "is"} not UTF-8`,
      ),
    );
  scanJsonText(text ?? new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), issues);
  const { report } = issues;
  return report.issues.length > 0 ? report : undefined;
}

/** JSON text with a leading byte order mark left out, for JSON.parse (which refuses one). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
