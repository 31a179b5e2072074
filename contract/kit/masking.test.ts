import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMasker, credentialsOfUrl, maskCardNumber, maskUrlCredentials } from "./masking.ts";

const API_KEY = "sandbox-key-merchant-1";
const API_KEY_2 = "sandbox-key-merchant-2";
const CALLBACK_SECRET = "sandbox-callback-secret";
const SINK_TOKEN = "0f3c9a7e5b1d4c2a8e6f0b9d7c5a3e1f2b4d6c8a0e9f7b5d3c1a2e4f6b8d0c9a";
const BASE_URL = "http://certifier:S3cret+P%40ss@127.0.0.1:8080/h2h";
const URL_PASSWORD = "S3cret+P@ss";
const CARD = "4111111111111111";
const CVC = "737";

const masker = createMasker({
  secrets: [API_KEY, API_KEY_2, CALLBACK_SECRET, SINK_TOKEN, undefined],
  cardNumbers: [CARD],
  urls: [BASE_URL],
});

describe("masking", () => {
  it("masks an API key sent in a URL's query string, plain and percent-encoded, in a URL and a curl line", () => {
    const url = `http://127.0.0.1:8080/api/v1/payin/mobile-commerce/h2h?api_key=${encodeURIComponent(API_KEY)}`;
    expect(masker.text(url)).toBe("http://127.0.0.1:8080/api/v1/payin/mobile-commerce/h2h?api_key=***");
    expect(masker.text(`curl -X POST '${url}&x=1'`)).not.toContain(API_KEY);
    const odd = createMasker({ secrets: ["k3y/with+odd=chars"] });
    expect(odd.text(`/h2h?api_key=${encodeURIComponent("k3y/with+odd=chars")}`)).toBe("/h2h?api_key=***");
  });

  it("keeps only the last 4 digits of a card number", () => {
    expect(maskCardNumber(CARD)).toBe("************1111");
    expect(masker.text(`{"number":"${CARD}"}`)).toBe('{"number":"************1111"}');
  });

  it("masks a card that runs on into more digits (a derived negative's card one digit too long), escaped too", () => {
    const longer = `${CARD}1111`;
    expect(masker.text(`{"x":"${longer}"}`)).toBe('{"x":"****************1111"}');
    expect(masker.text(encodeURIComponent(`{"x":"${longer}"}`))).toBe(
      `${encodeURIComponent('{"x":"')}****************1111${encodeURIComponent('"}')}`,
    );
    expect(masker.text(JSON.stringify(JSON.stringify({ x: longer })))).not.toContain(CARD);
    // A fraction is still no card: its digits stay.
    expect(masker.text(`rate 19.${longer}`)).toBe(`rate 19.${longer}`);
  });

  it("masks a card glued to other digits, before or after it, however long the run (CI: a phone padded with 1s)", () => {
    // A derived maxLength case: a phone ending in 4 padded with 1s spelled the card inside it.
    const phone = "+7703148964".padEnd(33, "1");
    expect(masker.text(`{"phone":"${phone}"}`)).toBe(`{"phone":"+770314896${"*".repeat(19)}1111"}`);
    // A target that writes the card into a reference of its own, and a run far longer than a card.
    expect(masker.text(`ref 20261126${CARD}`)).toBe(`ref 20261126${"*".repeat(12)}1111`);
    expect(masker.text(`{"ref":"00${CARD}${"7".repeat(30)}"}`)).toBe(`{"ref":"00${"*".repeat(42)}7777"}`);
    for (const spelled of [
      encodeURIComponent(`{"phone":"${phone}"}`),
      JSON.stringify(JSON.stringify({ phone })),
      `12${[...CARD].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join("")}99`,
    ]) {
      expect(masker.text(spelled), spelled).not.toContain(CARD);
      expect(masker.text(spelled)).toMatch(/\*{12}/);
    }
    // Still a number where the run is a decimal's: its fraction, or its integer part, stays whole.
    expect(masker.text(`rate 19.12${CARD}`)).toBe(`rate 19.12${CARD}`);
    expect(masker.text(`amount ${CARD}.50`)).toBe(`amount ${CARD}.50`);
    expect(masker.text(`amount ${CARD}${"0".repeat(40)}.5 and 1.${CARD}e+21`)).toBe(
      `amount ${CARD}${"0".repeat(40)}.5 and 1.${CARD}e+21`,
    );
    // A dotted reference is no number, nor a run longer than any number is written (review).
    expect(masker.text(`v1.2.3${CARD} and 2026.11.26${CARD}.1`)).toBe(
      `v1.2.3${"*".repeat(12)}1111 and 2026.11.26${"*".repeat(12)}1111.1`,
    );
    expect(masker.text(`rate 19.${"0".repeat(65)}${CARD}`)).toBe(
      `rate 19.${"0".repeat(65)}${"*".repeat(12)}1111`,
    );
    expect(masker.text(`${CARD.repeat(6)}.5`)).not.toContain(CARD);
  });

  it("masks an escaped card directly followed by another card (found by review: one pass left it)", () => {
    const several = createMasker({ secrets: [], cardNumbers: ["5555555555554444", CARD] });
    const escaped = [..."5555555555554444"].map((c) => `%3${c}`).join("");
    // The plain card runs on from the escaped one: the whole run is masked but its last 4 digits.
    expect(several.text(`}0.:${escaped}${CARD}`)).toBe(`}0.:${"*".repeat(28)}1111`);
    // Two escaped cards and a plain one in a row: each masked, whichever pass finds it.
    expect(several.text(`${escaped}${escaped}${CARD}`)).toBe(`************4444${"*".repeat(28)}1111`);
    // A card that starts among the last 4 digits of a masked run and goes on escaped: next pass.
    const overlapping = createMasker({ secrets: [], cardNumbers: [CARD, "1111222233334444"] });
    const tail = [..."222233334444"].map((c) => `%3${c}`).join("");
    expect(overlapping.text(`${CARD}${tail}`)).toBe(`${"*".repeat(24)}4444`);
  });

  it("masks each of several cards, escaped, keeping that card's own last 4 digits", () => {
    // All cards are found in one pass; an escaped one is masked as the card whose spelling matched.
    const cards = ["5555555555554444", CARD, "4000000000000002"];
    const several = createMasker({ secrets: [], cardNumbers: cards });
    for (const card of cards) {
      const escaped = [...card].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
      expect(several.text(`pan ${escaped} and ${encodeURIComponent(card)}.`)).toBe(
        `pan ${maskCardNumber(card)} and ${maskCardNumber(card)}.`,
      );
      expect(several.text(`card ${card.replace(/(\d{4})(?=\d)/g, "$1 ")}`)).toBe(
        `card **** **** **** ${card.slice(-4)}`,
      );
    }
  });

  it("masks a card number by its field, and leaves a card-like number elsewhere alone (no Luhn scan)", () => {
    expect(masker.text('{"requisites":{"number":"5555555555554444","cvc":"123"}}')).toBe(
      '{"requisites":{"number":"************4444","cvc":"***"}}',
    );
    expect(masker.text('{"pan":"5555 5555 5555 4444"}')).toBe('{"pan":"**** **** **** 4444"}');
    expect(masker.text('{"paymentDetailsData":{"number":"5555555555554444"}}')).toBe(
      '{"paymentDetailsData":{"number":"5555555555554444"}}',
    );
    expect(masker.text("order 5555555555554444 and ts 1763780400000")).toBe(
      "order 5555555555554444 and ts 1763780400000",
    );
  });

  it("masks a CVC by its key, whatever its value", () => {
    expect(masker.text('{"cvc":"123","cvcHint":"x"}')).toBe('{"cvc":"***","cvcHint":"x"}');
    expect(masker.text('{"CVC": 9876}')).toBe('{"CVC": "***"}');
    expect(masker.text("POST /pay?amount=5&cvc=123&x=1")).toBe("POST /pay?amount=5&cvc=***&x=1");
    // A JSON body URL-encoded by an echoing target, once or twice.
    const encoded = encodeURIComponent('{"cvc":"123","n":1}');
    expect(masker.text(encoded)).toBe(encodeURIComponent('{"cvc":"***","n":1}'));
    expect(masker.text(encodeURIComponent(encoded))).toBe(
      encodeURIComponent(encodeURIComponent('{"cvc":"***","n":1}')),
    );
    expect(masker.text(encodeURIComponent('{"cvc":123}'))).toBe(encodeURIComponent('{"cvc":"***"}'));
    // A CVC masked already is left as it is, and does not hide the next one (in free text).
    expect(masker.text('x "cvc":"***"cvc":"a"cvc":"123" y')).toBe('x "cvc":"***"cvc":"a"cvc":"***" y');
    expect(masker.text("a cvc=*** then cvc=456")).toBe("a cvc=*** then cvc=***");
  });

  it("masks API keys and the callback secret anywhere, and bearer tokens", () => {
    const line =
      "key sandbox-key-merchant-2 and secret=sandbox-callback-secret; Authorization: Bearer other-token";
    expect(masker.text(line)).toBe("key *** and secret=***; Authorization: Bearer ***");
  });

  it("keeps JSON valid: a bearer token inside an escaped string, and a CVC inside a nested JSON string", () => {
    const report = JSON.stringify({
      message: 'use "Authorization: Bearer <API_KEY>"',
      body: JSON.stringify({ cvc: "123" }),
    });
    const masked = masker.text(report);
    expect(() => JSON.parse(masked)).not.toThrow();
    expect(JSON.parse(masked)).toEqual({ message: 'use "Authorization: Bearer ***"', body: '{"cvc":"***"}' });
  });

  it("leaves a reference to an environment variable after Bearer alone, quoted, HTML-escaped or bare", () => {
    for (const line of [
      '--oauth2-bearer "$H2H_API_KEY"',
      "--oauth2-bearer &quot;$H2H_API_KEY&quot;",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell's ${NAME}, not a template
      "Authorization: Bearer ${H2H_API_KEY_2}",
    ])
      expect(masker.text(line)).toBe(line);
    // A token that merely starts like one is still masked.
    expect(masker.text("Authorization: Bearer $H2H_API_KEYabc-secret-rest")).toBe(
      "Authorization: Bearer ***",
    );
    expect(masker.text("Bearer $lower-case-token")).toBe("Bearer ***");
  });

  it("masks Authorization headers keeping the scheme, and secrets in any other header", () => {
    expect(
      masker.headers({
        authorization: `Bearer ${API_KEY}`,
        "x-api-key": "anything",
        "x-echo": `token=${SINK_TOKEN}`,
        "content-type": "application/json",
      }),
    ).toEqual({
      authorization: "Bearer ***",
      "x-api-key": "***",
      "x-echo": "token=***",
      "content-type": "application/json",
    });
  });

  it("masks the base URL's credentials everywhere, and any URL's userinfo", () => {
    expect(credentialsOfUrl(BASE_URL)).toEqual(["S3cret+P%40ss", URL_PASSWORD]);
    expect(credentialsOfUrl("https://apikey-only-1234@host/")).toEqual(["apikey-only-1234"]);
    expect(credentialsOfUrl("https://host/")).toEqual([]);
    expect(maskUrlCredentials("see https://u:pw@h/x and http://k@h")).toBe(
      "see https://u:***@h/x and http://***@h",
    );
    const line = `certifying ${BASE_URL}: password ${URL_PASSWORD}, ${encodeURIComponent(URL_PASSWORD)}`;
    const masked = masker.text(line);
    expect(masked).toBe("certifying http://certifier:***@127.0.0.1:8080/h2h: password ***, ***");
  });

  it("finds a URL's userinfo exactly where the pattern scheme://userinfo@ is, in any text", () => {
    // The pattern, as a regex: the scheme 1 to 31 characters not inside a longer word, then a
    // userinfo of 1 to 512 characters up to "@". maskUrlCredentials finds it from each "://"
    // (faster on long text); both must mask the same.
    const pattern = /(?<![a-zA-Z0-9+.-])([a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\/)([^\s/?#@"'<>\\]{1,512})@/g;
    const byPattern = (text: string) =>
      text.replace(pattern, (_w, scheme: string, userinfo: string) => {
        const colon = userinfo.indexOf(":");
        return `${scheme}${colon === -1 ? "***" : `${userinfo.slice(0, colon)}:***`}@`;
      });
    const pieces = [
      "://",
      "@",
      ":",
      "/",
      "a",
      "Z",
      "9",
      "+",
      ".",
      "-",
      " ",
      '"',
      "http",
      "x".repeat(31),
      "y".repeat(32),
      "u:p",
      "é",
      "%40",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 24 }), (parts) => {
        const text = parts.join("");
        expect(maskUrlCredentials(text)).toBe(byPattern(text));
      }),
      { numRuns: 5000, seed: 15 },
    );
    const long = `${"h".repeat(31)}://${"u".repeat(512)}@x ${"h".repeat(32)}://u:p@x 9ttp://u@x h://${"u".repeat(513)}@x`;
    expect(maskUrlCredentials(long)).toBe(byPattern(long));
    expect(maskUrlCredentials(long)).toBe(
      `${"h".repeat(31)}://***@x ${"h".repeat(32)}://u:p@x 9ttp://u@x h://${"u".repeat(513)}@x`,
    );
  });

  it("masks the sink token as the segment of a callback URL, even one it was not told", () => {
    const other = "a".repeat(40);
    expect(masker.text(`POST /callbacks/${other}/run/r1?x=1`)).toBe("POST /callbacks/***/run/r1?x=1");
    expect(masker.text(`{"url":"http://h/callbacks/${SINK_TOKEN}"}`)).toBe(
      '{"url":"http://h/callbacks/***"}',
    );
  });

  it("masks a Basic credential, and leaves the word Basic alone", () => {
    const basic = Buffer.from(`user:${URL_PASSWORD}x`).toString("base64");
    expect(masker.text(`authorization: Basic ${basic}`)).toBe("authorization: Basic ***");
    expect(masker.text("Basic checks passed")).toBe("Basic checks passed");
  });

  it("masks a structured value, leaving the shape and every number but a card's alone", () => {
    const input = {
      p99: 19.4111111111111,
      id: 4111111111111111,
      requisites: { number: CARD, cvc: 123, lifetimeMonth: "12" },
      headers: [{ name: "authorization", value: `Bearer ${API_KEY}` }],
      apiKey: "not-known-but-a-key",
      note: `the key is ${API_KEY_2}`,
    };
    expect(masker.value(input)).toEqual({
      p99: 19.4111111111111,
      // The card sent, as a number in a field that is not the card's: masked, as a string.
      id: "************1111",
      requisites: { number: "************1111", cvc: "***", lifetimeMonth: "12" },
      headers: [{ name: "authorization", value: "Bearer ***" }],
      apiKey: "***",
      note: "the key is ***",
    });
    expect(input.requisites.cvc).toBe(123);
  });

  it("is idempotent: masking a masked report changes nothing", () => {
    const body = JSON.stringify({ requisites: { number: CARD, cvc: CVC }, pan: "5555 5555 5555 4444" });
    const report = JSON.stringify(
      { a: `${API_KEY} ${CARD}`, cvc: CVC, url: BASE_URL, exchange: { body: masker.text(body) } },
      null,
      2,
    );
    const once = masker.text(report);
    expect(masker.text(once)).toBe(once);
    expect(JSON.parse(JSON.parse(once).exchange.body)).toEqual({
      requisites: { number: "************1111", cvc: "***" },
      pan: "**** **** **** 4444",
    });
  });
});

