/**
 * Spellings of secrets that only decoding finds, or that the first patterns left out: HTML numeric
 * entities, percent-encoding three deep and more, base64 wrapped in lines, cards grouped by any
 * Unicode space or dash, cards as HTML entities, and a card as a JSON number in any field. Then
 * a differential fuzz: ordinary report data comes out byte for byte, and a secret in a random
 * chain of spellings between random ordinary data leaves exactly that data around its mask.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CARD_SEPARATOR, createMasker } from "./masking.ts";

const API_KEY = "Zk7Q-apikey-8f3a9c1d5e";
const CALLBACK_SECRET = "cb-secret_4Jx9/Qm+Lp2";
const SINK_TOKEN = "0f3c9a7e5b1d4c2a8e6f0b9d7c5a3e1f2b4d6c8a0e9f7b5d3c1a2e4f6b8d0c9a";
const CARD = "4111111111111111";
const AMEX = "378282246310005";

const masker = createMasker({ secrets: [API_KEY, CALLBACK_SECRET, SINK_TOKEN], cardNumbers: [CARD, AMEX] });
const SECRETS: Record<string, string> = {
  "API key": API_KEY,
  "callback secret": CALLBACK_SECRET,
  "sink token": SINK_TOKEN,
};

const decimalEntities = (s: string) => [...s].map((c) => `&#${c.codePointAt(0)};`).join("");
const hexEntities = (s: string) =>
  [...s].map((c) => `&#x${(c.codePointAt(0) as number).toString(16)};`).join("");
const percentEvery = (s: string) =>
  [...Buffer.from(s, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");
const percentTimes = (s: string, times: number) => {
  let out = percentEvery(s);
  for (let i = 1; i < times; i++) out = encodeURIComponent(out);
  return out;
};
const wrap = (text: string, width: number, lineBreak: string) =>
  (text.match(new RegExp(`.{1,${width}}`, "g")) ?? []).join(lineBreak);
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const grouped = (card: string, separator: string) => card.match(/.{1,4}/g)?.join(separator) ?? card;

/** Every decoding a reader could apply, to a fixed point: what a leak check must look through. */
function readings(text: string): string[] {
  const seen = new Set<string>([text]);
  let frontier = [text];
  for (let round = 0; round < 10 && frontier.length > 0; round++) {
    const next: string[] = [];
    for (const t of frontier) {
      const candidates = [
        t.replace(/&#[xX]([0-9a-fA-F]+);?/g, (_w, h: string) => String.fromCodePoint(Number.parseInt(h, 16))),
        t.replace(/&#(\d+);?/g, (_w, d: string) => String.fromCodePoint(Number(d))),
        t.replace(/&amp;/g, "&").replace(/&nbsp;/g, "\u00a0"),
        t.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
          try {
            return decodeURIComponent(run);
          } catch {
            return run;
          }
        }),
        t.replace(/\\u([0-9a-fA-F]{4})/g, (_w, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
        t.replace(/\r?\n|(?:\\+r)?\\+n/g, ""),
        ...(t.match(/[A-Za-z0-9+/=]{8,}/g) ?? []).flatMap((run) =>
          [0, 1, 2, 3].map((cut) => Buffer.from(run.slice(cut), "base64").toString("latin1")),
        ),
      ];
      for (const c of candidates)
        if (!seen.has(c) && seen.size < 400) {
          seen.add(c);
          next.push(c);
        }
    }
    frontier = next;
  }
  return [...seen];
}

/** What of `secret` (or of a card's digits) any reading of `text` still shows. */
function leaked(text: string, secret: string): string | undefined {
  for (const reading of readings(text)) {
    if (reading.includes(secret)) return reading;
    if (/^\d+$/.test(secret) && reading.replace(new RegExp(CARD_SEPARATOR.source, "g"), "").includes(secret))
      return reading;
  }
  return undefined;
}

describe("masking: HTML numeric entities", () => {
  for (const [name, secret] of Object.entries(SECRETS)) {
    it(`${name}: part of it, or every character, as decimal or hex entities`, () => {
      const first = secret.slice(0, 4);
      const rest = secret.slice(5);
      const spellings = [
        `${first}&#x${(secret.codePointAt(4) as number).toString(16)};${rest}`,
        `${first}&#${secret.codePointAt(4)};${rest}`,
        `${first}&#X${(secret.codePointAt(4) as number).toString(16).toUpperCase()};${rest}`,
        `${first}&#00${secret.codePointAt(4)}${rest}`.replace(/&#00(\d+)/, "&#00$1;"),
        decimalEntities(secret),
        hexEntities(secret),
        // Every other character, and entities written into HTML once more (`&amp;#52;`).
        [...secret].map((c, i) => (i % 2 === 0 ? `&#${c.codePointAt(0)};` : c)).join(""),
        decimalEntities(secret).replace(/&/g, "&amp;"),
        // An entity under a percent escape, and the other way round.
        percentEvery(decimalEntities(secret)),
        hexEntities(percentEvery(secret)),
      ];
      for (const spelled of spellings) {
        const line = `got ${spelled} back`;
        expect(masker.text(line), spelled).toBe("got *** back");
        const json = masker.text(JSON.stringify({ echo: `<b>${spelled}</b>`, n: 1 }));
        expect(JSON.parse(json)).toEqual({ echo: "<b>***</b>", n: 1 });
      }
    });
  }

  it("the brief's own example: Zk7Q&#x2d;apikey…", () => {
    expect(masker.text("key=Zk7Q&#x2d;apikey-8f3a9c1d5e;")).toBe("key=***;");
    expect(masker.text("key=Zk7Q&#x2d;apikey&#x2d;8f3a9c1d5e")).toBe("key=***");
  });
});

describe("masking: percent-encoding at any depth", () => {
  for (const [name, secret] of Object.entries({ ...SECRETS, card: CARD })) {
    for (const times of [1, 2, 3, 4, 6]) {
      it(`${name}: percent-encoded ${times} time(s), every byte or only what must be`, () => {
        let minimal = secret;
        for (let i = 0; i < times; i++) minimal = encodeURIComponent(minimal).replace(/-/g, "%2D");
        for (const spelled of [percentTimes(secret, times), minimal]) {
          const output = masker.text(`q=${spelled}&n=1`);
          expect(leaked(output, secret), output).toBeUndefined();
          expect(output.startsWith("q=") && output.endsWith("&n=1"), output).toBe(true);
          if (secret === CARD) expect(output).toContain("*");
        }
      });
    }
  }

  it("a CVC in a JSON body percent-encoded three times", () => {
    let body = '{"cvc":"737","amount":5}';
    for (let i = 0; i < 3; i++) body = encodeURIComponent(body);
    const output = masker.text(`echo=${body}`);
    let decoded = output.slice(5);
    for (let i = 0; i < 3; i++) decoded = decodeURIComponent(decoded);
    expect(decoded).toBe('{"cvc":"***","amount":5}');
  });
});

describe("masking: a CVC by its field, in the new spellings", () => {
  const body = '{"requisites":{"number":"4111111111111111","cvc":"737"},"amount":5}';
  const cvcGone = (output: string) =>
    readings(output).every((reading) => !/"cvc"\s*:\s*"?737/.test(reading) && !reading.includes(CARD));

  it("as HTML numeric entities, for the value, the key, or every character", () => {
    for (const spelled of [
      body.replace('"737"', `"${decimalEntities("737")}"`),
      body.replace('"cvc"', `"${hexEntities("cvc")}"`),
      decimalEntities(body),
      hexEntities(body).replace(/&/g, "&amp;"),
    ]) {
      const output = masker.text(`<pre>${spelled}</pre>`);
      expect(cvcGone(output), output).toBe(true);
      expect(readings(output).some((reading) => reading.includes(`"amount":5`))).toBe(true);
    }
  });

  it("in base64 wrapped in lines, and percent-encoded four times", () => {
    for (const spelled of [
      wrap(b64(body), 76, "\r\n"),
      wrap(b64(`${"p".repeat(50)}${body}`), 64, "\n"),
      percentTimes(body, 4),
    ]) {
      const output = masker.text(`body:\n${spelled}\nend`);
      expect(cvcGone(output), output).toBe(true);
    }
  });
});

describe("masking: base64 wrapped in lines", () => {
  for (const [name, secret] of Object.entries({ ...SECRETS, card: CARD })) {
    for (const width of [64, 76]) {
      for (const lineBreak of ["\n", "\r\n"]) {
        it(`${name}: wrapped at ${width} columns with ${JSON.stringify(lineBreak)}, the secret across a break`, () => {
          // Padding that puts the secret's encoding across the first line break, then more lines.
          for (const pad of [width - 8, width - 20, 2 * width - 10]) {
            const plainText = `${"p".repeat(Math.floor((pad * 3) / 4))}${secret}${" tail".repeat(30)}`;
            const block = wrap(b64(plainText), width, lineBreak);
            expect(block.split(lineBreak).length).toBeGreaterThan(1);
            for (const place of [
              (s: string) => `Content-Transfer-Encoding: base64${lineBreak}${lineBreak}${s}${lineBreak}--end`,
              (s: string) => JSON.stringify({ attachment: s }),
              (s: string) => `<pre>${JSON.stringify(JSON.stringify({ attachment: s })).slice(1, -1)}</pre>`,
            ]) {
              const output = masker.text(place(block));
              expect(leaked(output, secret), output).toBeUndefined();
            }
            // Still base64 wrapped as before, and the rest of what it holds is still there.
            const output = masker.text(`x ${block} y`);
            const lines = output.slice(2, -2).split(lineBreak);
            expect(lines.slice(0, -1).every((line) => line.length === width)).toBe(true);
            expect(Buffer.from(lines.join(""), "base64").toString("utf8")).toContain(" tail tail");
          }
        });
      }
    }
  }
});

describe("masking: card numbers grouped by any space or dash", () => {
  const separators: Record<string, string> = {
    NBSP: "\u00a0",
    "thin space": "\u2009",
    "narrow NBSP": "\u202f",
    tab: "\t",
    "double space": "  ",
    "en dash": "\u2013",
    "em dash": "\u2014",
    "minus sign": "\u2212",
    "figure space": "\u2007",
    "ideographic space": "\u3000",
    "spaced en dash": " \u2013 ",
    "non-breaking hyphen": "\u2011",
  };
  for (const [name, separator] of Object.entries(separators)) {
    it(`grouped by ${name}: all but the last 4 digits masked, the separators kept`, () => {
      for (const card of [CARD, AMEX]) {
        const spelled =
          card === AMEX
            ? [card.slice(0, 4), card.slice(4, 10), card.slice(10)].join(separator)
            : grouped(card, separator);
        const expected = spelled.replace(/\d(?=(?:\D*\d){4})/g, "*");
        expect(masker.text(`card ${spelled}.`)).toBe(`card ${expected}.`);
        expect(JSON.parse(masker.text(JSON.stringify({ note: `card ${spelled}` })))).toEqual({
          note: `card ${expected}`,
        });
        // Escaped: JSON-escaped in HTML, percent-encoded, as entities.
        for (const escaped of [
          JSON.stringify(spelled).slice(1, -1),
          encodeURIComponent(spelled),
          spelled.replace(/[^\d]/g, (c) => `&#${c.codePointAt(0)};`),
          spelled
            .replace(/\u00a0/g, "&nbsp;")
            .replace(/\u2013/g, "&ndash;")
            .replace(/\u2009/g, "&thinsp;"),
        ]) {
          const output = masker.text(`card ${escaped}.`);
          expect(leaked(output, card), `${escaped} -> ${output}`).toBeUndefined();
          expect(output).toMatch(
            new RegExp(
              `${card.slice(-4)}|${[...card.slice(-4)].map((d) => `&#${d.charCodeAt(0)};`).join("")}`,
            ),
          );
        }
      }
    });
  }

  it("the separator class holds every Unicode space (\\p{Zs}) and dash (\\p{Pd}) of the BMP", () => {
    const missing: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const char = String.fromCharCode(code);
      if (/[\p{Zs}\p{Pd}]/u.test(char) && !CARD_SEPARATOR.test(char)) missing.push(code.toString(16));
    }
    expect(missing).toEqual([]);
    for (const char of ["\t", "\u2212", "\u00ad", "\u200b", "\ufeff"])
      expect(CARD_SEPARATOR.test(char)).toBe(true);
    for (const char of ["\n", ".", "/", "_", "a"]) expect(CARD_SEPARATOR.test(char)).toBe(false);
  });

  it("leaves numbers grouped the same way alone when they are no card sent", () => {
    for (const text of [
      "amount 1\u00a0234\u00a0567,89 RUB",
      "ids 4111\u00a01111\u00a01111\u00a01112 and 5555\u20135555\u20135555\u20134444",
      "2026\u201311\u201327 12:00\u2009UTC, phone +7\u00a0700\u00a0111\u00a022\u00a033",
      "order\t41111111\t11111110",
    ])
      expect(masker.text(text)).toBe(text);
  });
});

describe("masking: card numbers as HTML entities", () => {
  for (const [name, spell] of Object.entries({
    decimal: decimalEntities,
    hex: hexEntities,
    "hex, upper case, zero-padded": (s: string) =>
      [...s].map((c) => `&#X00${c.charCodeAt(0).toString(16)};`).join(""),
    "HTML-escaped once more": (s: string) => decimalEntities(s).replace(/&/g, "&amp;"),
    "grouped by &nbsp;": (s: string) => (s.match(/.{1,4}/g) ?? []).map(decimalEntities).join("&nbsp;"),
  })) {
    it(`${name}: masked but its last 4 digits`, () => {
      for (const card of [CARD, AMEX]) {
        const spelled = spell(card);
        for (const place of [
          (s: string) => `<td>${s}</td>`,
          (s: string) => JSON.stringify({ html: `<td>${s}</td>` }),
          (s: string) => `rate 19.${s}`.replace("rate 19.", "ref "),
        ]) {
          const output = masker.text(place(spelled));
          expect(leaked(output, card), output).toBeUndefined();
          expect(leaked(output, card.slice(-4))).toBeDefined();
        }
      }
    });
  }

  it("a decimal's digits as entities stay, as they do written plainly", () => {
    const text = `rate 19.${decimalEntities(CARD)}`;
    expect(masker.text(text)).toBe(text);
  });
});

describe("masking: a card as a JSON number in any field", () => {
  it("is masked, as a string, and the JSON stays valid", () => {
    expect(masker.text(`{"note": ${CARD}}`)).toBe('{"note": "************1111"}');
    expect(masker.text(`{"a":[1,${AMEX},-${CARD}],"b":{"ref":20261127${CARD}}}`)).toBe(
      '{"a":[1,"***********0005","-************1111"],"b":{"ref":"20261127************1111"}}',
    );
    expect(masker.text(JSON.stringify({ body: `{"note":${CARD}}` }))).toBe(
      JSON.stringify({ body: '{"note":"************1111"}' }),
    );
    expect(masker.value({ note: Number(CARD), big: BigInt(CARD), n: 7 })).toEqual({
      note: "************1111",
      big: "************1111",
      n: 7,
    });
  });

  it("leaves every other number alone: a decimal holding the card, other integers, exponents", () => {
    const text = `{"a":${CARD}.5,"b":1.${CARD},"c":${CARD}e2,"d":4111111111111112,"e":1763780400000,"f":-0.0}`;
    expect(masker.text(text)).toBe(text);
  });
});

describe("masking: differential fuzz", () => {
  /** Ordinary report data: ids, amounts, timestamps, words, URLs, and escapes of them. */
  const ordinaryPiece = fc.oneof(
    fc.uuid(),
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map(String),
    fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }).map(String),
    fc.double({ min: -1e9, max: 1e9, noNaN: true }).map(String),
    fc.integer({ min: 0, max: 10 ** 9 }).map((n) => (n / 100).toFixed(2)),
    fc
      .date({ min: new Date(2000, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true })
      .map((d) => d.toISOString()),
    fc.stringMatching(/^[a-z]{1,10}$/),
    fc.stringMatching(/^[a-z]{1,10}$/).map((w) => `https://example.invalid/p/${w}?q=${w}&n=1`),
    fc.stringMatching(/^[A-Za-z0-9 .,:'"<>&-]{1,20}$/).map(decimalEntities),
    fc.stringMatching(/^[A-Za-z0-9 .,:'"<>&-]{1,20}$/).map(hexEntities),
    fc.stringMatching(/^[A-Za-z0-9 .,:'"<>&-]{1,20}$/).map((s) => percentTimes(s, 3)),
    fc.stringMatching(/^[a-z0-9 ]{40,200}$/).map((s) => wrap(b64(s), 64, "\n")),
    fc.integer({ min: 0, max: 9999 }).map((n) => `${n}\u00a0${n}\u2009${n}\u2013${n}\t${n}  ${n}`),
    fc
      .bigInt({ min: 10n ** 15n, max: 10n ** 16n - 1n })
      .filter((n) => !String(n).includes(CARD))
      .map(String),
    fc.constantFrom(
      "&quot;",
      "&amp;",
      "&lt;",
      "&gt;",
      "&nbsp;",
      "&#39;",
      "\\n",
      '\\"',
      "%20",
      "+",
      "\n",
      " ",
    ),
  );
  // A card sent, its digits in a row with only spaces or dashes between, is taken for the card (as
  // a bare run of its digits is): no ordinary text spells one (`4 111 111 111 111 111`).
  const spellsCard = (text: string) => {
    const digits = text.replace(new RegExp(`${CARD_SEPARATOR.source}|\\+`, "g"), "");
    return digits.includes(CARD) || digits.includes(AMEX);
  };
  const ordinary = fc
    .array(ordinaryPiece, { maxLength: 12 })
    .map((pieces) => pieces.join(" "))
    .filter((text) => !spellsCard(text));

  it("ordinary data comes out byte for byte, as text and as JSON", () => {
    fc.assert(
      fc.property(ordinary, (text) => {
        expect(masker.text(text)).toBe(text);
        const json = JSON.stringify({ note: text, n: [1.5, 4111111111111112, 1763780400000] });
        expect(masker.text(json)).toBe(json);
      }),
      { numRuns: 800, seed: 2411 },
    );
  });

  /** One step of spelling: what a target, a logger or a report does to a text on its way. */
  const steps: Record<string, (s: string) => string> = {
    "decimal entities": decimalEntities,
    "hex entities": hexEntities,
    "one entity": (s) => s.replace(/[-\d]/, (c) => `&#x${c.charCodeAt(0).toString(16)};`),
    "percent, every byte": percentEvery,
    "percent, as needed": (s) => encodeURIComponent(s),
    "\\u-escaped": (s) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    "JSON-escaped": (s) => JSON.stringify(s).slice(1, -1),
    "HTML-escaped": (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;"),
    "base64 wrapped at 64": (s) => wrap(b64(`${"z".repeat(45)}${s}`), 64, "\n"),
    "base64 wrapped at 76, CRLF": (s) => wrap(b64(`${"z".repeat(54)}${s}`), 76, "\r\n"),
  };
  const cardGroupings = (card: string) =>
    fc.constantFrom(
      card,
      grouped(card, "\u00a0"),
      grouped(card, "\u2013"),
      grouped(card, "  "),
      grouped(card, "\t"),
    );

  it("a secret in a random chain of spellings: masked, and the ordinary data around it kept exactly", () => {
    const secret = fc.oneof(
      fc.constantFrom(...Object.values(SECRETS)),
      fc.constantFrom(CARD, AMEX).chain(cardGroupings),
    );
    const chain = fc.array(fc.constantFrom(...Object.keys(steps)), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(ordinary, secret, chain, ordinary, (before, value, names, after) => {
        // Base64 is read as such only as the last step (nothing decodes base64 from an escape).
        const order = [
          ...names.filter((n) => !n.startsWith("base64")),
          ...names.filter((n) => n.startsWith("base64")).slice(0, 1),
        ];
        let spelled = value;
        for (const name of order) spelled = (steps[name] as (s: string) => string)(spelled);
        const prefix = `${before} | `;
        const suffix = ` | ${after}`;
        const output = masker.text(`${prefix}${spelled}${suffix}`);
        expect(output.startsWith(prefix), `${order.join(" > ")}: ${output}`).toBe(true);
        expect(output.endsWith(suffix), `${order.join(" > ")}: ${output}`).toBe(true);
        const middle = output.slice(prefix.length, output.length - suffix.length);
        const bare = value.replace(new RegExp(CARD_SEPARATOR.source, "g"), "");
        expect(leaked(middle, bare), `${order.join(" > ")}: ${middle}`).toBeUndefined();
        // Masking what is masked changes nothing; in a JSON string, the JSON stays valid.
        expect(masker.text(output)).toBe(output);
        const json = masker.text(JSON.stringify({ before, echo: spelled, after }));
        const parsed = JSON.parse(json) as Record<string, string>;
        expect([parsed.before, parsed.after]).toEqual([before, after]);
        expect(leaked(parsed.echo as string, bare), `${order.join(" > ")}: ${json}`).toBeUndefined();
      }),
      { numRuns: 800, seed: 2412 },
    );
  });
});
