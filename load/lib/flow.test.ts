/**
 * The load flow and its checks, in Node: the answers are the reference provider's own, from its
 * transport-free handler, synchronous as k6's http.post is (with and without faults);
 * `json(selector)` is k6's GJSON selection, emulated.
 */
import { afterEach, describe, expect, it } from "vitest";
import { buildContract } from "../../contract/index.ts";
import { type ConfirmedStatus, endpointPath, type OperationName } from "../../contract/schemas/names.ts";
import { buildMobileCommerceOrderRequest } from "../../fixtures/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { createReferenceProvider, type ReferenceProvider } from "../../fixtures/providers/reference/index.ts";
import { bundledProfileOf } from "../harness/build.ts";
import { buildContractDigest } from "../harness/digest.ts";
import { postTo } from "../testing/k6-stubs.ts";
import { parseLoadConfig } from "./config.ts";
import {
  createOrderFlow,
  type FlowRuntime,
  type HttpAnswer,
  MAX_WARNINGS_PER_VU,
  type RequestParams,
} from "./flow.ts";
import { compileAnswerRules, escapeGjson, fieldsMatch, judgeBasic } from "./response-rules.ts";

const profile = bundledProfileOf(REFERENCE_PROFILE);
const digest = buildContractDigest(buildContract(REFERENCE_PROFILE.gaps));

const providers: ReferenceProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.stop()));
});

/** The reference provider's handler, switched into `fault` ("" for none); no status change is due in a test. */
function target(fault: string): (url: string, body: string, params: RequestParams) => HttpAnswer {
  const provider = createReferenceProvider({ faults: fault ? [fault] : [], processingDelayMs: 600_000 });
  providers.push(provider);
  const post = postTo(provider);
  return (url, body, params) => post(url, body, params.headers);
}

/** One real answer of the provider to an operation, for the rule tests. */
function answerOf(fault: string, operation: OperationName, apiKey = "sandbox-key-merchant-1"): HttpAnswer {
  const post = target(fault);
  const headers = { "content-type": "application/json", authorization: `Bearer ${apiKey}` };
  const params = (name: OperationName): RequestParams => ({ headers, tags: { name }, timeout: 5000 });
  const created = post(
    `http://127.0.0.1:9${endpointPath("createMobileCommerceOrder")}`,
    JSON.stringify(
      buildMobileCommerceOrderRequest({ methodID: 101, amount: 1500, merchantOrderID: "flow-test" }),
    ),
    params("createMobileCommerceOrder"),
  );
  if (operation === "createMobileCommerceOrder") return created;
  const id = (JSON.parse(created.body ?? "{}") as { data?: { id?: string } }).data?.id ?? "none";
  return post(
    `http://127.0.0.1:9${endpointPath("confirmMobileCommerceOrder", id)}`,
    JSON.stringify({ code: "1111" }),
    params(operation),
  );
}

interface Recorded {
  posts: { url: string; body: string; params: RequestParams }[];
  checks: Record<string, boolean>[];
  confirmed: ConfirmedStatus[];
  errors: { codeError: string; operation: OperationName }[];
  transportErrors: { errorCode: string; operation: OperationName }[];
  notes: string[];
  warnings: string[];
  sleeps: number[];
}

function runtime(fault: string, randoms: number[] = []): { runtime: FlowRuntime; recorded: Recorded } {
  const recorded: Recorded = {
    posts: [],
    checks: [],
    confirmed: [],
    errors: [],
    transportErrors: [],
    notes: [],
    warnings: [],
    sleeps: [],
  };
  let clock = 1_700_000_000_000;
  const post = target(fault);
  return {
    recorded,
    runtime: {
      post(url, body, params) {
        recorded.posts.push({ url, body, params });
        return post(url, body, params);
      },
      check: (results) => recorded.checks.push({ ...results }),
      now: () => (clock += 5),
      random: () => randoms.shift() ?? 0.99,
      sleep: (seconds) => recorded.sleeps.push(seconds),
      businessError: (codeError, operation) => recorded.errors.push({ codeError, operation }),
      transportError: (errorCode, operation) => recorded.transportErrors.push({ errorCode, operation }),
      orderConfirmed: (final) => recorded.confirmed.push(final),
      noteTrigger: (url) => recorded.notes.push(url),
      warn: (message) => recorded.warnings.push(message),
      vuId: () => 7,
    },
  };
}

const config = (extra: Record<string, string> = {}) =>
  parseLoadConfig(
    {
      H2H_BASE_URL: "http://127.0.0.1:9",
      H2H_API_KEY: "sandbox-key-merchant-1",
      H2H_RUN_ID: "run-1",
      H2H_CALLBACK_URL: "http://127.0.0.1:9/callbacks/tok",
      H2H_SCENARIO: "load",
      ...extra,
    },
    profile,
  );