describe("masking remembers what it masked", () => {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  /** `text` as a JSON string inside JSON, `levels` deep. */
  const nested = (text: string, levels: number) => {
    let out = text;
    for (let i = 0; i < levels; i++) out = JSON.stringify({ v: out });
    return out;
  };

  it("masks a text as a masker that never saw it would, whatever depth it was masked at before", () => {
    const fresh = () => createMasker({ secrets: [API_KEY] });
    const hidden = `blob ${b64(`x ${API_KEY} y`)}`;
    const remembering = fresh();
    // Nested past the depth where base64 is decoded, the text is left as it is there.
    for (const levels of [9, 8, 7, 6, 2, 1, 0]) {
      const text = nested(hidden, levels);
      expect(remembering.text(text), `${levels} deep`).toBe(fresh().text(text));
    }
    expect(remembering.text(hidden)).not.toContain(b64(API_KEY).slice(4, 20));
    // And JSON past that depth is masked as text there (no field rules), as JSON nearer the top.
    const body = JSON.stringify({ requisites: { number: "5555 5555 5555 4444" } });
    const again = fresh();
    for (const levels of [8, 7, 6, 1, 0])
      expect(again.text(nested(body, levels)), `${levels} deep`).toBe(fresh().text(nested(body, levels)));
    expect(again.text(body)).toBe('{"requisites":{"number":"**** **** **** 4444"}}');
  });
});

