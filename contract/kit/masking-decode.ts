/**
 * A decoded view of a text for masking: HTML entities (numeric and named), percent escapes (UTF-8)
 * and backslash escapes (`\u0041`, `\x41`, `\"`, `\\`, `\t`) are decoded one layer at a time, up to
 * a fixed point or a bound, and every decoded character keeps the span of the text it came from.
 * A secret found in any layer is then masked where it is written, whatever mix of spellings it
 * takes (`Zk7Q&#x2d;key`, `%25252D`, `&amp;#52;`, a percent-encoded entity ...).
 */

/** Layers decoded at most: an escape of an escape ... eight deep is past any echo seen. */
export const MAX_DECODE_LAYERS = 8;

/** The named entities that can spell a character of a secret or a card's separator. */
const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  AMP: "&",
  quot: '"',
  QUOT: '"',
  apos: "'",
  lt: "<",
  LT: "<",
  gt: ">",
  GT: ">",
  nbsp: "\u00a0",
  NonBreakingSpace: "\u00a0",
  ensp: "\u2002",
  emsp: "\u2003",
  emsp13: "\u2004",
  emsp14: "\u2005",
  numsp: "\u2007",
  puncsp: "\u2008",
  thinsp: "\u2009",
  ThinSpace: "\u2009",
  hairsp: "\u200a",
  VeryThinSpace: "\u200a",
  MediumSpace: "\u205f",
  ZeroWidthSpace: "\u200b",
  NoBreak: "\u2060",
  shy: "\u00ad",
  hyphen: "\u2010",
  dash: "\u2010",
  ndash: "\u2013",
  mdash: "\u2014",
  horbar: "\u2015",
  minus: "\u2212",
  Tab: "\t",
  NewLine: "\n",
  lowbar: "_",
  UnderBar: "_",
  period: ".",
  commat: "@",
  plus: "+",
  sol: "/",
  bsol: "\\",
  equals: "=",
  colon: ":",
  semi: ";",
  comma: ",",
  num: "#",
  percnt: "%",
  excl: "!",
  quest: "?",
  dollar: "$",
  ast: "*",
  midast: "*",
  Hat: "^",
  grave: "`",
  verbar: "|",
  vert: "|",
  lpar: "(",
  rpar: ")",
  lsqb: "[",
  rsqb: "]",
  lcub: "{",
  rcub: "}",
};

/**
 * Where a layer worth decoding starts: a percent escape, a numeric entity, a named entity other
 * than the five every HTML report is full of (one of those under `&amp;` counts), or a `\u`, `\x`
 * or `\t` escape. A secret spelled with no such escape is found by the masker's own patterns.
 */