describe("load flow", () => {
  it("sends the payload builder's body, with the run's merchantOrderID and a callback URL saying when and what to expect", () => {
    const { runtime: rt, recorded } = runtime("", [0.1]);
    const flow = createOrderFlow(config({ H2H_FAILURE_SHARE: "0.2" }), JSON.stringify(digest), rt);
    const outcome = flow("mobile_commerce");
    expect(outcome).toMatchObject({ created: true, confirmed: true, expectedFinal: "failed_by_terminal" });
    const [create, confirm] = recorded.posts;
    expect(create?.url).toBe(`http://127.0.0.1:9${endpointPath("createMobileCommerceOrder")}`);
    expect(JSON.parse(create?.body ?? "")).toEqual(
      buildMobileCommerceOrderRequest({
        methodID: 101,
        amount: 1500,
        merchantOrderID: "run-1-mc-7-0",
        webHook: "http://127.0.0.1:9/callbacks/tok/run/run-1/at/1700000000005/expect/failed_by_terminal",
      }),
    );
    expect(create?.params).toMatchObject({
      tags: { name: "createMobileCommerceOrder" },
      headers: { authorization: "Bearer sandbox-key-merchant-1" },
      timeout: 5000,
    });
    expect(confirm?.url).toBe(
      `http://127.0.0.1:9${endpointPath("confirmMobileCommerceOrder", outcome.orderId)}`,
    );
    expect(JSON.parse(confirm?.body ?? "")).toEqual({ code: "2222" });
    expect(recorded.confirmed).toEqual(["failed_by_terminal"]);
    // Then the sink is told when the confirmation was answered: callbackMs counts from there.
    expect(recorded.notes).toEqual([
      `http://127.0.0.1:9/callbacks/tok/run/run-1/at/1700000000005/expect/failed_by_terminal/order/${outcome.orderId}/triggered/1700000000010`,
    ]);
    // The next order of the VU gets the next id.
    flow("mobile_commerce");
    expect(JSON.parse(recorded.posts[2]?.body ?? "").merchantOrderID).toBe("run-1-mc-7-1");
  });

  it("counts a request that got no answer (a refused connection) as a transport error, never a business error", () => {
    const { runtime: rt, recorded } = runtime("");
    // k6's answer to a refused connection: status 0, no body, error_code 1212.
    rt.post = (url, body, params) => {
      recorded.posts.push({ url, body, params });
      return { status: 0, body: null, json: () => undefined, error_code: 1212 };
    };
    const outcome = createOrderFlow(config(), JSON.stringify(digest), rt)("mobile_commerce");
    expect(outcome.created).toBe(false);
    expect(recorded.transportErrors).toEqual([{ errorCode: "1212", operation: "createMobileCommerceOrder" }]);
    expect(recorded.errors).toEqual([]);
  });

  it("records two named checks per answer, all passing on the reference provider's answers", () => {
    const { runtime: rt, recorded } = runtime("");
    createOrderFlow(config(), JSON.stringify(digest), rt)("mobile_commerce");
    expect(recorded.checks).toEqual([
      {
        "createMobileCommerceOrder: success with the expected status": true,
        "createMobileCommerceOrder: every required field of the right type": true,
      },
      {
        "confirmMobileCommerceOrder: success with the expected status": true,
        "confirmMobileCommerceOrder: every required field of the right type": true,
      },
    ]);
    expect(recorded.errors).toEqual([]);
    expect(recorded.warnings).toEqual([]);
  });

  it("checks every field of a VU's first answers, then of every n-th; success and status on every answer", () => {
    const { runtime: rt, recorded } = runtime("");
    const flow = createOrderFlow(config({ H2H_FIELD_CHECK_EVERY: "5" }), JSON.stringify(digest), rt);
    for (let i = 0; i < 12; i++) flow("mobile_commerce");
    const creates = recorded.checks.filter(
      (c) => "createMobileCommerceOrder: success with the expected status" in c,
    );
    expect(creates).toHaveLength(12);
    const withFields = creates.map(
      (c) => "createMobileCommerceOrder: every required field of the right type" in c,
    );
    // Answers 1-3 (a VU's first), 5 and 10 (every 5th).
    expect(withFields).toEqual([
      true,
      true,
      true,
      false,
      true,
      false,
      false,
      false,
      false,
      true,
      false,
      false,
    ]);
    const every = runtime("");
    const all = createOrderFlow(
      config({ H2H_FIELD_CHECK_EVERY: "1" }),
      JSON.stringify(digest),
      every.runtime,
    );
    for (let i = 0; i < 6; i++) all("mobile_commerce");
    expect(every.recorded.checks.every((c) => Object.keys(c).length === 2)).toBe(true);
  });

  it("fails the data check on a wrong type and names the field on k6's log, once per VU", () => {
    const { runtime: rt, recorded } = runtime("amount-as-string");
    const flow = createOrderFlow(config(), JSON.stringify(digest), rt);
    for (let i = 0; i < 5; i++) flow("mobile_commerce");
    expect(recorded.checks[0]).toEqual({
      "createMobileCommerceOrder: success with the expected status": true,
      "createMobileCommerceOrder: every required field of the right type": false,
    });
    expect(recorded.warnings).toEqual([
      "h2h-certify check failed: createMobileCommerceOrder: data.amount is string, expected number (each problem is logged once per VU)",
    ]);
    // The order was made: the flow goes on and confirms it.
    expect(recorded.confirmed).toHaveLength(5);
  });

  it("fails the success check without an x-request-id, and counts a business error by code on an error answer", () => {
    const missing = runtime("missing-request-id");
    createOrderFlow(config(), JSON.stringify(digest), missing.runtime)("mobile_commerce");
    expect(missing.recorded.checks[0]).toEqual({
      "createMobileCommerceOrder: success with the expected status": false,
      "createMobileCommerceOrder: every required field of the right type": false,
    });
    expect(missing.recorded.warnings[0]).toContain("no result.x-request-id");

    const wrongKey = runtime("");
    const outcome = createOrderFlow(
      config({ H2H_API_KEY: "wrong" }),
      JSON.stringify(digest),
      wrongKey.runtime,
    )("mobile_commerce");
    expect(outcome).toMatchObject({ created: false, confirmed: false });
    expect(wrongKey.recorded.errors).toEqual([
      { codeError: "unauthorized", operation: "createMobileCommerceOrder" },
    ]);
    expect(wrongKey.recorded.posts).toHaveLength(1);
    expect(wrongKey.recorded.confirmed).toEqual([]);
  });

  it("waits the think time between the order and its confirmation code", () => {
    const { runtime: rt, recorded } = runtime("");
    createOrderFlow(config({ H2H_SCENARIO: "smoke" }), JSON.stringify(digest), rt)("mobile_commerce");
    expect(recorded.sleeps).toEqual([1]);
    const none = runtime("");
    createOrderFlow(config(), JSON.stringify(digest), none.runtime)("mobile_commerce");
    expect(none.recorded.sleeps).toEqual([]);
  });

  it("logs at most a few distinct problems per VU, never a flood", () => {
    const { runtime: rt, recorded } = runtime("");
    const flow = createOrderFlow(config({ H2H_API_KEY: "wrong" }), JSON.stringify(digest), rt);
    for (let i = 0; i < 50; i++) flow("mobile_commerce");
    expect(recorded.warnings.length).toBeLessThanOrEqual(MAX_WARNINGS_PER_VU);
    expect(recorded.errors).toHaveLength(50);
  });
});

