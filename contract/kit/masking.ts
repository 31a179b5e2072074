/**
 * Masking: no full card number, CVC, API key, callback secret, sink token or base-URL password in
 * any report, log or console line, and no other change to what is masked.
 *
 * Two ways a secret is found:
 * - by value: the secrets the run knows (keys, the callback secret, the sink token, the base URL's
 *   password, the card numbers it sent) in every spelling they take on their way into a report:
 *   as is, card digits grouped by any Unicode space or dash, JSON-escaped once or several times
 *   (`\"`, `\u0041`), percent-encoded, HTML-escaped or as numeric entities, in any mix and at any
 *   depth (a decoded view, see masking-decode.ts), and inside base64, whole or wrapped in lines (which
 *   is decoded, masked and encoded again);
 * - by field: whatever value sits at a CVC key, at a card-number key (`requisites.number`, `pan`,
 *   `cardNumber`), at a credential key (`apiKey`, `secret`, `password`, ...), after `Bearer` or
 *   `Basic`, in the userinfo of a URL, or as the token segment of a sink callback URL.
 *
 * Structure-aware: JSON text is tokenised and only its strings are masked (a string is decoded,
 * masked as a value, nested JSON inside it masked the same way, and written back escaped), so JSON
 * stays valid and a JSON number, or a digit inside one, is left alone: `19.4111111111111111`
 * and a Luhn-valid 16-digit integer stay as they are. There is no free-text Luhn scan. A number is
 * replaced only where it is the value of a CVC or card-number key, or an integer holding a card
 * the run sent (written as a string, so the JSON stays valid). In a string or free text, a known
 * card is masked even where other digits run into it (`0014111111111111111`), unless the run is a
 * decimal number's.
 */

import { DECODE_TRIGGER, decodeLayers, originalSpan } from "./masking-decode.ts";

const MASK = "***";
/** Shorter cards, and derived secrets, are not masked by value: masking "abc" everywhere would wreck a report. */
const MIN_SECRET_LENGTH = 4;
/**
 * A secret this long or longer is masked wherever it is written. A shorter one (an API key
 * `2026`) would take dates, run ids and amounts with it: it is masked only where it stands as a
 * whole token (see {@link MaskerSecrets.secrets}).
 */
export const SAFE_SECRET_LENGTH = 8;
/** Nested spellings (JSON in a JSON string in base64 ...) are followed this deep. */
const MAX_DEPTH = 6;
/**
 * Every spelling of a character but the literal one holds one of these (a percent escape, a `\`
 * escape, an HTML entity, `+` for a space). A text without them can hold a secret only as it is
 * written, and a card only as a run of its digits with single spaces or dashes between: the cheap
 * tests that let most texts skip the patterns of every spelling (most of a report's strings are
 * short words and ids).
 */
const ESCAPING = /[%\\&+]/;
/** What a spelling of a secret other than as is (or `+` for a space) needs. */
const ESCAPED_SECRET = /[%\\&]/;
/** What a spelling of a card's digit or an escaped separator needs. */
const PERCENT_OR_BACKSLASH = /[%\\]/;
/** What a credential after an auth scheme needs: the scheme's name. */
const AUTH_SCHEME = /bearer|basic/i;

export interface MaskerSecrets {
  /**
   * API keys, callback secrets, tokens: replaced entirely, in every spelling. One shorter than
   * {@link SAFE_SECRET_LENGTH} only where it stands whole: a header value (`Bearer 2026` too), a
   * whole JSON string, a query or form parameter's value, a credential header written as text.
   */
  secrets: readonly (string | undefined)[];
  /**
   * Secrets derived from a long one (the near misses of an API key, a character short), masked in
   * every spelling from {@link MIN_SECRET_LENGTH} characters on: they give the long one away.
   */
  derivedSecrets?: readonly (string | undefined)[];
  /** Card numbers sent: all but the last 4 digits replaced, in every spelling. */
  cardNumbers?: readonly string[];
  /**
   * URLs that may carry credentials (`https://user:password@host`), e.g. the base URL: their
   * password (or the user, when it stands alone) becomes a secret.
   */
  urls?: readonly (string | undefined)[];
}

export interface Masker {
  /**
   * Masks a piece of text: JSON (kept valid, numbers untouched), a HAR file, HTML, XML, a header
   * value, a URL, a log or console line.
   */
  text(value: string): string;
  /** Masks a header map: credential headers keep only their scheme (`Bearer ***`). */
  headers(headers: Record<string, string>): Record<string, string>;
  /** Masks a parsed JSON-like value (a copy is returned): strings masked, numbers left alone. */
  value<T>(value: T): T;
  /**
   * Masks a value as {@link text} masks `JSON.stringify(value)` standing at `key` in the object
   * at `parent`, without writing and reading that text: the value itself back when nothing in
   * it changed, otherwise a copy as JSON.stringify reads it. Undefined when masking would make
   * two keys of an object one (a secret spelled like a field name): then mask the text.
   */
  valueAt(
    value: unknown,
    key: string | undefined,
    parent: string | undefined,
  ): { value: unknown } | undefined;
}

/** Thrown inside {@link Masker.valueAt} when two keys of one object mask to the same key. */
const KEYS_MERGED = Symbol("masking merged two keys");

export function maskCardNumber(number: string): string {
  return number.length <= 4 ? MASK : `${"*".repeat(number.length - 4)}${number.slice(-4)}`;
}

/** Masks the digits of a card number written with separators, keeping the separators and the last 4 digits. */
function maskCardDigits(written: string): string {
  let digitsLeft = (written.match(/\d/g) ?? []).length;
  let out = "";
  for (const char of written) {
    if (char >= "0" && char <= "9") {
      out += digitsLeft > 4 ? "*" : char;
      digitsLeft -= 1;
    } else out += char;
  }
  return out;
}

/** The credentials a URL carries in its userinfo: the password, or the user when there is no password. */
export function credentialsOfUrl(url: string | undefined): string[] {
  if (!url) return [];
  const match = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#@]*)@/.exec(url.trim());
  if (!match?.[1]) return [];
  const userinfo = match[1];
  const colon = userinfo.indexOf(":");
  const raw = colon === -1 ? userinfo : userinfo.slice(colon + 1);
  if (raw === "") return [];
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // A malformed escape: the raw text is the credential as written.
  }
  return [...new Set([raw, decoded])];
}

/** A character of a URL scheme (RFC 3986: a letter first, then letters, digits, `+`, `.`, `-`). */
function isSchemeChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 45 ||
    code === 46
  );
}