describe("masking never touches a number", () => {
  /** A seeded generator, so a failure can be replayed. */
  function random(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
  }

  it("leaves 100,000 random floats intact, in JSON and in plain text", () => {
    const next = random(20_261_122);
    const values: number[] = [];
    for (let i = 0; i < 100_000; i++) {
      const magnitude = 10 ** Math.floor(next() * 12 - 4);
      const sign = next() < 0.1 ? -1 : 1;
      values.push(sign * next() * magnitude);
    }
    // Floats whose digits hold the card number sent, and Luhn-valid integers that are not it (the
    // card itself as a JSON integer is masked: a test below).
    values.push(19.4111111111111, 0.4111111111111111, 5555555555554444, 4111111111111.111, 4111111111111110);
    const json = JSON.stringify({ samples: values.map((v) => ({ p99: v, mean: v / 3 })) }, null, 1);
    const masked = masker.text(json);
    expect(masked === json).toBe(true);
    expect(JSON.parse(masked)).toEqual(JSON.parse(json));
    // In plain text a bare run of the very digits of the card sent is masked (nothing tells it
    // from the card), so the plain-text samples leave that one value out.
    const plainValues = values.filter((v) => v !== Number(CARD));
    const lines = plainValues.map((v) => `p99 ${v} ms`).join("\n");
    expect(masker.text(lines) === lines).toBe(true);
    const html = `<td>${plainValues.join("</td><td>")}</td>`;
    expect(masker.text(html) === html).toBe(true);
  });

  it("keeps a provider's answer with floats and Luhn-valid integers byte for byte, and still masks the card", () => {
    const answer = `{"data":{"rate":19.4111111111111,"ref":4111111111111111,"big":5555555555554444,"e":1.4111111111111111e+21,"dec":4111111111111111.5},"echo":{"requisites":{"number":"${CARD}","cvc":"${CVC}"}}}`;
    const masked = masker.text(answer);
    // The card sent, as an integer in a field that is not the card's, is the card: masked as a string.
    expect(masked).toBe(
      '{"data":{"rate":19.4111111111111,"ref":"************1111","big":5555555555554444,"e":1.4111111111111111e+21,"dec":4111111111111111.5},"echo":{"requisites":{"number":"************1111","cvc":"***"}}}',
    );
    expect(() => JSON.parse(masked)).not.toThrow();
  });
});