describe("answer rules", () => {
  const verdict = () => ({
    envelope: false,
    status: false,
    complete: false,
    id: undefined as string | undefined,
  });
  const rules = () => compileAnswerRules(digest.responses.createMobileCommerceOrder);

  it("select the envelope markers, status and id for every answer, and every required field for a sample", () => {
    const { basic, fields } = rules();
    expect(basic).toBe(
      "[result.codeError,result.message,result.status,result.x-request-id,data.status,data.id]",
    );
    expect(fields).toContain("data.paymentDetailsData.methodID");
    // An object whose fields are checked is not selected whole; an array is selected as its length.
    expect(fields).not.toMatch(/data\.paymentDetailsData[,\]]/);
    expect(fields).toContain("data.routingAttempts.#");
    expect(escapeGjson("x-request-id")).toBe("x-request-id");
    expect(escapeGjson("a.b*c")).toBe("a\\.b\\*c");
  });

  it("judge the reference provider's answer a success with every field, and read the order id", () => {
    const answer = answerOf("", "createMobileCommerceOrder");
    const judged = judgeBasic(answer.json(rules().basic), "payment_pending", verdict());
    expect(judged).toMatchObject({ envelope: true, status: true, complete: true });
    expect(judged.id).toBe((JSON.parse(answer.body ?? "") as { data: { id: string } }).data.id);
    expect(fieldsMatch(answer.json(rules().fields), rules())).toBe(true);
  });

  it.each([
    ["amount-as-string", true],
    ["missing-payment-details", true],
    ["null-currency", true],
    ["missing-request-id", false],
  ])("find the %s answer's fault (success envelope: %s)", (fault, envelope) => {
    const answer = answerOf(fault, "createMobileCommerceOrder");
    const basic = judgeBasic(answer.json(rules().basic), "payment_pending", verdict());
    expect(basic.envelope && basic.complete).toBe(envelope);
    expect(basic.envelope && fieldsMatch(answer.json(rules().fields), rules())).toBe(false);
  });

  it("fail a status other than the profile expects, and tell a missing value from a wrong one", () => {
    const answer = answerOf("", "createMobileCommerceOrder");
    expect(judgeBasic(answer.json(rules().basic), "created", verdict())).toMatchObject({
      envelope: true,
      status: false,
    });
    expect(judgeBasic(["none", null, "success", "r-1", "created"], "created", verdict()).complete).toBe(
      false,
    );
    expect(judgeBasic(["none", null, "success", "", "created", "id"], "created", verdict()).envelope).toBe(
      false,
    );
  });
});
