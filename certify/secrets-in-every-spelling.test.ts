/**
 * Secrets in every spelling: an echoing target answers every request with what it was
 * sent, re-spelled (card with spaces and dashes, JSON-escaped twice, URL-encoded, base64), and is
 * reached through a base URL with user:password. No report and no console line holds any spelling.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CARD } from "../fixtures/index.ts";
import { REPORT_FILES } from "./reports/index.ts";
import { type HostileTarget, startHostileTarget, writeHostileProfile } from "./testing/hostile-target.ts";
import { spawnCertify } from "./testing/spawn-certify.ts";

const API_KEY = "echo-target-api-key-0123";
const SECOND_KEY = "echo-second-api-key-4567";
const CALLBACK_SECRET = "echo-callback-secret-89ab";
const URL_USER = "certuser";
const URL_PASSWORD = "S3cretPassw0rd";

const card = TEST_CARD.number;
const grouped = (separator: string) => card.match(/.{4}/g)?.join(separator) ?? card;
const b64 = (text: string) => Buffer.from(text).toString("base64");

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
  ];
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
  }
  return spellings;
}

describe("an echoing target reached with credentials in the base URL", () => {
  let target: HostileTarget;
  beforeAll(async () => {
    target = await startHostileTarget((request, body, response) => {
      const authorization = request.headers.authorization ?? "";
      const echoed = {
        codeError: "echo",
        authorization,
        authorizationBase64: b64(authorization),
        keyBase64: b64(authorization.replace(/^Bearer /, "")),
        body,
        bodyJsonEscaped: JSON.stringify(body),
        bodyDoubleEscaped: JSON.stringify(JSON.stringify(body)),
        bodyUrlEncoded: encodeURIComponent(body),
        bodyBase64: b64(body),
        cardSpaced: body.includes(card) ? grouped(" ") : "",
        cardDashed: body.includes(card) ? grouped("-") : "",
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
    const reportDir = join(dir, "reports");
    const baseUrl = target.url.replace("http://", `http://${URL_USER}:${URL_PASSWORD}@`);
    const { exitCode, output } = await spawnCertify({
      H2H_BASE_URL: baseUrl,
      H2H_API_KEY: API_KEY,
      H2H_API_KEY_2: SECOND_KEY,
      H2H_CALLBACK_SECRET: CALLBACK_SECRET,
      H2H_PROFILE: writeHostileProfile(dir),
      H2H_REPORT_DIR: reportDir,
    });
    expect([1, 2], output).toContain(exitCode);
    expect(target.requests).toBeGreaterThan(5);
    const files = readdirSync(reportDir);
    expect(files.sort()).toEqual(Object.values(REPORT_FILES).sort());
    // The echo is in the reports (so the search is not vacuous), masked.
    const json = readFileSync(join(reportDir, REPORT_FILES.json), "utf8");
    expect(json).toContain("bodyDoubleEscaped");
    for (const [where, text] of [
      ...files.map((f) => [f, readFileSync(join(reportDir, f), "utf8")] as const),
      ["console", output] as const,
    ]) {
      for (const [name, spelling] of forbiddenSpellings())
        expect(text.includes(spelling), `${where} holds the ${name} (${spelling.slice(0, 4)}…)`).toBe(false);
    }
  }, 240_000);
});