describe("masking: every spelling of every secret", () => {
  const percentAll = (s: string) =>
    [...Buffer.from(s, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  const unicodeEscaped = (s: string) =>
    [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  const jsonEscaped = (s: string, times: number) => {
    let out = s;
    for (let i = 0; i < times; i++) out = JSON.stringify(out).slice(1, -1);
    return out;
  };
  const html = (s: string) =>
    s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/'/g, "&#39;");
  const base64 = (s: string, prefix = "") => Buffer.from(prefix + s, "utf8").toString("base64");
  const base64url = (s: string, prefix = "") => Buffer.from(prefix + s, "utf8").toString("base64url");

  /** How a secret may be written on its way into a report. */
  function spellings(secret: string): Record<string, string> {
    const out: Record<string, string> = {
      raw: secret,
      "JSON-escaped": jsonEscaped(`"${secret}"`, 1),
      "double-escaped": jsonEscaped(`"${secret}"`, 2),
      "triple-escaped": jsonEscaped(`"${secret}"`, 3),
      "\\u-escaped": unicodeEscaped(secret),
      "URL-encoded": encodeURIComponent(secret),
      "percent-encoded (every byte)": percentAll(secret),
      "percent-encoded twice": encodeURIComponent(percentAll(secret)),
      "form-encoded": new URLSearchParams({ v: secret }).toString().slice(2),
      "HTML-escaped": html(`"${secret}"`),
      base64: base64(secret),
      base64url: base64url(secret),
      "base64 at offset 1": base64(secret, "x"),
      "base64 at offset 2": base64(secret, "xy"),
      "base64 of user:secret": base64(secret, "user:"),
    };
    if (/^\d{16}$/.test(secret)) {
      out["with spaces"] = secret.replace(/(\d{4})(?=\d)/g, "$1 ");
      out["with dashes"] = secret.replace(/(\d{4})(?=\d)/g, "$1-");
      out["with spaces, URL-encoded"] = encodeURIComponent(out["with spaces"] as string);
      out["with dashes, JSON-escaped twice"] = jsonEscaped(`"${out["with dashes"]}"`, 2);
    }
    return out;
  }

  /** Every place a spelling can sit in: a report holds JSON, HAR, HTML, headers and console lines. */
  const contexts: Record<string, (spelled: string) => string> = {
    "plain text": (s) => `got ${s} from the target`,
    "a JSON string": (s) => JSON.stringify({ body: `echo ${s} end`, n: 19.4111111111111 }),
    "raw JSON text": (s) => `{"echo":"${s}","n":5555555555554444}`,
    "a HAR entry": (s) =>
      JSON.stringify({
        log: { entries: [{ response: { content: { text: JSON.stringify({ data: { echo: s } }) } } }] },
      }),
    "an HTML cell": (s) => `<pre>{&quot;echo&quot;:&quot;${s}&quot;}</pre>`,
    "a URL query": (s) => `http://127.0.0.1:9/callbacks/run/x?echo=${s}&n=1`,
    // An echoing target URL-encodes the JSON body it got: the quote before is `%22`.
    "a URL-encoded JSON string": (s) =>
      JSON.stringify({ echo: encodeURIComponent(`{"number":"`) + s + encodeURIComponent(`","n":1}`) }),
    "a \\u-escaped quote before": (s) => `{"echo":"\\u0022${s}\\u0022"}`,
  };

  const secrets: Record<string, string> = {
    "API key": API_KEY,
    "second API key": API_KEY_2,
    "callback secret": CALLBACK_SECRET,
    "sink token": SINK_TOKEN,
    "base URL password": URL_PASSWORD,
    "card number": CARD,
  };

  function leaks(output: string, secret: string): string[] {
    const found: string[] = [];
    const all = spellings(secret);
    for (const [name, spelled] of Object.entries(all)) {
      // Base64 spellings: only the part that depends on the secret alone counts.
      const probe = name.startsWith("base64") ? spelled.slice(8, -4) : spelled;
      if (probe.length >= 6 && output.includes(probe)) found.push(name);
    }
    for (const run of output.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? []) {
      for (const encoding of ["base64", "base64url"] as const) {
        if (Buffer.from(run, encoding).toString("latin1").includes(secret)) found.push(`decoded ${run}`);
      }
    }
    return found;
  }

  for (const [secretName, secret] of Object.entries(secrets)) {
    for (const [spellingName, spelled] of Object.entries(spellings(secret))) {
      it(`${secretName}, ${spellingName}: masked in every context, and JSON stays valid`, () => {
        for (const [contextName, place] of Object.entries(contexts)) {
          const input = place(spelled);
          const output = masker.text(input);
          expect(leaks(output, secret), `${contextName}: ${output}`).toEqual([]);
          if (
            contextName !== "plain text" &&
            contextName !== "an HTML cell" &&
            contextName !== "a URL query"
          ) {
            expect(() => JSON.parse(output), `${contextName}: ${output}`).not.toThrow();
          }
          if (secret === CARD && !spellingName.startsWith("base64")) {
            expect(output, `${contextName}: ${output}`).toMatch(/1111/);
          }
        }
      });
    }
  }

  it("masks a CVC by field in every spelling of the field", () => {
    const body = { requisites: { number: CARD, cvc: CVC } };
    const once = JSON.stringify(body);
    const cases = [
      once,
      JSON.stringify({ body: once }),
      JSON.stringify({ body: JSON.stringify({ body: once }) }),
      html(once),
      html(JSON.stringify({ body: once })),
      `log: ${once}`,
      `log: ${JSON.stringify(once)}`,
      `cvc=${CVC}&number=${CARD}`,
      `{"requisites":{"number":"${CARD}","cvc":${CVC}}}`,
    ];
    for (const input of cases) {
      const output = masker.text(input);
      expect(output, input).not.toMatch(new RegExp(`(?<!\\d)${CVC}(?!\\d)`));
      expect(output, input).not.toContain(CARD);
    }
  });
});

describe("masking: hostile input", () => {
  it("masks long runs of the characters its patterns start with without backtracking blow-ups", () => {
    // Each input would take minutes under a pattern that rescans a run from every position; the
    // test's timeout is what fails then.
    const n = 256 * 1024;
    const inputs = [
      "x".repeat(n),
      "\\".repeat(n),
      '"'.repeat(n),
      "%".repeat(n),
      "http://".repeat(n / 7),
      `a://${"b".repeat(n)}`,
      "4".repeat(n),
      "4 ".repeat(n / 2),
      // Cards in one run that ends as a decimal: no card's run-on may be walked back from (a run
      // four times as long: rescanned from each card, it takes minutes, not the 10 s of n).
      `${"4111111111111111".repeat(n / 4)}.5`,
      `${"4111111111111111".repeat(n / 4)}`,
      '"cvc":"'.repeat(n / 7),
      `{"a":"${"\\\\".repeat(n / 2)}`,
      "QUJD".repeat(n / 4),
      "&quot;".repeat(n / 6),
      "Bearer ".repeat(n / 7),
      "[".repeat(n),
      '{"a":'.repeat(n / 5),
      // Escapes a decoded view follows: every window is decoded at most eight layers deep.
      "&#52;".repeat(n / 5),
      "&amp;#".repeat(n / 6),
      "%2525".repeat(n / 5),
      "\\u0034".repeat(n / 6),
      "&#52;&#49;&#49;&#49;".repeat(n / 20),
      "%34%31%31%31%20".repeat(n / 15),
      "4\u00a0".repeat(n / 2),
      "4\u2013 ".repeat(n / 3),
      "QUJDQUJDQUJDQUJDQUJD\n".repeat(n / 21),
      "QUJDQUJDQUJDQUJDQUJD\\r\\n".repeat(n / 24),
    ];
    for (const input of inputs) expect(masker.text(input).length).toBeGreaterThan(0);
  });

  it("keeps a truncated JSON body's shape: a string cut short, junk after the value", () => {
    expect(masker.text(`{"echo":"${API_KEY} and more`)).toBe('{"echo":"*** and more');
    expect(masker.text(`{"a":1} trailing ${CALLBACK_SECRET}`)).toBe('{"a":1} trailing ***');
  });
});

describe("masking: spellings of several secrets, as one regex of them all would", () => {
  const near = createMasker({ secrets: ["key-merchant-1", "key-merchant-12", "merchant-12-x"] });

  it("masks the longest secret that starts at a place, in any spelling", () => {
    expect(near.text("a key-merchant-1%32 b")).toBe("a *** b");
    expect(near.text("a key-merchant-1%2F b")).toBe("a ***%2F b");
  });

  it("looks for each secret whose first characters are spelled in the text, secrets sharing them alike", () => {
    // The key and the callback secret share "san" (one test of it for both); the third starts otherwise.
    const shared = createMasker({ secrets: [API_KEY, CALLBACK_SECRET, "other-secret-value"] });
    expect(shared.text("a sandbox-callback%2Dsecret b &amp; other-secret-value")).toBe("a *** b &amp; ***");
    expect(shared.text("a &#115;andbox-key-merchant-1%20 and sandbox-callback-secret")).toBe(
      "a ***%20 and ***",
    );
    expect(shared.text("a %73andbox-other & sandbox")).toBe("a %73andbox-other & sandbox");
  });

  it("masks the leftmost of two overlapping spellings, and what is left of the other stays", () => {
    expect(near.text("a key-%6Derchant-12-x b")).toBe("a ***-x b");
    expect(near.text("a &#107;ey-merchant-1 and merchant-12-x%20")).toBe("a *** and ***%20");
  });
});

describe("masking: a secret shorter than SAFE_SECRET_LENGTH, as a whole token only", () => {
  const SHORT_KEY = "2026";
  const short = createMasker({ secrets: [SHORT_KEY, "sandbox-callback-secret"], cardNumbers: [CARD] });

  it("leaves dates, run ids, amounts and longer words that hold it alone", () => {
    const report = {
      runId: "run-20261206T194512-a1b2c3",
      startedAt: "2026-12-06T19:45:12.345Z",
      message: "order 2026 of year 2026-12",
      amount: 2026,
      merchantOrderID: "order-2026-000017",
      note: "id=X2026&z=1",
    };
    const text = JSON.stringify(report, null, 2);
    expect(short.text(text)).toBe(text);
    expect(short.value(report)).toEqual(report);
    expect(short.text(`certified at ${report.startedAt}, run ${report.runId}`)).toBe(
      `certified at ${report.startedAt}, run ${report.runId}`,
    );
  });

  it("masks it as a header value, a whole JSON string, a query or form value, after Bearer", () => {
    expect(
      short.headers({ Authorization: `Bearer ${SHORT_KEY}`, "X-Merchant-Key": SHORT_KEY, Date: "2026" }),
    ).toEqual({ Authorization: "Bearer ***", "X-Merchant-Key": "***", Date: "***" });
    expect(short.text(`{"key":"${SHORT_KEY}","year":"2026-12-06","list":["${SHORT_KEY}"]}`)).toBe(
      '{"key":"***","year":"2026-12-06","list":["***"]}',
    );
    expect(short.text(`{"x":"\\u0032026"}`)).toBe('{"x":"***"}');
    expect(short.text(`GET /api/v1/orders?apiKey=${SHORT_KEY}&date=2026-12-06 HTTP/1.1`)).toBe(
      "GET /api/v1/orders?apiKey=***&date=2026-12-06 HTTP/1.1",
    );
    expect(short.text(`key=${SHORT_KEY}&year=20261`)).toBe("key=***&year=20261");
    expect(short.text(`curl -H 'X-Api-Key: ${SHORT_KEY}' -H "Authorization: Bearer ${SHORT_KEY}"`)).toBe(
      `curl -H 'X-Api-Key: ***' -H "Authorization: Bearer ***"`,
    );
    expect(short.value({ headers: [{ name: "x-key", value: SHORT_KEY }] })).toEqual({
      headers: [{ name: "x-key", value: "***" }],
    });
  });

  it("keeps every spelling of the long secrets and cards beside it", () => {
    expect(short.text(`a sandbox-callback-secret b ${encodeURIComponent("sandbox-callback-secret")}`)).toBe(
      "a *** b ***",
    );
    expect(short.text(`card ${CARD}`)).toBe("card ************1111");
  });

  it("masks derived secrets (a long key's near misses) everywhere from 4 characters", () => {
    const derived = createMasker({ secrets: ["abcdefgh"], derivedSecrets: ["abcdefg", "abc"] });
    expect(derived.text("said abcdefg and abc and abcdefgh")).toBe("said *** and abc and ***");
  });
});