/** The userinfo after `scheme://` and its `@`, read from where `lastIndex` is set. */
const USERINFO_AT = /([^\s/?#@"'<>\\]{1,512})@/y;

/**
 * The URL with its userinfo password (or lone user) masked: `scheme://userinfo@`, the scheme of
 * 1 to 31 characters and not part of a longer word. Found from each `://` outwards, rather than by
 * a regex that would read up to 31 letters at every position of the text.
 */
export function maskUrlCredentials(text: string): string {
  let out = "";
  let copied = 0;
  for (let at = text.indexOf("://"); at !== -1; at = text.indexOf("://", at + 1)) {
    let start = at;
    while (start > 0 && at - start < 32 && isSchemeChar(text.charCodeAt(start - 1))) start--;
    const first = text.charCodeAt(start) | 0x20; // lower case, for a letter
    if (start === at || at - start > 31 || (start > 0 && isSchemeChar(text.charCodeAt(start - 1)))) continue;
    if (first < 97 || first > 122) continue;
    USERINFO_AT.lastIndex = at + 3;
    const match = USERINFO_AT.exec(text);
    if (!match) continue;
    const userinfo = match[1] as string;
    const colon = userinfo.indexOf(":");
    out += `${text.slice(copied, at + 3)}${colon === -1 ? MASK : `${userinfo.slice(0, colon)}:${MASK}`}@`;
    copied = USERINFO_AT.lastIndex;
    at = copied - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// --- spellings -------------------------------------------------------------------------------------

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A hex digit in either case, as percent- and \u-escapes allow. */
function hexPattern(hex: string): string {
  return [...hex].map((h) => (/[a-f]/i.test(h) ? `[${h.toLowerCase()}${h.toUpperCase()}]` : h)).join("");
}

const HTML_ENTITIES: Record<string, string[]> = {
  '"': ["&quot;", "&#34;", "&#x22;"],
  "'": ["&#39;", "&#x27;", "&apos;"],
  "&": ["&amp;", "&#38;", "&#x26;"],
  "<": ["&lt;", "&#60;", "&#x3c;"],
  ">": ["&gt;", "&#62;", "&#x3e;"],
};

/**
 * Every way one character of a secret can be written in a report: as is; percent-encoded, once
 * or twice (`%41`, `%2541`); as a JSON `\u` escape at any nesting depth; JSON-escaped (`\"`,
 * `\\`, `\/`) at any depth; HTML-escaped; a space also as `+`.
 */
function charPattern(char: string): string {
  const options = [escapeRegExp(char)];
  const bytes = [...Buffer.from(char, "utf8")];
  options.push(bytes.map((b) => `%(?:25)?${hexPattern(b.toString(16).padStart(2, "0"))}`).join(""));
  const units = [...char].length === 1 && char.length === 2 ? [char.charCodeAt(0), char.charCodeAt(1)] : [];
  if (char.length === 1) units.push(char.charCodeAt(0));
  options.push(units.map((u) => `\\\\{1,16}u${hexPattern(u.toString(16).padStart(4, "0"))}`).join(""));
  if (char === '"' || char === "/") options.push(`\\\\{1,16}${escapeRegExp(char)}`);
  if (char === "\\") options.push("\\\\{1,32}");
  for (const entity of HTML_ENTITIES[char] ?? []) options.push(escapeRegExp(entity));
  if (char === " ") options.push("\\+");
  return `(?:${options.join("|")})`;
}

/** A word's letters in either case (the rest of the regex stays case-sensitive). */
function anyCase(word: string): string {
  return [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : escapeRegExp(c))).join("");
}

function secretPattern(secret: string): string {
  return [...secret].map(charPattern).join("");
}

/**
 * Finds a secret in every spelling {@link charPattern} knows (global), for a component that keeps
 * one secret out of its own records with a marker of its own (the webhook sink's `<token>`).
 */
export function secretSpellings(secret: string): RegExp {
  return new RegExp(secretPattern(secret), "g");
}

/**
 * Where a card's spelling may start: every spelling of a digit starts with a digit, `%` or `\`, so
 * the regex passes over any other position at the speed of a character class. Other digits before it do not make it no card: a target
 * that writes the card into a reference (`0014111111111111111`), or a value that spells it inside
 * a longer run (a phone number padded past its maxLength with 1s), would otherwise put the whole
 * card in a report. Only a decimal number's digits are left alone ({@link inDecimalNumber}).
 */
const CARD_START = String.raw`(?=[\d%\\])`;
/** How many digits after a card are masked with it (the rest of a longer run holds no card digit). */
const MAX_RUN_ON = 64;
/**
 * The most digits either side of a decimal point that still make a number: more than any
 * serializer writes (0.1's exact decimal expansion has 55), so a longer run is no number.
 */
const MAX_NUMBER_DIGITS = 64;

const isDigitAt = (text: string, i: number) => {
  const code = text.charCodeAt(i);
  return code >= 48 && code <= 57;
};

/** How many digits stand right before `i` (after, with `step` 1), counting at most MAX_NUMBER_DIGITS + 1. */
function digitsFrom(text: string, i: number, step: -1 | 1): number {
  let count = 0;
  for (let j = step === 1 ? i : i - 1; count <= MAX_NUMBER_DIGITS && isDigitAt(text, j); j += step) count++;
  return count;
}

/** Whether a point and a digit stand at `i` (a decimal point, or a dotted reference's dot). */
const pointAt = (text: string, i: number) => text[i] === "." && isDigitAt(text, i + 1);

/**
 * Whether `text[start, end)` (a card's spelling, with the digits run on after it) sits in a decimal
 * number: its fraction (`19.4111111111111111`, `1.4111111111111111e+21`) or its integer part
 * (`4111111111111111.5`). A number's digits are never changed: masking may alter nothing but secrets. A dotted reference
 * (`v1.2.34111…`, `2026.11.264111…`) is no number, nor a run of more than
 * {@link MAX_NUMBER_DIGITS} digits. Each scan is bounded, so a long run costs no more per card.
 */
function inDecimalNumber(text: string, start: number, end: number): boolean {
  const before = digitsFrom(text, start, -1);
  const after = digitsFrom(text, end, 1);
  if (before + (end - start) + after > MAX_NUMBER_DIGITS) return false;
  const runStart = start - before;
  const runEnd = end + after;
  if (text[runStart - 1] === "." && isDigitAt(text, runStart - 2)) {
    const whole = digitsFrom(text, runStart - 1, -1);
    return whole <= MAX_NUMBER_DIGITS && text[runStart - 2 - whole] !== "." && !pointAt(text, runEnd);
  }
  if (!pointAt(text, runEnd)) return false;
  const fraction = digitsFrom(text, runEnd + 1, 1);
  return text[runStart - 1] !== "." && fraction <= MAX_NUMBER_DIGITS && !pointAt(text, runEnd + 1 + fraction);
}

/**
 * What may stand between a card's digits, as a regex class's body: every Unicode space (\p{Zs}:
 * NBSP, thin space, narrow NBSP ...), tab, every dash (\p{Pd}: en dash, em dash ...), the minus
 * sign, and the invisible ones (soft hyphen, zero-width space, word joiner, BOM). Written out, so
 * that the patterns need no `u` flag; a test holds it to \p{Zs} and \p{Pd}.
 */
const ASCII_CARD_SEPARATOR_CHARS = String.raw`\t \-`;
const OTHER_CARD_SEPARATOR_CHARS = String.raw`\u00a0\u00ad\u1680\u2000-\u200d\u202f\u205f\u2060\u3000\ufeff\u058a\u05be\u1400\u1806\u2010-\u2015\u2212\u2e17\u2e1a\u2e3a\u2e3b\u2e40\u2e5d\u301c\u3030\u30a0\ufe31\ufe32\ufe58\ufe63\uff0d`;
const CARD_SEPARATOR_CHARS = ASCII_CARD_SEPARATOR_CHARS + OTHER_CARD_SEPARATOR_CHARS;
/** One character that may stand between a card's digits. */
export const CARD_SEPARATOR = new RegExp(`[${CARD_SEPARATOR_CHARS}]`);
/**
 * The separators a text without any other needs: a regex over the whole class is several times
 * slower on ordinary text, so the whole class is used only where one of its other characters is.
 */
const NON_ASCII_CARD_SEPARATOR = new RegExp(`[${OTHER_CARD_SEPARATOR_CHARS}]`);
/** Separators between two of a card's digits, at most (a double space, ` – `). */
const MAX_SEPARATORS = 3;
/** A card's digits and separators only, written plainly. */
const PLAIN_CARD = new RegExp(`^[\\d${CARD_SEPARATOR_CHARS}]+$`);

/**
 * A card's digits, each possibly escaped, separated by up to 3 spaces or dashes (of `chars`), or
 * by one escaped space or dash.
 */
function cardPattern(digits: string, chars: string): string {
  const separator = `(?:[${chars}]{1,${MAX_SEPARATORS}}|%(?:25)?20|%(?:25)?2[dD]|\\+|\\\\{1,16}u002[0dD])?`;
  return [...digits].map(charPattern).join(separator);
}

/** A digit in every spelling {@link charPattern} gives it. */
const ANY_DIGIT = String.raw`(?:\d|%(?:25)?3\d|\\{1,16}u003\d)`;
/** One separator between a card's digits, in every spelling {@link cardPattern} gives it. */
const ANY_CARD_SEPARATOR = `(?:[${CARD_SEPARATOR_CHARS}]{1,${MAX_SEPARATORS}}|%(?:25)?20|%(?:25)?2[dD]|\\+|\\\\{1,16}u002[0dD])`;

/**
 * The parts of the base64 encoding of `bytes` that do not depend on what surrounds them, for the
 * three alignments the bytes can have inside a longer encoded value.
 */
function base64Fragments(bytes: Buffer): string[] {
  const fragments: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const start = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const fragment = encoded.slice(start, end);
    if (fragment.length >= 6) fragments.push(fragment, fragment.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return fragments;
}

// --- fields ------------------------------------------------------------------------------------

type FieldKind = "cvc" | "card" | "credential";

/** A key's normal form: lower case, no separators (`api_key`, `API-Key` and `apiKey` alike). */
const normalKey = (key: string) => key.toLowerCase().replace(/[-_\s]/g, "");

const CVC_KEYS = new Set(["cvc", "cvv", "cvc2", "cvv2", "csc", "securitycode", "cardsecuritycode"]);
const CARD_KEYS = new Set(["pan", "cardnumber", "cardno", "primaryaccountnumber"]);
/** Parents under which `number` is a card number (§4.3 `requisites.number`). */
const CARD_PARENTS = new Set(["requisites", "card", "bankcard"]);
const CREDENTIAL_KEYS = new Set([
  "apikey",
  "xapikey",
  "secret",
  "callbacksecret",
  "clientsecret",
  "password",
  "passwd",
  "sinktoken",
  "authorization",
  "proxyauthorization",
]);

function fieldKind(key: string | undefined, parent: string | undefined): FieldKind | undefined {
  if (key === undefined) return undefined;
  const k = normalKey(key);
  if (CVC_KEYS.has(k)) return "cvc";
  if (CARD_KEYS.has(k) || (k === "number" && parent !== undefined && CARD_PARENTS.has(normalKey(parent))))
    return "card";
  if (CREDENTIAL_KEYS.has(k)) return "credential";
  return undefined;
}

/** A card field's value that keeps its last 4 digits when masked: digits (or `*`) and separators. */
const CARD_FIELD_VALUE = new RegExp(`^[\\d\\s*${CARD_SEPARATOR_CHARS}]+$`);

/** A credential header's value: an auth scheme stays (`Bearer ***`), the rest goes. */
function maskCredentialValue(value: string): string {
  if (value === "") return value;
  const scheme = /^([A-Za-z][A-Za-z-]{0,19})\s+\S/.exec(value);
  return scheme ? `${scheme[1]} ${MASK}` : MASK;
}

/**
 * A field-masked string value. A card number keeps its last 4 digits (and its separators); one
 * masked already stays as it is, so masking twice changes nothing.
 */
function maskField(kind: FieldKind, value: string): string {
  if (value === "") return value;
  if (kind === "cvc") return MASK;
  if (kind === "credential") return maskCredentialValue(value);
  return CARD_FIELD_VALUE.test(value) && (value.match(/[\d*]/g) ?? []).length >= 12
    ? maskCardDigits(value)
    : MASK;
}

/** A quote at any JSON-escaping depth, or HTML-escaped. */
// And URL-encoded (`%22`, `%2522`): an echoing target URL-encodes the body it got.
const QUOTE = String.raw`(?:\\{0,16}(?:"|&quot;|&#34;|&#x22;)|\\{1,16}u0022|%(?:25)?22)`;
/** The colon between a key and its value, as is or URL-encoded. */
const COLON = String.raw`\s*(?::|%(?:25)?3[aA])\s*`;
const CVC_KEY = "(?:cvc2?|cvv2?|csc|security_?code)";
const CARD_KEY = "(?:pan|card_?number|card_?no)";
/** `"cvc": "123"` in any escaping: the value's quotes are captured to write them back alike. */
const QUOTED_CVC = new RegExp(
  String.raw`(${QUOTE}${CVC_KEY}${QUOTE}${COLON})(${QUOTE})((?:(?!${QUOTE})[^\n])*?)(${QUOTE})`,
  "gi",
);
/** `"cvc": 123`: a number where a CVC goes, masked as a string (quoted like its key). */
const NUMERIC_CVC = new RegExp(String.raw`(${QUOTE})(${CVC_KEY})(${QUOTE})(${COLON})(-?\d+)`, "gi");
const QUOTED_CARD = new RegExp(
  String.raw`(${QUOTE}${CARD_KEY}${QUOTE}${COLON}${QUOTE})([\d${CARD_SEPARATOR_CHARS}]{12,80})(?=${QUOTE})`,
  "gi",
);
/** `cvc=123` in a query string or form body. */
const FORM_CVC = new RegExp(String.raw`((?:^|[?&;\s])${CVC_KEY}=)([^&#\s"'<]*)`, "gi");
/** A bearer credential wherever it is written (never eating a quote or backslash). */
// A reference to an environment variable (`--oauth2-bearer "$H2H_API_KEY"` or `Bearer ${NAME}` in a
// curl command, quoted, HTML-escaped or bare) is no secret: it stays, so the command runs as pasted.
const BEARER =
  /\b(Bearer)(\s+)(?!\*\*\*)(?!\$\{?[A-Z_][A-Z0-9_]*\}?(?![^\s"'`,\\&<>]))(?:<[^\s<>"]*>|[^\s"'`,\\&<>]+)/gi;
/** A Basic credential: masked when it decodes to `user:password`, so "Basic checks" stays. */
const BASIC = /\b(Basic)(\s+)([A-Za-z0-9+/]{6,}={0,2})(?![\w+/=])/gi;
/** The token segment of a webhook-sink callback URL. */
const SINK_TOKEN_SEGMENT = /(\/callbacks\/)(?!\*\*\*)([A-Za-z0-9_-]{16,128})(?=[/?#"'\s<\\]|$)/g;

/**
 * `text.replace(regex, replace)`, or `text` itself when no match would change: a replace copies
 * the whole text, and a report's CVCs were masked when they were recorded (`***` stays `***`).
 */
function replaceChanging(
  text: string,
  regex: RegExp,
  replace: (whole: string, ...groups: string[]) => string,
): string {
  for (const match of text.matchAll(regex)) {
    const [whole, ...groups] = match as unknown as [string, ...string[]];
    if (replace(whole, ...groups) !== whole) return text.replace(regex, replace);
  }
  return text;
}

// --- JSON tokenising ---------------------------------------------------------------------------

/** Does this text look like JSON (an object or array), even one cut short? */
function looksLikeJson(text: string): boolean {
  return /^\s*(?:\{\s*(?:"|\}|$)|\[\s*(?:[[{"\d\-\]]|true|false|null|$))/.test(text);
}

/** Index of the quote that closes the string opening at `start`, or -1 when it is cut short. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) return -1;
    let backslashes = 0;
    for (let j = quote - 1; j > start && text.charCodeAt(j) === 92; j--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    i = quote + 1;
  }
}

const NUMBER_AT = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL_AT = /true|false|null/y;

interface Frame {
  kind: "object" | "array";
  /** In an object: the key whose value comes next. */
  key: string | undefined;
  expectingKey: boolean;
  /** Where this object or array sits: its key, and the key of the object around it. */
  at: string | undefined;
  parentAt: string | undefined;
}

/** The key a value at the top of the stack sits at, and its parent's key. */
function valueContext(stack: readonly Frame[]): [string | undefined, string | undefined] {
  const frame = stack[stack.length - 1];
  if (!frame) return [undefined, undefined];
  return frame.kind === "object" ? [frame.key, frame.at] : [frame.at, frame.parentAt];
}

/** A replacement of `text[start, end)`, in the text's own positions. */
type Edit = [start: number, end: number, replacement: string];

/** The text with the edits made, in order; an edit that overlaps one made before is dropped. */
function applyEdits(text: string, edits: Edit[]): string {
  if (edits.length === 0) return text;
  edits.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const parts: string[] = [];
  let copied = 0;
  for (const [start, end, replacement] of edits) {
    if (start < copied) continue;
    parts.push(text.slice(copied, start), replacement);
    copied = end;
  }
  parts.push(text.slice(copied));
  return parts.join("");
}

/**
 * Texts up to this long are remembered masked. What one masker remembers is bounded (texts and
 * their masked forms, in UTF-16 units, and entries): past either bound it starts afresh.
 */
const MAX_MEMO_LENGTH = 16 * 1024;
const MAX_MEMO_CHARS = 2 * 1024 * 1024;
const MAX_MEMO_ENTRIES = 32 * 1024;

/** Masked texts: by text alone, and by depth for those whose masking depended on the depth. */
interface Memo {
  anyDepth: Map<string, string>;
  byDepth: Map<string, string>[];
}

/** A copy of a text: a slice would keep the whole text it was cut from (a report, a body) alive. */
const copyOf = (text: string) => ` ${text}`.slice(1);

/** A decoded window's size at most (a longer run of escapes is decoded in overlapping windows). */
const MAX_DECODE_WINDOW = 256 * 1024;
/** How far windows cut for their size overlap: more than any secret spelled eight escapes deep. */
const DECODE_OVERLAP = 16 * 1024;

/** The CVC fields searched in a decoded view, with the group that holds the value. */
const DECODED_CVC_FIELDS: [RegExp, number][] = [
  [new RegExp(QUOTED_CVC.source, "dgi"), 3],
  [new RegExp(NUMERIC_CVC.source, "dgi"), 5],
  [new RegExp(FORM_CVC.source, "dgi"), 2],
];
const DECODED_CARD_FIELD = new RegExp(QUOTED_CARD.source, "dgi");

/** Whether a text is one whole base64 value (standard or URL-safe), as its encoding writes it. */
function isWholeBase64(text: string): boolean {
  const body = text.replace(/={1,2}$/, "");
  if (body.length % 4 === 1 || /[^A-Za-z0-9+/_-]/.test(body)) return false;
  const standard = body.replace(/-/g, "+").replace(/_/g, "/");
  return Buffer.from(standard, "base64").toString("base64").replace(/=+$/, "") === standard;
}

/** A line break in wrapped base64: as is, or JSON-escaped at any depth (`\n`, `\\n`, `\r\n`). */
const BASE64_LINE_BREAK = /\r?\n|(?:\\+r)?\\+n/;
/** Base64 in lines: a line of 16 or more, then lines after line breaks, the padding at the end. */
const WRAPPED_BASE64 = new RegExp(
  `(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}(?:(?:${BASE64_LINE_BREAK.source})[A-Za-z0-9+/_-]+)+={0,2}`,
  "g",
);

const isBase64Code = (code: number) =>
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  (code >= 48 && code <= 57) ||
  code === 43 ||
  code === 47 ||
  code === 45 ||
  code === 95;

/** Whether a line of 16 or more base64 characters ends at `end`. */
function base64LineEndsAt(text: string, end: number): boolean {
  for (let i = end - 16; i < end; i++) if (i < 0 || !isBase64Code(text.charCodeAt(i))) return false;
  return true;
}

/**
 * Whether a line of base64 goes on after a line break (as is or JSON-escaped): found from each
 * line break, which costs far less than {@link WRAPPED_BASE64} over a whole report.
 */
function hasBase64LineBreak(text: string): boolean {
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    const end = text.charCodeAt(i - 1) === 13 ? i - 1 : i;
    if (isBase64Code(text.charCodeAt(i + 1)) && base64LineEndsAt(text, end)) return true;
  }
  for (let i = text.indexOf("\\n"); i !== -1; i = text.indexOf("\\n", i + 1)) {
    // Back over the escape's backslashes, and a `\r` before it.
    let end = i;
    while (text.charCodeAt(end - 1) === 92) end--;
    if (text[end - 1] === "r" && text.charCodeAt(end - 2) === 92) {
      end--;
      while (text.charCodeAt(end - 1) === 92) end--;
    }
    if (isBase64Code(text.charCodeAt(i + 2)) && base64LineEndsAt(text, end)) return true;
  }
  return false;
}

export function createMasker({
  secrets,
  derivedSecrets = [],
  cardNumbers = [],
  urls = [],
}: MaskerSecrets): Masker {
  const given = [...secrets, ...urls.flatMap(credentialsOfUrl)].filter(
    (s): s is string => typeof s === "string" && s !== "",
  );
  const known = [
    ...new Set([
      ...given.filter((s) => s.length >= SAFE_SECRET_LENGTH),
      ...derivedSecrets.filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_LENGTH),
    ]),
  ].sort((a, b) => b.length - a.length);
  /** The short secrets, masked as whole tokens only. */
  const shortSecrets = [...new Set(given.filter((s) => s.length < SAFE_SECRET_LENGTH && !known.includes(s)))];
  const shortWhole = new Set(shortSecrets);
  const shortSpelling = shortSecrets
    .sort((a, b) => b.length - a.length)
    .map(secretPattern)
    .join("|");
  // A query or form parameter's whole value, or a credential header written as text (a curl -H).
  const credentialHeader = ["proxy-authorization", "authorization", "x-api-key", "api-key", "apikey"]
    .map(anyCase)
    .join("|");
  const shortTokenRegex =
    shortSecrets.length > 0
      ? new RegExp(
          `((?:^|[?&;])[^=&#;\\s"'<>?]{1,128}=|(?<![\\w-])(?:${credentialHeader})\\s*:\\s*)(?:${shortSpelling})(?=$|[&#;\\s"'\x60<>\\\\])`,
          "g",
        )
      : undefined;
  const cards = [
    ...new Set(cardNumbers.map((c) => c.replace(/\D/g, "")).filter((c) => c.length >= MIN_SECRET_LENGTH)),
  ].sort((a, b) => b.length - a.length);
  /**
   * Each secret in every spelling, a regex per secret built when first needed: one regex of them
   * all is costly for V8 to compile in every thread that masks. Before it, a test for a
   * spelling of its first characters, which every spelling of it starts with.
   */
  const secretSpellingRegexes: (RegExp | undefined)[] = [];
  const startSources = known.map((secret) => secretPattern([...secret].slice(0, 3).join("")));
  /** The distinct tests of a start: a key and its near misses share their first characters. */
  const distinctStarts = [...new Set(startSources)];
  const startTests = distinctStarts.map((source) => new RegExp(source));
  const startOfSecret = startSources.map((source) => distinctStarts.indexOf(source));

  /**
   * Every spelling of a known secret masked, as one regex of every secret (longest first) would:
   * where spellings overlap, the leftmost wins, and of those starting at one place the longest.
   */
  function maskSecretSpellings(text: string): string {
    const found = new Map<number, number>();
    /** Whether a start's spelling is in the text, by start: each is looked for once. */
    const started: (boolean | undefined)[] = [];
    known.forEach((secret, index) => {
      const start = startOfSecret[index] as number;
      started[start] ??= (startTests[start] as RegExp).test(text);
      if (!started[start]) return;
      secretSpellingRegexes[index] ??= new RegExp(secretPattern(secret), "g");
      const regex = secretSpellingRegexes[index] as RegExp;
      regex.lastIndex = 0;
      for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
        // A longer secret (earlier in `known`) that starts here goes first.
        if (!found.has(match.index)) found.set(match.index, match.index + match[0].length);
        regex.lastIndex = match.index + 1;
      }
    });
    if (found.size === 0) return text;
    let out = "";
    let copied = 0;
    for (const start of [...found.keys()].sort((a, b) => a - b)) {
      if (start < copied) continue;
      out += `${text.slice(copied, start)}${MASK}`;
      copied = found.get(start) as number;
    }
    return out + text.slice(copied);
  }
  /**
   * Every card in one regex (one pass over the text, not one per card), a group per card, then the
   * digits that run on after it (a card one digit too long, as a derived negative sends it): the
   * whole run is masked but its last 4 digits, so the card is not left whole inside it. The run is
   * taken atomically (a lookahead's capture, then a backreference to it) and at most
   * {@link MAX_RUN_ON} digits long, so no position is tried twice and a long run costs no more.
   */
  const cardRegexOf = (chars: string) =>
    cards.length > 0
      ? new RegExp(
          `${CARD_START}(?:${cards.map((digits) => `(${cardPattern(digits, chars)})`).join("|")})(?=(\\d{0,${MAX_RUN_ON}}))\\${cards.length + 1}`,
          "g",
        )
      : undefined;
  /**
   * The same for a text with no `%` and no `\`, where a card can only be written plainly (or
   * with `+` for a space): the regexes above are costly to compile, in every thread that masks,
   * and most texts never need them.
   */
  const plainCardRegexOf = (chars: string) =>
    cards.length > 0
      ? new RegExp(
          `(?:${cards.map((digits) => `(${[...digits].join(`(?:[${chars}]{1,${MAX_SEPARATORS}}|\\+)?`)})`).join("|")})(?=(\\d{0,${MAX_RUN_ON}}))\\${cards.length + 1}`,
          "g",
        )
      : undefined;
  let cardRegexes: Record<"plain" | "plainWide" | "escaped" | "escapedWide", RegExp> | undefined;
  /** The card regex for a text: escaped or not, with a separator other than tab, space or `-`. */
  const cardRegexFor = (escaped: boolean, wide: boolean): RegExp => {
    cardRegexes ??= {} as NonNullable<typeof cardRegexes>;
    const name = `${escaped ? "escaped" : "plain"}${wide ? "Wide" : ""}` as keyof typeof cardRegexes;
    const chars = wide ? CARD_SEPARATOR_CHARS : ASCII_CARD_SEPARATOR_CHARS;
    cardRegexes[name] ??= (escaped ? cardRegexOf(chars) : plainCardRegexOf(chars)) as RegExp;
    return cardRegexes[name];
  };
  /**
   * The shortest card's digits in a row, each possibly escaped, separators (escaped or not)
   * between: what every escaped spelling of a card holds, found by a regex cheap to compile.
   */
  const escapedCardDigitRun =
    cards.length > 0
      ? new RegExp(
          `${ANY_DIGIT}(?:${ANY_CARD_SEPARATOR}?${ANY_DIGIT}){${Math.min(...cards.map((c) => c.length)) - 1}}`,
        )
      : undefined;
  /** The shortest card's digits in a row, separators allowed between (unescaped text). */
  const cardDigitRun =
    cards.length > 0
      ? new RegExp(
          `\\d(?:[${CARD_SEPARATOR_CHARS}]{0,${MAX_SEPARATORS}}\\d){${Math.min(...cards.map((c) => c.length)) - 1}}`,
        )
      : undefined;
  const shortestCard = cards.length > 0 ? Math.min(...cards.map((c) => c.length)) : Number.POSITIVE_INFINITY;
  /** In a decoded view: the known secrets as they are (a space also as `+`), longest first. */
  const decodedSecretRegex =
    known.length > 0
      ? new RegExp(known.map((s) => escapeRegExp(s).replace(/ /g, "[ +]")).join("|"), "g")
      : undefined;
  /** In a decoded view: each card's digits, separators between, and the digits that run on. */
  const decodedCardRegex =
    cards.length > 0
      ? new RegExp(
          `(?:${cards.map((digits) => `(?:${[...digits].join(`[${CARD_SEPARATOR_CHARS}+]{0,${MAX_SEPARATORS}}`)})`).join("|")})(?=(\\d{0,${MAX_RUN_ON}}))\\1`,
          "g",
        )
      : undefined;
  /**
   * How far around an escape a secret's spelling may reach in plain characters: a secret, or a card
   * with separators, written plainly beside it, and the digits around a card that tell a decimal.
   */
  const decodeReach = Math.max(
    MAX_NUMBER_DIGITS + 2,
    ...known.map((secret) => secret.length * 2),
    ...cards.map((digits) => digits.length * (MAX_SEPARATORS + 1) + MAX_RUN_ON),
  );
  const fragments = [...known, ...cards].flatMap((s) => base64Fragments(Buffer.from(s, "utf8")));
  const fragmentRegex =
    fragments.length > 0
      ? new RegExp(
          [...new Set(fragments)]
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join("|"),
          "g",
        )
      : undefined;
  const fragmentTest = fragmentRegex ? new RegExp(fragmentRegex.source) : undefined;

  /**
   * Every known card in `text`, in any spelling the card regex knows, all but its last 4 digits
   * masked, with the digits that run on. `escaped`: whether the text holds any escaping.
   */
  function maskCards(text: string, escaped: boolean): string {
    if (!escapedCardDigitRun || !cardDigitRun) return text;
    if (!(escaped ? escapedCardDigitRun.test(text) : cardDigitRun.test(text))) return text;
    let out = text;
    const regex = cardRegexFor(
      escaped && PERCENT_OR_BACKSLASH.test(text),
      NON_ASCII_CARD_SEPARATOR.test(text),
    );
    const maskCard = (match: string, ...rest: unknown[]) => {
      // After the groups (a card's each, then the run-on): the match's offset and the text.
      const offset = rest[cards.length + 1] as number;
      if (inDecimalNumber(rest[cards.length + 2] as string, offset, offset + match.length)) return match;
      if (PLAIN_CARD.test(match)) return maskCardDigits(match);
      // Escaped: the card whose group matched is masked as if written plainly, with the digits
      // that ran on after it.
      const card = cards[rest.findIndex((group) => group !== undefined)] as string;
      return maskCardDigits(card + ((rest[cards.length] as string | undefined) ?? ""));
    };
    // Again until nothing changes: one pass does not go back, so a card that starts among the
    // digits of a run just masked (its last 4 stay) and goes on past it, escaped or grouped, is
    // found on the next pass.
    for (let pass = 0; pass <= cards.length; pass++) {
      const next = out.replace(regex, maskCard);
      if (next === out) break;
      out = next;
    }
    return out;
  }

  /**
   * A JSON integer that holds a known card, in whatever field, masked (the caller writes it as a
   * string); any other number, a decimal's digits included, stays as it is.
   */
  function maskIntegerCard(number: string): string {
    return number.length >= shortestCard && /^-?\d+$/.test(number) ? maskCards(number, false) : number;
  }

  /**
   * What masking made of a text, remembered: a run repeats its keys, ids and bodies (recorded,
   * then written in the JSON report and again in the HAR file), and each is masked once. A text
   * is remembered for every depth unless its masking counted a use of the depth ({@link depthUses}).
   */
  const plainMemo: Memo = { anyDepth: new Map(), byDepth: [] };
  const jsonMemo: Memo = { anyDepth: new Map(), byDepth: [] };
  let memoChars = 0;
  let memoEntries = 0;
  /**
   * Counts masking whose outcome depends on the depth: what a lower depth would decode (base64,
   * nested JSON) left as it is at MAX_DEPTH. Above it, depths mask alike.
   */
  let depthUses = 0;

  function remembered(
    memo: Memo,
    text: string,
    depth: number,
    mask: (text: string, depth: number) => string,
  ) {
    if (text.length > MAX_MEMO_LENGTH) return mask(text, depth);
    const known = memo.anyDepth.get(text) ?? memo.byDepth[depth]?.get(text);
    if (known !== undefined) return known;
    const usesBefore = depthUses;
    const masked = mask(text, depth);
    if (memoChars > MAX_MEMO_CHARS || memoEntries >= MAX_MEMO_ENTRIES) {
      for (const table of [plainMemo, jsonMemo]) {
        table.anyDepth.clear();
        table.byDepth.length = 0;
      }
      memoChars = 0;
      memoEntries = 0;
    }
    const key = copyOf(text);
    let table = memo.anyDepth;
    if (depthUses !== usesBefore) {
      table = memo.byDepth[depth] ?? new Map();
      memo.byDepth[depth] = table;
    }
    table.set(key, masked === text ? key : copyOf(masked));
    memoChars += text.length + (masked === text ? 0 : masked.length);
    memoEntries++;
    return masked;
  }

  /** Masks free text: every spelling of a known secret, and every field it can find by its shape. */
  function plain(text: string, depth: number): string {
    if (shortWhole.has(text)) return MASK;
    if (text.length < 3) return text;
    return remembered(plainMemo, text, depth, plainOnce);
  }

  function plainOnce(text: string, depth: number): string {
    let out = text;
    // The masks below put in no escaping: whether the text has any is known once.
    const escaped = ESCAPING.test(text);
    if (decodedSecretRegex && (escaped || known.some((secret) => text.includes(secret))))
      // With no `%`, `\` or `&`, a secret is written as is (a space also as `+`): the small regex.
      out = ESCAPED_SECRET.test(text) ? maskSecretSpellings(out) : out.replace(decodedSecretRegex, MASK);
    out = maskCards(out, escaped);
    if (shortTokenRegex && /[=:]/.test(out))
      out = replaceChanging(out, shortTokenRegex, (_w, head) => `${head}${MASK}`);
    if (out.includes("://")) out = maskUrlCredentials(out);
    if (out.includes("/callbacks/")) out = out.replace(SINK_TOKEN_SEGMENT, `$1${MASK}`);
    if (AUTH_SCHEME.test(out)) {
      out = out.replace(BEARER, `$1$2${MASK}`);
      out = out.replace(BASIC, (whole, scheme: string, space: string, encoded: string) =>
        Buffer.from(encoded, "base64").toString("latin1").includes(":") ? `${scheme}${space}${MASK}` : whole,
      );
    }
    if (/cvc|cvv|csc|security_?code/i.test(out)) {
      out = replaceChanging(out, QUOTED_CVC, (_w, head, open, value, close) =>
        value === "" ? `${head}${open}${close}` : `${head}${open}${MASK}${close}`,
      );
      out = out.replace(NUMERIC_CVC, (_w, q1: string, key: string, q2: string, colon: string) => {
        return `${q1}${key}${q2}${colon}${q1}${MASK}${q1}`;
      });
      out = replaceChanging(out, FORM_CVC, (_w, head, value) => (value === "" ? head : `${head}${MASK}`));
    }
    if (/pan|card_?n/i.test(out))
      out = out.replace(QUOTED_CARD, (_w, head: string, value: string) => head + maskCardDigits(value));
    // What the patterns above miss for its spelling (an entity, a third percent layer, a mix).
    if (escaped) out = maskDecoded(out);
    if (fragmentRegex && depth < MAX_DEPTH) {
      if (hasBase64LineBreak(out)) out = maskWrappedBase64(out, depth);
      out = maskBase64(out, depth);
    } else if (fragmentRegex && (hasBase64LineBreak(out) || (fragmentTest as RegExp).test(out))) depthUses++;
    return out;
  }

  /**
   * Secrets, cards, and CVC or card fields that only a decoded view shows (numeric entities,
   * percent escapes three deep, an entity under a percent escape, a card grouped by `&nbsp;`):
   * around each escape that starts a layer, the text is decoded layer by layer, searched in every
   * layer, and what is found is masked where it is written, the rest of the text left as it is.
   */
  function maskDecoded(text: string): string {
    const trigger = DECODE_TRIGGER;
    trigger.lastIndex = 0;
    const edits: Edit[] = [];
    let windowStart = -1;
    let windowEnd = -1;
    for (let match = trigger.exec(text); match !== null; match = trigger.exec(text)) {
      const start = Math.max(0, match.index - decodeReach);
      const end = Math.min(text.length, match.index + match[0].length + decodeReach);
      if (windowStart !== -1 && start <= windowEnd && windowEnd - windowStart < MAX_DECODE_WINDOW) {
        windowEnd = end;
        continue;
      }
      if (windowStart !== -1) maskWindow(text, windowStart, windowEnd, edits);
      // A window cut for its size goes on from well before its end: a spelling it cut is whole in the next.
      windowStart =
        windowStart !== -1 && start <= windowEnd ? Math.max(windowStart, windowEnd - DECODE_OVERLAP) : start;
      windowEnd = end;
    }
    if (windowStart !== -1) maskWindow(text, windowStart, windowEnd, edits);
    return applyEdits(text, edits);
  }

  /** Decodes `text[start, end)` and records the edits that mask what its layers show. */
  function maskWindow(text: string, start: number, end: number, edits: Edit[]): void {
    const layers = decodeLayers(text.slice(start, end));
    layers.forEach((layer, depth) => {
      const view = layer.text;
      const written = (from: number, to: number): [number, number] => {
        const [a, b] = originalSpan(layers, depth, from, to);
        return [start + a, start + b];
      };
      const maskDigits = (from: number, to: number) => {
        let digitsLeft = 0;
        for (let i = from; i < to; i++) if (isDigitAt(view, i)) digitsLeft++;
        for (let i = from; i < to && digitsLeft > 4; i++) {
          if (!isDigitAt(view, i)) continue;
          edits.push([...written(i, i + 1), "*"]);
          digitsLeft--;
        }
      };
      if (decodedSecretRegex)
        for (const match of view.matchAll(decodedSecretRegex))
          edits.push([...written(match.index, match.index + match[0].length), MASK]);
      if (decodedCardRegex && view.length >= shortestCard)
        for (const match of view.matchAll(decodedCardRegex)) {
          const matchEnd = match.index + match[0].length;
          if (!inDecimalNumber(view, match.index, matchEnd)) maskDigits(match.index, matchEnd);
        }
      if (/cvc|cvv|csc|security_?code/i.test(view)) {
        for (const [regex, group] of DECODED_CVC_FIELDS)
          for (const match of view.matchAll(regex)) {
            const [from, to] = match.indices?.[group] ?? [0, 0];
            if (to > from && match[group] !== MASK) edits.push([...written(from, to), MASK]);
          }
      }
      if (/pan|card_?n/i.test(view))
        for (const match of view.matchAll(DECODED_CARD_FIELD)) {
          const [from, to] = match.indices?.[2] ?? [0, 0];
          maskDigits(from, to);
        }
    });
  }

  /**
   * Masks base64 wrapped in lines (MIME's 76 columns, PEM's 64, any width): each block is decoded
   * whole, whatever spelling of a secret it holds (lines of base64 are rare enough in a report).
   */
  function maskWrappedBase64(text: string, depth: number): string {
    const fragment = fragmentTest as RegExp;
    return text.replace(WRAPPED_BASE64, (block) => {
      const lineBreak = (BASE64_LINE_BREAK.exec(block) as RegExpExecArray)[0];
      const all = block.split(BASE64_LINE_BREAK);
      // A word on the line after the block (`end`, `--boundary`), or a name on the line before,
      // reads as a line of base64 too: the lines that make a whole value are the block.
      const skips: [number, number][] = [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ];
      const [skipFirst, skipLast] = skips.find(
        ([a, b]) => all.length - a - b >= 2 && isWholeBase64(all.slice(a, all.length - b).join("")),
      ) ?? [0, 0];
      const lines = all.slice(skipFirst, all.length - skipLast);
      const joined = lines.join("");
      const masked = fragment.test(joined)
        ? maskBase64(joined, depth)
        : maskBase64Run(joined, undefined, depth);
      if (masked === joined) return block;
      // Wrapped again as it was: the first line as long (text may stand before it), then the width.
      const first = (lines[0] as string).length;
      const width = Math.max(first, ...lines.slice(1, -1).map((line) => line.length));
      const out = [...all.slice(0, skipFirst), masked.slice(0, first)];
      for (let i = first; i < masked.length; i += width) out.push(masked.slice(i, i + width));
      return [...out, ...all.slice(all.length - skipLast)].join(lineBreak);
    });
  }

  /** Finds base64 runs holding a known secret: decodes, masks and re-encodes them. */
  function maskBase64(text: string, depth: number): string {
    const regex = fragmentRegex as RegExp;
    regex.lastIndex = 0;
    let out = "";
    let copied = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      if (match.index < copied) continue;
      let start = match.index;
      let end = match.index + match[0].length;
      while (start > copied && /[A-Za-z0-9+/_-]/.test(text[start - 1] as string)) start--;
      while (end < text.length && /[A-Za-z0-9+/_-]/.test(text[end] as string)) end++;
      if (text[end] === "=") end += text[end + 1] === "=" ? 2 : 1;
      const run = text.slice(start, end);
      out += text.slice(copied, start) + maskBase64Run(run, match[0], depth);
      copied = end;
      regex.lastIndex = end;
    }
    return copied === 0 ? text : out + text.slice(copied);
  }

  function maskBase64Run(run: string, fragment: string | undefined, depth: number): string {
    const urlSafe = /[-_]/.test(run);
    const body = run.replace(/=+$/, "");
    const standard = urlSafe ? body.replace(/-/g, "+").replace(/_/g, "/") : body;
    if (body.length % 4 !== 1 && !(urlSafe && /[+/]/.test(body))) {
      const bytes = Buffer.from(standard, "base64");
      if (bytes.toString("base64").replace(/=+$/, "") === standard) {
        const asUtf8 = bytes.toString("utf8");
        const encoding: BufferEncoding = Buffer.from(asUtf8, "utf8").equals(bytes) ? "utf8" : "latin1";
        const decoded = encoding === "utf8" ? asUtf8 : bytes.toString("latin1");
        const masked = maskString(decoded, depth + 1);
        if (masked !== decoded) {
          let encoded = Buffer.from(masked, encoding).toString("base64");
          if (urlSafe) encoded = encoded.replace(/\+/g, "-").replace(/\//g, "_");
          return run.endsWith("=") ? encoded : encoded.replace(/=+$/, "");
        }
      }
    }
    // Not a whole base64 value (cut, or one line of many): the part that spells the secret goes.
    return fragment === undefined ? run : run.split(fragment).join(MASK);
  }

  /** Masks a string value (decoded: no JSON escaping of its own). */
  function maskString(value: string, depth: number): string {
    const jsonLike = looksLikeJson(value);
    if (depth >= MAX_DEPTH) {
      if (jsonLike) depthUses++;
      return plain(value, depth);
    }
    return jsonLike ? remembered(jsonMemo, value, depth + 1, json) : plain(value, depth);
  }

  /** Masks a string value that sits at `key` (inside `parent`), field rules first. */
  function maskStringAt(value: string, key: string | undefined, parent: string | undefined, depth: number) {
    const kind = fieldKind(key, parent);
    return kind ? maskField(kind, value) : maskString(value, depth);
  }

  /**
   * Masks JSON text (possibly cut short, possibly with junk around it) token by token: strings
   * are masked as values, numbers and literals in a value's place are copied unchanged, and
   * anything else is masked as free text. Valid JSON stays valid.
   */
  function json(text: string, depth: number): string {
    const stack: Frame[] = [];
    /**
     * Only what masking changed is kept, with the unchanged text before it: mostly nothing changes
     * (a report's values were masked as they were recorded), and then the text itself is the
     * answer. No copy of a report of every exchange is built only to be thrown away (memory stays
     * bounded), nor a list of its every token.
     */
    const parts: string[] = [];
    let copied = 0;
    const replace = (start: number, end: number, masked: string) => {
      parts.push(text.slice(copied, start), masked);
      copied = end;
    };
    let junkStart = -1;
    /** The last significant character: a number or literal is a value after `:`, `[`, `,` or nothing. */
    let previous = "";
    const flushJunk = (end: number) => {
      if (junkStart !== -1) {
        const junk = text.slice(junkStart, end);
        const masked = plain(junk, depth);
        if (masked !== junk) replace(junkStart, end, masked);
      }
      junkStart = -1;
    };
    /** The first backslash at or after the string being read (-1: none to the end), found once per backslash. */
    let backslashAt = text.indexOf("\\");
    let i = 0;
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        flushJunk(i);
        const end = stringEnd(text, i);
        const stop = end === -1 ? text.length : end + 1;
        const frame = stack[stack.length - 1];
        let decoded: string | undefined;
        if (end !== -1) {
          if (backslashAt !== -1 && backslashAt < i) backslashAt = text.indexOf("\\", i);
          if (backslashAt === -1 || backslashAt > end) decoded = text.slice(i + 1, end);
          else {
            try {
              decoded = JSON.parse(text.slice(i, stop)) as string;
            } catch {
              decoded = undefined;
            }
          }
        }
        if (decoded === undefined) {
          // Cut short or badly escaped: masked as free text, which adds no quote.
          const inner = text.slice(i + 1, end === -1 ? stop : end);
          const masked = plain(inner, depth);
          if (masked !== inner) replace(i, stop, `"${masked}${end === -1 ? "" : '"'}`);
        } else {
          let masked: string;
          if (frame?.kind === "object" && frame.expectingKey) {
            masked = plain(decoded, depth);
            frame.key = decoded;
          } else {
            const [key, parent] = valueContext(stack);
            masked = maskStringAt(decoded, key, parent, depth);
          }
          if (masked !== decoded) replace(i, stop, JSON.stringify(masked));
        }
        previous = '"';
        i = stop;
        continue;
      }
      if (c === "{" || c === "[") {
        flushJunk(i);
        const [at, parentAt] = valueContext(stack);
        stack.push({
          kind: c === "{" ? "object" : "array",
          key: undefined,
          expectingKey: c === "{",
          at,
          parentAt,
        });
        previous = c;
        i++;
        continue;
      }
      if (c === "}" || c === "]") {
        flushJunk(i);
        stack.pop();
        previous = c;
        i++;
        continue;
      }
      if (c === ":" || c === ",") {
        flushJunk(i);
        const frame = stack[stack.length - 1];
        if (frame?.kind === "object") frame.expectingKey = c === ",";
        previous = c;
        i++;
        continue;
      }
      if (junkStart === -1 && (c === " " || c === "\n" || c === "\r" || c === "\t")) {
        i++;
        continue;
      }
      if (junkStart === -1 && (previous === ":" || previous === "[" || previous === "," || previous === "")) {
        NUMBER_AT.lastIndex = i;
        LITERAL_AT.lastIndex = i;
        const token = NUMBER_AT.exec(text)?.[0] ?? LITERAL_AT.exec(text)?.[0];
        const after = token === undefined ? "" : (text[i + token.length] ?? "");
        if (token !== undefined && !/[\w.]/.test(after)) {
          const [key, parent] = valueContext(stack);
          const kind = /\d/.test(token) ? fieldKind(key, parent) : undefined;
          // A CVC or card number written as a number is still a secret: masked, as a string.
          if (kind === "cvc" || kind === "card")
            replace(i, i + token.length, JSON.stringify(maskField(kind, token)));
          else {
            const masked = maskIntegerCard(token);
            if (masked !== token) replace(i, i + token.length, JSON.stringify(masked));
          }
          previous = "0";
          i += token.length;
          continue;
        }
      }
      if (junkStart === -1) junkStart = i;
      previous = c;
      i++;
    }
    flushJunk(text.length);
    return parts.length === 0 ? text : parts.join("") + text.slice(copied);
  }

  function text(value: string): string {
    return looksLikeJson(value) ? remembered(jsonMemo, value, 0, json) : plain(value, 0);
  }

  function headers(input: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(input)) {
      out[name] = /^(authorization|proxy-authorization|x-api-key|api-key|apikey)$/i.test(name)
        ? maskCredentialValue(value)
        : plain(value, 0);
    }
    return out;
  }

  function walk(input: unknown, key: string | undefined, parent: string | undefined): unknown {
    if (typeof input === "string") return maskStringAt(input, key, parent, 0);
    if (typeof input === "number" || typeof input === "bigint") {
      const kind = fieldKind(key, parent);
      if (kind === "cvc" || kind === "card") return maskField(kind, String(input));
      const written = String(input);
      const masked = maskIntegerCard(written);
      return masked === written ? input : masked;
    }
    if (Array.isArray(input)) return input.map((item) => walk(item, key, parent));
    if (typeof input === "object" && input !== null) {
      const out: Record<string, unknown> = {};
      for (const [name, item] of Object.entries(input)) out[plain(name, 0)] = walk(item, name, key);
      return out;
    }
    return input;
  }

  /**
   * A value as JSON.stringify reads it (its toJSON called, a boxed primitive unboxed), masked as
   * json() masks its text; `name` is what toJSON is given. Copies only what masking changed.
   */
  function jsonWalk(
    input: unknown,
    key: string | undefined,
    parent: string | undefined,
    name: string,
  ): unknown {
    let value = input;
    if (typeof value === "object" && value !== null) {
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") value = toJSON.call(value, name);
      if (value instanceof Number || value instanceof String || value instanceof Boolean)
        value = value.valueOf();
    }
    if (typeof value === "string") return maskStringAt(value, key, parent, 0);
    // Not finite: JSON writes null, which no rule masks.
    if (typeof value === "number" && Number.isFinite(value)) {
      const kind = fieldKind(key, parent);
      if (kind === "cvc" || kind === "card") return maskField(kind, String(value));
      const written = String(value);
      const masked = maskIntegerCard(written);
      return masked === written ? value : masked;
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const masked = jsonWalk(item, key, parent, String(i));
        if (!Object.is(masked, item)) {
          copy ??= value.slice();
          copy[i] = masked;
        }
      }
      return copy ?? value;
    }
    if (typeof value === "object" && value !== null) {
      const entries = Object.entries(value);
      let copy: Record<string, unknown> | undefined;
      for (let i = 0; i < entries.length; i++) {
        const [name, item] = entries[i] as [string, unknown];
        const maskedName = plain(name, 0);
        const masked = jsonWalk(item, name, key, name);
        if (copy === undefined && (maskedName !== name || !Object.is(masked, item))) {
          copy = Object.create(null) as Record<string, unknown>;
          for (const [before, kept] of entries.slice(0, i)) copy[before] = kept;
        }
        if (copy !== undefined) {
          if (Object.hasOwn(copy, maskedName)) throw KEYS_MERGED;
          // Defined, not assigned: a key `__proto__` stays a key.
          Object.defineProperty(copy, maskedName, {
            value: masked,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      return copy ?? value;
    }
    return value;
  }

  function valueAt(input: unknown, key: string | undefined, parent: string | undefined) {
    try {
      return { value: jsonWalk(input, key, parent, "") };
    } catch (error) {
      if (error === KEYS_MERGED) return undefined;
      throw error;
    }
  }

  return { text, headers, value: <T>(input: T) => walk(input, undefined, undefined) as T, valueAt };
}
