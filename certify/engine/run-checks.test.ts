/**
 * The engine's run-scope pass: every registered check of scope `run` judges the run's exchanges,
 * with no list of them in the engine (a check registered here is run too). Then the records of
 * envelope.strict-json over a run: one failed record per endpoint whose answers break it,
 * pointing at them, masked; answers that are not JSON left to envelope.shape; one passed record
 * when none breaks it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  CHECK_REGISTRY,
  checksOfScope,
  defineCheck,
  jsonTextIssues,
  type RecordedExchange,
} from "../../contract/index.ts";
import { createMasker } from "../../contract/kit/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { runScopeCheckNames, runScopeChecks } from "./run-checks.ts";

const strictJsonChecks = (...args: Parameters<typeof runScopeChecks>) =>
  runScopeChecks(...args).filter((r) => r.check === "envelope.strict-json");

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

describe("the run-scope pass", () => {
  beforeEach(() => {
    n = 0;
  });

  it("runs the run-scope checks the contract registers, each over the run, as the runner's", () => {
    expect(runScopeCheckNames()).toEqual(
      expect.arrayContaining([
        "behaviour.no-server-error",
        "envelope.strict-json",
        "envelope.request-id-unique",
        "envelope.within-size-limit",
        "semantics.order-id-unique",
      ]),
    );
    const records = runScopeChecks(
      [answer(CREATE, clean, "createMobileCommerceOrder")],
      REFERENCE_PROFILE,
      masker,
    );
    expect(new Set(records.map((r) => r.check))).toEqual(new Set(runScopeCheckNames()));
    expect(records.every((r) => r.source === "runner" && r.ruleSource !== undefined)).toBe(true);
  });

  it("runs a check registered with scope run that it was never told of, masked, with its basis", () => {
    const judge = (id: string) => ({ ok: false, detail: `${id} carries ${SECRET}` });
    const scratch = defineCheck<string>(
      "envelope.scratch-run-wide",
      "envelope",
      "A scratch rule the engine has never heard of (§4).",
      judge,
      { overRun: ({ exchanges }) => exchanges.map((e) => ({ outcome: judge(e.id), exchanges: [e.id] })) },
    );
    let records: ReturnType<typeof runScopeChecks>;
    // Test files share a worker's modules: the scratch check must not outlive this test.
    try {
      expect(checksOfScope("run")).toContain(scratch);
      records = runScopeChecks([answer(CREATE, clean)], REFERENCE_PROFILE, masker).filter(
        (r) => r.check === scratch.name,
      );
    } finally {
      CHECK_REGISTRY.delete(scratch.name);
    }
    expect(records).toEqual([
      expect.objectContaining({
        endpoint: "(all endpoints)",
        status: "failed",
        required: true,
        exchanges: ["spec-1"],
        ruleSource: { kind: "stated", sections: ["§4"] },
      }),
    ]);
    expect(JSON.stringify(records)).not.toContain(SECRET);
  });

  it("runs an exchange check with overExchange on every answer, one record each, and skips what it leaves", () => {
    const judge = (status: number) =>
      status === 200 ? { ok: true, detail: "answered 200" } : { ok: false, detail: `HTTP ${status}` };
    const scratch = defineCheck<number>(
      "envelope.scratch-per-answer",
      "envelope",
      "A scratch rule of one answer the engine has never heard of (§4).",
      judge,
      {
        overExchange: (exchange) =>
          exchange.request.method === "POST" ? { outcome: judge(exchange.response.status) } : undefined,
      },
    );
    const accepted = answer(CREATE, clean);
    const refused = { ...accepted, id: "spec-2", response: { ...accepted.response, status: 400 } };
    let records: ReturnType<typeof runScopeChecks>;
    try {
      expect(scratch.scope).toBe("exchange");
      expect(runScopeCheckNames()).toContain(scratch.name);
      records = runScopeChecks([accepted, refused], REFERENCE_PROFILE, masker).filter(
        (r) => r.check === scratch.name,
      );
    } finally {
      CHECK_REGISTRY.delete(scratch.name);
    }
    expect(records.map((r) => [r.subject, r.status, r.exchanges])).toEqual([
      ["spec-1", "passed", ["spec-1"]],
      ["spec-2", "failed", ["spec-2"]],
    ]);
    expect(() =>
      defineCheck(
        "callbacks.scratch-wrong-scope",
        "callbacks",
        "A scratch (§6).",
        () => ({ ok: true, detail: "" }),
        {
          overExchange: () => undefined,
        },
      ),
    ).toThrow(/only an exchange check has overExchange/);
  });

  it("judges every answer's size: a record per cut answer, else one passed record", () => {
    const cut = answer(CREATE, clean, "createMobileCommerceOrder");
    cut.response = {
      ...cut.response,
      truncated: true,
      limitBytes: 10,
      size: { bytes: 100, from: "counted" },
    };
    const size = (of: RecordedExchange[]) =>
      runScopeChecks(of, REFERENCE_PROFILE, masker).filter((r) => r.check === "envelope.within-size-limit");
    expect(size([answer(CREATE, clean)])).toMatchObject([
      { status: "passed", detail: expect.stringMatching(/^all 1 answer\(s\) within the limit of /) },
    ]);
    expect(size([answer(CREATE, clean), cut])).toMatchObject([
      {
        status: "failed",
        case: `POST ${CREATE} (${cut.id})`,
        exchanges: [cut.id],
        detail: expect.stringContaining("100 bytes (counted), over the limit of 10 bytes"),
      },
    ]);
  });

  it("skips order-id uniqueness with fewer than two orders, and waits on envelope.shape for request ids", () => {
    const records = runScopeChecks(
      [answer(CREATE, "<html>", "createMobileCommerceOrder")],
      REFERENCE_PROFILE,
      masker,
    );
    expect(records.find((r) => r.check === "semantics.order-id-unique")).toMatchObject({
      status: "skipped",
      reason: "the run created 0 order(s): uniqueness needs two",
    });
    expect(records.find((r) => r.check === "envelope.request-id-unique")).toMatchObject({
      status: "not evaluated",
      blockedBy: { check: "envelope.shape" },
    });
  });
});

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
