/**
 * envelope.strict-json over a run's answers: one failed record per endpoint whose answers break
 * it, pointing at them, masked; answers that are not JSON left to envelope.shape; one passed
 * record when none breaks it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { jsonTextIssues, type RecordedExchange } from "../../contract/index.ts";
import { createMasker } from "../../contract/kit/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { strictJsonChecks } from "./json-text-findings.ts";

const SECRET = "sk-live-0123456789";
const masker = createMasker({ secrets: [SECRET] });
let n = 0;

function answer(path: string, body: string, operation?: RecordedExchange["operation"]): RecordedExchange {
  n += 1;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const jsonText = json === undefined ? undefined : jsonTextIssues(Buffer.from(body));
  return {
    id: `spec-${n}`,
    source: "spec",
    ...(operation ? { operation } : {}),
    startedAt: new Date(n).toISOString(),
    durationMs: 1,
    request: { method: "POST", url: `http://127.0.0.1:1${path}`, headers: {}, body: "{}" },
    response: { status: 200, headers: {}, body, json, ...(jsonText ? { jsonText } : {}) },
  };
}

const CREATE = "/api/v1/payin/mobile-commerce/h2h";
const clean = '{"data":null,"result":{"status":"success"}}';
const decoy = '{"data":null,"result":{"status":"error","status":"success"}}';

describe("envelope.strict-json over a run", () => {
  beforeEach(() => {
    n = 0;
  });

  it("passes once, counting the JSON answers, when none breaks it", () => {
    const records = strictJsonChecks(
      [answer(CREATE, clean, "createMobileCommerceOrder"), answer(CREATE, "<html>")],
      REFERENCE_PROFILE,
      masker,
    );
    expect(records).toMatchObject([
      { status: "passed", detail: expect.stringMatching(/^all 1 JSON answer/) },
    ]);
  });

  it("fails once per endpoint, a probe sent to its path counted under it, the first answer's findings given", () => {
    const records = strictJsonChecks(
      [
        answer(CREATE, clean, "createMobileCommerceOrder"),
        answer(CREATE, decoy, "createMobileCommerceOrder"),
        answer(CREATE, decoy),
        answer("/sandbox/v1/clock/advance", `{"a":1,"a":2}`),
      ],
      REFERENCE_PROFILE,
      masker,
    );
    expect(records.map((r) => [r.endpoint, r.status, r.exchanges])).toEqual([
      ["createMobileCommerceOrder", "failed", ["spec-2", "spec-3"]],
      ["/sandbox/v1/clock/advance", "failed", ["spec-4"]],
    ]);
    expect(records[0]?.detail).toMatch(
      /^2 of 3 answer\(s\); first POST \/api\/v1\/payin\/mobile-commerce\/h2h \(spec-2\)/,
    );
    expect(records[0]).toMatchObject({
      required: true,
      subject: "spec-2",
      ruleSource: { kind: "necessary" },
    });
    expect(records[0]?.findings?.[0]).toMatchObject({
      path: "result.status",
      actual: expect.stringMatching(/^duplicate-name: /),
    });
  });

  it("masks a secret the target put in a member name", () => {
    const [record] = strictJsonChecks(
      [answer(CREATE, `{"${SECRET}":1,"${SECRET}":2}`)],
      REFERENCE_PROFILE,
      masker,
    );
    expect(JSON.stringify(record)).not.toContain(SECRET);
  });
});
