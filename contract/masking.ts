/**
 * Masking: no full card number, CVC, API key or callback secret in any report, log or console
 * line. Known secrets are replaced wherever they appear; card numbers keep their last 4 digits;
 * anything that looks like a card number (13–19 digits passing the Luhn check) is masked too,
 * in case a target echoes one we did not send; `cvc` values and bearer tokens are masked by
 * their place in JSON and headers.
 */

export interface MaskerSecrets {
  /** API keys, callback secrets, tokens: replaced entirely. */
  secrets: readonly (string | undefined)[];
  /** Card numbers sent: all but the last 4 digits replaced. */
  cardNumbers?: readonly string[];
}

const MASK = "***";

function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

export function maskCardNumber(number: string): string {
  return number.length <= 4 ? MASK : `${"*".repeat(number.length - 4)}${number.slice(-4)}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export interface Masker {
  /** Masks every secret in a piece of text (JSON, a header value, a log line). */
  text(value: string): string;
  /** Masks a header map: Authorization and signature headers lose their values. */
  headers(headers: Record<string, string>): Record<string, string>;
}

export function createMasker({ secrets, cardNumbers = [] }: MaskerSecrets): Masker {
  // Longest first, so a secret that contains another is masked whole.
  const known = [...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length >= 4))].sort(
    (a, b) => b.length - a.length,
  );
  const knownPattern = known.length > 0 ? new RegExp(known.map(escapeRegExp).join("|"), "g") : undefined;
  const cards = new Set(cardNumbers);

  function text(value: string): string {
    let out = value;
    if (knownPattern) out = out.replace(knownPattern, MASK);
    // Card-like digit runs: the numbers we sent, and any Luhn-valid 13-19 digit run starting
    // with a card network's digit (2-6), which leaves millisecond timestamps (1...) alone.
    for (const card of cards) out = out.split(card).join(maskCardNumber(card));
    out = out.replace(/(?<!\d)[2-6]\d{12,18}(?!\d)/g, (digits) =>
      luhnValid(digits) ? maskCardNumber(digits) : digits,
    );
    // "cvc": "123" in JSON, whatever the value; and the same inside a JSON string (\"cvc\":\"123\").
    out = out.replace(/("cvc"\s*:\s*)("(?:[^"\\]|\\.)*"|\d+)/gi, `$1"${MASK}"`);
    out = out.replace(/(\\"cvc\\"\s*:\s*)(\\"(?:[^"\\]|\\[^"])*\\"|\d+)/gi, `$1\\"${MASK}\\"`);
    // Bearer tokens, whatever their value (never eating a backslash, which would break JSON escapes),
    // but a reference to an environment variable (`--oauth2-bearer "$H2H_API_KEY"` in a curl command,
    // its quotes HTML-escaped or not) is no secret: it stays, so the command runs as pasted.
    out = out.replace(
      /(Bearer\s+)(?!(?:"|&quot;)?\$\{?[A-Z_][A-Z0-9_]*\}?(?:"|&quot;)?(?![^\s",\\]))[^\s",\\]+/gi,
      `$1${MASK}`,
    );
    return out;
  }

  function headers(input: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(input)) {
      out[name] = /^(authorization|x-api-key)$/i.test(name)
        ? value.replace(/^(\w+\s+).*$/, `$1${MASK}`)
        : text(value);
    }
    return out;
  }

  return { text, headers };
}