export const DECODE_TRIGGER =
  /%[0-9A-Fa-f]{2}|&(?:#|(?:amp;)+[#A-Za-z]|(?!(?:quot|amp|lt|gt|apos);)[A-Za-z][A-Za-z0-9]{1,31};)|\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|t)/g;

const ESCAPE =
  /%([0-9A-Fa-f]{2})|&(?:#0*(\d{1,7});?|#[xX]0*([0-9A-Fa-f]{1,6});?|([A-Za-z][A-Za-z0-9]{1,31});)|\\(?:u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|(["\\/bfnrt]))/g;

const BACKSLASH_ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** One decoded layer: its text, and for each escape decoded, where it went and where it came from. */
export interface DecodedLayer {
  text: string;
  /** Start of each decoded escape in `text`, ascending. */
  at: number[];
  /** Its length in `text` (1, or 2 for a surrogate pair). */
  length: number[];
  /** The span it was written as, in the layer's input. */
  from: number[];
  to: number[];
}

const HEX_PAIR = /^%[0-9A-Fa-f]{2}$/;

/** The code point of a numeric entity, or undefined when it names none. */
function codePointText(code: number): string | undefined {
  if (!Number.isFinite(code) || code > 0x10ffff) return undefined;
  return String.fromCodePoint(code);
}

/**
 * A UTF-8 character written as percent escapes from `start` (its lead byte `lead`): the character
 * and where its escapes end, or undefined when the bytes are no character.
 */
function percentCharacter(text: string, start: number, lead: number): [string, number] | undefined {
  const count = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
  if (count === 0 || lead >= 0xf8) return undefined;
  const bytes = [lead];
  let end = start + 3;
  for (let n = 1; n < count; n++, end += 3) {
    const pair = text.slice(end, end + 3);
    if (!HEX_PAIR.test(pair)) return undefined;
    bytes.push(Number.parseInt(pair.slice(1), 16));
  }
  const buffer = Buffer.from(bytes);
  const decoded = buffer.toString("utf8");
  return [...decoded].length === 1 && Buffer.from(decoded, "utf8").equals(buffer)
    ? [decoded, end]
    : undefined;
}

/** Decodes one layer of escapes, or returns undefined when the text holds none. */
export function decodeLayer(text: string): DecodedLayer | undefined {
  const layer: DecodedLayer = { text: "", at: [], length: [], from: [], to: [] };
  const parts: string[] = [];
  let copied = 0;
  let size = 0;
  const regex = ESCAPE;
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    let decoded: string | undefined;
    let end = match.index + match[0].length;
    const [, percent, decimal, hex, name, unicode, byte, backslash] = match;
    if (percent !== undefined) {
      const value = Number.parseInt(percent, 16);
      if (value < 0x80) decoded = String.fromCharCode(value);
      else {
        const character = percentCharacter(text, match.index, value);
        if (character) [decoded, end] = character;
      }
    } else if (decimal !== undefined) decoded = codePointText(Number(decimal));
    else if (hex !== undefined) decoded = codePointText(Number.parseInt(hex, 16));
    else if (name !== undefined) decoded = NAMED_ENTITIES[name];
    else if (unicode !== undefined) decoded = String.fromCharCode(Number.parseInt(unicode, 16));
    else if (byte !== undefined) decoded = String.fromCharCode(Number.parseInt(byte, 16));
    else if (backslash !== undefined) decoded = BACKSLASH_ESCAPES[backslash];
    if (decoded === undefined) {
      // Not an escape after all: go on from the next character, which may start one.
      regex.lastIndex = match.index + 1;
      continue;
    }
    parts.push(text.slice(copied, match.index));
    size += match.index - copied;
    layer.at.push(size);
    layer.length.push(decoded.length);
    layer.from.push(match.index);
    layer.to.push(end);
    parts.push(decoded);
    size += decoded.length;
    copied = end;
    regex.lastIndex = end;
  }
  if (layer.at.length === 0) return undefined;
  parts.push(text.slice(copied));
  layer.text = parts.join("");
  return layer;
}

/** Decodes layer after layer until nothing changes, at most {@link MAX_DECODE_LAYERS} deep. */
export function decodeLayers(text: string, maxLayers = MAX_DECODE_LAYERS): DecodedLayer[] {
  const layers: DecodedLayer[] = [];
  let current = text;
  while (layers.length < maxLayers) {
    const layer = decodeLayer(current);
    if (!layer) break;
    layers.push(layer);
    current = layer.text;
  }
  return layers;
}

/** The span of the layer's input that character `index` of its text was written as. */
function inputSpan(layer: DecodedLayer, index: number): [number, number] {
  let low = 0;
  let high = layer.at.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((layer.at[middle] as number) <= index) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (found === -1) return [index, index + 1];
  const at = layer.at[found] as number;
  const length = layer.length[found] as number;
  if (index < at + length) return [layer.from[found] as number, layer.to[found] as number];
  const position = (layer.to[found] as number) + (index - at - length);
  return [position, position + 1];
}

/**
 * Where `[start, end)` of layer `depth`'s text (0: the first decoded layer) is written in the text
 * the layers were decoded from.
 */
export function originalSpan(
  layers: readonly DecodedLayer[],
  depth: number,
  start: number,
  end: number,
): [number, number] {
  let from = start;
  let to = end;
  for (let d = depth; d >= 0; d--) {
    const layer = layers[d] as DecodedLayer;
    from = inputSpan(layer, from)[0];
    to = inputSpan(layer, to - 1)[1];
  }
  return [from, to];
}
