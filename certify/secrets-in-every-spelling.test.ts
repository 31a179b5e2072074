/**
 * Secrets in every spelling: an echoing target answers every request with what it was
 * sent, re-spelled (card with spaces, dashes or any Unicode space or dash, JSON-escaped twice,
 * URL-encoded up to three times, HTML numeric entities, base64 whole or wrapped in lines, the card as
 * a JSON number), and is reached through a base URL with user:password. No report and no console
 * line holds any spelling. The run is in this process (as `npm run certify` runs it, every report
 * written): its console is what it prints, and whatever else reaches this process's console meanwhile.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CARD } from "../fixtures/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { REPORT_FILES, REPORT_KINDS } from "./reports/index.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";
import { type HostileTarget, startHostileTarget, writeHostileProfile } from "./testing/hostile-target.ts";
import { captureStrayOutput } from "./testing/stray-output.ts";

fileTimeout(240_000);

const API_KEY = "echo-target-api-key-0123";
const SECOND_KEY = "echo-second-api-key-4567";
const CALLBACK_SECRET = "echo-callback-secret-89ab";
const URL_USER = "certuser";
const URL_PASSWORD = "S3cretPassw0rd";

const card = TEST_CARD.number;
const grouped = (separator: string) => card.match(/.{4}/g)?.join(separator) ?? card;
const b64 = (text: string) => Buffer.from(text).toString("base64");
const entities = (text: string) => [...text].map((c) => `&#${c.codePointAt(0)};`).join("");
const hexEntities = (text: string) =>
  [...text].map((c) => `&#x${(c.codePointAt(0) as number).toString(16)};`).join("");
/** Every byte percent-encoded, then the whole encoded twice more: three layers. */
const percent3 = (text: string) =>
  encodeURIComponent(
    encodeURIComponent(
      [...Buffer.from(text)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
    ),
  );
const wrap = (text: string, width: number, lineBreak: string) =>
  (text.match(new RegExp(`.{1,${width}}`, "g")) ?? []).join(lineBreak);
/** The separators a card is grouped by in the echo, besides a space and a dash. */
const CARD_SEPARATORS: Record<string, string> = {
  NBSP: "\u00a0",
  "thin space": "\u2009",
  "narrow NBSP": "\u202f",
  tab: "\t",
  "double space": "  ",
  "en dash": "\u2013",
};
/** The parts of a secret's base64 that do not depend on what is around it, at its three alignments. */
const base64Fragments = (secret: string) =>
  [0, 1, 2].map((offset) =>
    b64("\0".repeat(offset) + secret).slice(
      Math.ceil((8 * offset) / 6),
      Math.floor((8 * (offset + secret.length)) / 6),
    ),
  );
/** A report's text with its line breaks (as is or JSON-escaped at any depth) taken out: lines joined. */
const unwrapped = (text: string) => text.replace(/\r?\n|(?:\\+r)?\\+n/g, "");

/** Every spelling that must not survive, with a name for the failure message. */
function forbiddenSpellings(): [string, string][] {
  const spellings: [string, string][] = [
    ["card", card],
    ["card with spaces", grouped(" ")],
    ["card with dashes", grouped("-")],
    ["CVC in JSON", `"cvc":"${TEST_CARD.cvc}"`],
    ["CVC JSON-escaped", `\\"cvc\\":\\"${TEST_CARD.cvc}\\"`],
    ["CVC double-escaped", `\\\\\\"cvc\\\\\\":\\\\\\"${TEST_CARD.cvc}`],
    ["CVC URL-encoded", `%22cvc%22%3A%22${TEST_CARD.cvc}%22`],
    ["URL password", URL_PASSWORD],
    ["URL password base64", b64(`${URL_USER}:${URL_PASSWORD}`)],
    ["card as decimal entities", entities(card)],
    ["card as hex entities", hexEntities(card)],
    ["card grouped by &nbsp;", (card.match(/.{4}/g) ?? []).join("&nbsp;")],
    ["card percent-encoded 3 times", percent3(card)],
    ["CVC percent-encoded 3 times", percent3(`"cvc":"${TEST_CARD.cvc}"`)],
  ];
  for (const [name, separator] of Object.entries(CARD_SEPARATORS))
    spellings.push([`card grouped by ${name}`, grouped(separator)]);
  for (const [name, secret] of [
    ["API key", API_KEY],
    ["second key", SECOND_KEY],
    ["callback secret", CALLBACK_SECRET],
  ] as const) {
    spellings.push(
      [name, secret],
      [`${name} base64`, b64(secret)],
      [`${name} URL-encoded`, encodeURIComponent(secret)],
    );
    spellings.push([`${name} bearer base64`, b64(`Bearer ${secret}`)]);
    spellings.push(
      [`${name}, one character as an entity`, secret.replace("-", "&#x2d;")],
      [`${name}'s part after that entity`, secret.slice(secret.indexOf("-") + 1)],
      [`${name} as decimal entities`, entities(secret)],
      [`${name} as hex entities`, hexEntities(secret)],
      [`${name} percent-encoded 3 times`, percent3(secret)],
    );
  }
  return spellings;
}

describe("an echoing target reached with credentials in the base URL", () => {
  let target: HostileTarget;
  beforeAll(async () => {
    target = await startHostileTarget((request, body, response) => {
      const authorization = request.headers.authorization ?? "";
      const key = authorization.replace(/^Bearer /, "");
      const echoed = {
        codeError: "echo",
        authorization,
        authorizationBase64: b64(authorization),
        keyBase64: b64(key),
        body,
        bodyJsonEscaped: JSON.stringify(body),
        bodyDoubleEscaped: JSON.stringify(JSON.stringify(body)),
        bodyUrlEncoded: encodeURIComponent(body),
        bodyBase64: b64(body),
        cardSpaced: body.includes(card) ? grouped(" ") : "",
        cardDashed: body.includes(card) ? grouped("-") : "",
        cardGrouped: body.includes(card) ? Object.values(CARD_SEPARATORS).map(grouped) : [],
        cardEntities: body.includes(card)
          ? [entities(card), hexEntities(card), (card.match(/.{4}/g) ?? []).join("&nbsp;")]
          : [],
        // The card as a JSON number, in a field that is not the card's.
        note: body.includes(card) ? Number(card) : 0,
        // The key alone (after `Bearer` it would be masked by its place).
        keyEntities: [key.replace("-", "&#x2d;"), entities(key), hexEntities(key)],
        keyPercent3: percent3(key),
        bodyPercent3: percent3(body),
        // Base64 in lines, the key across a line break (the padding puts it there).
        authorizationWrapped64: wrap(b64(`${"x".repeat(40)}${authorization}${" ".repeat(60)}`), 64, "\n"),
        authorizationWrapped76: wrap(b64(`${"x".repeat(50)}${authorization}${" ".repeat(60)}`), 76, "\r\n"),
        bodyWrapped76: wrap(b64(body), 76, "\r\n"),
        host: request.headers.host,
        basic: request.headers["proxy-authorization"] ?? "",
      };
      const text = JSON.stringify(echoed);
      response.writeHead(400, { "content-type": "application/json", "x-echo-authorization": authorization });
      response.end(text);
    });
  });
  afterAll(() => target.stop());

  it("leaks no secret, in any spelling, into any report or the console", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-echo-"));
    const baseUrl = target.url.replace("http://", `http://${URL_USER}:${URL_PASSWORD}@`);
    const stray = captureStrayOutput();
    const run = await certifyInProcess(
      {
        H2H_BASE_URL: baseUrl,
        H2H_API_KEY: API_KEY,
        H2H_API_KEY_2: SECOND_KEY,
        H2H_CALLBACK_SECRET: CALLBACK_SECRET,
        H2H_PROFILE: writeHostileProfile(dir),
      },
      { reports: REPORT_KINDS },
    ).finally(() => stray.restore());
    const { exitCode, reportDir } = run;
    const output = `${run.output}\n${stray.text()}`;
    expect([1, 2], output).toContain(exitCode);
    expect(target.requests).toBeGreaterThan(5);
    const files = readdirSync(reportDir);
    expect(files.sort()).toEqual(Object.values(REPORT_FILES).sort());
    // The echo is in the reports (so the search is not vacuous), masked.
    const json = readFileSync(join(reportDir, REPORT_FILES.json), "utf8");
    expect(json).toContain("bodyDoubleEscaped");
    expect(json).toContain("authorizationWrapped76");
    // Every leak is listed, not only the first: a failure names each spelling that got through.
    const leaks: string[] = [];
    for (const [where, text] of [
      ...files.map((f) => [f, readFileSync(join(reportDir, f), "utf8")] as const),
      ["console", output] as const,
    ]) {
      for (const [name, spelling] of forbiddenSpellings())
        if (text.includes(spelling)) leaks.push(`${where} holds the ${name} (${spelling.slice(0, 4)}…)`);
      // Base64 wrapped in lines: with the lines joined, no part of it spells a secret.
      const joined = unwrapped(text);
      for (const [name, secret] of [
        ["API key", API_KEY],
        ["second key", SECOND_KEY],
        ["callback secret", CALLBACK_SECRET],
        ["card", card],
      ] as const)
        if (base64Fragments(secret).some((fragment) => joined.includes(fragment)))
          leaks.push(`${where} holds the ${name} in wrapped base64`);
    }
    expect(leaks).toEqual([]);
  });
});
