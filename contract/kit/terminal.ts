/**
 * What may reach a terminal. Text that came from a target (a body, a header, an error message)
 * is printed with its control characters made visible, so a target cannot move the cursor, repaint
 * a line ("verdict: CONFORMANT"), retitle the window or ring the bell; and it is shortened, so a
 * 200 MB answer is one line. Colour is used only on a terminal that wants it.
 */

/** Characters that steer a terminal or reorder text: C0, DEL, C1, bidi and line/paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

const NAMED_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeUnit(char: string): string {
  const named = NAMED_ESCAPES[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * The text as it may be printed: control characters shown escaped (`\x1b`, `\r`, `\x07`, `\x9b`,
 * `\u202e`), a lone surrogate as `\ud800`, and at most `maxLength` characters, the last of
 * them an ellipsis when it was shortened.
 */
export function terminalSafe(text: string, maxLength = 200): string {
  const limit = Math.max(1, Math.floor(maxLength));
  let out = "";
  /** The longest prefix, at a character boundary, that leaves room for the ellipsis. */
  let roomForEllipsis = 0;
  for (const char of text) {
    const lone = char.length === 1 && char >= "\ud800" && char <= "\udfff";
    const unit = lone || UNSAFE.test(char) ? escapeUnit(char) : char;
    if (out.length + unit.length > limit) return `${out.slice(0, roomForEllipsis)}…`;
    out += unit;
    if (out.length <= limit - 1) roomForEllipsis = out.length;
  }
  return out;
}

export interface Colours {
  /** Whether colour codes are written at all. */
  enabled: boolean;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

const SGR = { red: [31, 39], green: [32, 39], yellow: [33, 39], bold: [1, 22], dim: [2, 22] } as const;

/**
 * Colour helpers for one output stream: ANSI codes only when the stream is a terminal, `NO_COLOR`
 * is unset or empty (no-color.org) and `TERM` is not `dumb`; `FORCE_COLOR` (non-empty, not `0`)
 * turns them on for a pipe, e.g. a CI log viewer that renders them.
 */
export function colours(
  stream: { isTTY?: boolean } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): Colours {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0";
  const refused = (env.NO_COLOR !== undefined && env.NO_COLOR !== "") || env.FORCE_COLOR === "0";
  const enabled = !refused && (forced || (stream.isTTY === true && env.TERM !== "dumb"));
  const paint =
    (name: keyof typeof SGR) =>
    (text: string): string =>
      enabled ? `\u001b[${SGR[name][0]}m${text}\u001b[${SGR[name][1]}m` : text;
  return {
    enabled,
    red: paint("red"),
    green: paint("green"),
    yellow: paint("yellow"),
    bold: paint("bold"),
    dim: paint("dim"),
  };
}
