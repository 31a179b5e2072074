/**
 * Evidence is bounded in the bytes it takes as written (JSON and HAR), not in decoded characters:
 * a control byte is one byte on the wire and six (`\u0001`) in a report. These measure and cut a
 * string by its JSON-serialised UTF-8 size, the quotes around it left out.
 */

/** The UTF-8 bytes `JSON.stringify` writes for the UTF-16 unit at `i` (a surrogate pair counts 4, on its first half). */
function unitBytes(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x20) return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 4 : 6;
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const previous = i > 0 ? text.charCodeAt(i - 1) : 0;
    // The second half of a pair was counted with the first; a lone one is escaped (`\udc00`).
    return previous >= 0xd800 && previous <= 0xdbff ? 0 : 6;
  }
  return 3;
}

/** The bytes `text` takes inside a JSON document (UTF-8, quotes left out). */
export function serialisedBytes(text: string): number {
  let total = 0;
  for (let i = 0; i < text.length; i++) total += unitBytes(text, i);
  return total;
}

export interface SerialisedCut {
  text: string;
  /** Set when `text` was cut: its serialised size before the cut. */
  cutFrom?: number;
}

/**
 * `text`, cut so that it takes at most `limit` bytes inside a JSON document; a surrogate pair is
 * never split. Stops counting at the limit, so a long text costs no more than its kept part.
 */
export function cutToSerialisedBytes(text: string, limit: number): SerialisedCut {
  // Every unit takes at most 6 bytes: a short text needs no count.
  if (text.length * 6 <= limit) return { text };
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const bytes = unitBytes(text, i);
    if (total + bytes > limit)
      return { text: text.slice(0, i), cutFrom: total + serialisedBytes(text.slice(i)) };
    total += bytes;
  }
  return { text };
}

/**
 * How deep a parsed answer may nest. JSON.parse takes any depth, but JSON.stringify,
 * structuredClone and every recursive walk overflow the stack on an answer nested some 10,000
 * deep (a few KB of `[`); an envelope is a few levels deep.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether a value nests deeper than `max` levels (walked without recursion). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== "object" || node === null) continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A parsed value with what nests deeper than `max` levels replaced by a note saying so. */
export function withinDepth(value: unknown, max: number = MAX_JSON_DEPTH): unknown {
  if (!deeperThan(value, max)) return value;
  const note = `… (nested deeper than ${max} levels)`;
  const copy = (node: unknown, depth: number): unknown => {
    if (typeof node !== "object" || node === null) return node;
    if (depth >= max) return note;
    if (Array.isArray(node)) return node.map((child) => copy(child, depth + 1));
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, copy(child, depth + 1)]));
  };
  return copy(value, 0);
}

/** How deep in the JSON report a parsed answer sits (exchanges[i].response.json): its indentation. */
const REPORT_INDENT = 8;

/**
 * The bytes a JSON value takes as the JSON report writes it: pretty-printed, each line indented
 * by where it sits (`[0,0,…]` takes seven times its compact size). Depth-bound it first.
 */
export function jsonBytes(value: unknown): number {
  if (value === undefined) return 0;
  const text = JSON.stringify(value, null, 2) ?? "";
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines += 1;
  return Buffer.byteLength(text) + lines * REPORT_INDENT;
}

/** Strings cut at `limit` bytes and, with `items`, arrays at that many items (a note says how many more). */
function cutStrings(value: unknown, limit: number, items?: number): unknown {
  if (typeof value === "string") {
    const cut = cutToSerialisedBytes(value, limit);
    return cut.cutFrom === undefined ? value : `${cut.text}…`;
  }
  if (Array.isArray(value)) {
    const kept = items === undefined || value.length <= items ? value : value.slice(0, items);
    const cut = kept.map((item) => cutStrings(item, limit, items));
    return kept.length < value.length ? [...cut, `… (${value.length - kept.length} more items)`] : cut;
  }
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, cutStrings(item, limit, items)]),
    );
  return value;
}

/**
 * A parsed answer within `limit` bytes as the JSON report writes it, and within
 * {@link MAX_JSON_DEPTH}: whole when it fits; else with its long strings (then long arrays) cut,
 * its shape, which the checks read, kept; undefined when even that does not fit.
 */
export function boundedJson(value: unknown, limit: number): unknown {
  value = withinDepth(value);
  if (jsonBytes(value) <= limit) return value;
  for (const [stringLimit, items] of [
    [1024, undefined],
    [64, undefined],
    [64, 32],
  ] as const) {
    const cut = cutStrings(value, stringLimit, items);
    if (jsonBytes(cut) <= limit) return cut;
  }
  return undefined;
}
