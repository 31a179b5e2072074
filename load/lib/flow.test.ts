/**
 * The load flow and its checks, in Node: the answers are the reference provider's own, from its
 * transport-free handler, synchronous as k6's http.post is (with and without faults);
 * `json(selector)` is k6's GJSON selection, emulated.
 */
import { afterEach, describe, expect, it } from "vitest";
import { buildContract } from "../../contract/index.ts";
import { type ConfirmedStatus, endpointPath, type OperationName } from "../../contract/names.ts";
import { buildMobileCommerceOrderRequest } from "../../fixtures/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { createReferenceProvider, type ReferenceProvider } from "../../fixtures/reference-provider/index.ts";
import { bundledProfileOf } from "../harness/build.ts";
import { buildContractDigest } from "../harness/digest.ts";
import { postTo } from "../testing/k6-stubs.ts";
import { selectPaths } from "../testing/select-paths.ts";
import { parseLoadConfig } from "./config.ts";
import {
  createOrderFlow,
  type FlowRuntime,
  type HttpAnswer,
  MAX_WARNINGS_PER_VU,
  type RequestParams,
} from "./flow.ts";
import { compileAnswerRules, escapeGjson, judgeSelection } from "./response-rules.ts";

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
  warnings: string[];
  sleeps: number[];
}

function runtime(fault: string, randoms: number[] = []): { runtime: FlowRuntime; recorded: Recorded } {
  const recorded: Recorded = { posts: [], checks: [], confirmed: [], errors: [], warnings: [], sleeps: [] };
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
      orderConfirmed: (final) => recorded.confirmed.push(final),
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
    // The next order of the VU gets the next id.
    flow("mobile_commerce");
    expect(JSON.parse(recorded.posts[2]?.body ?? "").merchantOrderID).toBe("run-1-mc-7-1");
  });

  it("records two named checks per answer, all passing on the reference provider's answers", () => {
    const { runtime: rt, recorded } = runtime("");
    createOrderFlow(config(), JSON.stringify(digest), rt)("mobile_commerce");
    expect(recorded.checks).toEqual([
      {
        "createMobileCommerceOrder: success envelope": true,
        "createMobileCommerceOrder: data as the contract says": true,
      },
      {
        "confirmMobileCommerceOrder: success envelope": true,
        "confirmMobileCommerceOrder: data as the contract says": true,
      },
    ]);
    expect(recorded.errors).toEqual([]);
    expect(recorded.warnings).toEqual([]);
  });

  it("fails the data check on a wrong type and names the field on k6's log, once per VU", () => {
    const { runtime: rt, recorded } = runtime("amount-as-string");
    const flow = createOrderFlow(config(), JSON.stringify(digest), rt);
    for (let i = 0; i < 5; i++) flow("mobile_commerce");
    expect(recorded.checks[0]).toEqual({
      "createMobileCommerceOrder: success envelope": true,
      "createMobileCommerceOrder: data as the contract says": false,
    });
    expect(recorded.warnings).toEqual([
      "h2h-certify check failed: createMobileCommerceOrder: data.amount is string, expected number (each problem is logged once per VU)",
    ]);
    // The order was made: the flow goes on and confirms it.
    expect(recorded.confirmed).toHaveLength(5);
  });

  it("fails the envelope check without an x-request-id, and counts a business error by code on an error answer", () => {
    const missing = runtime("missing-request-id");
    createOrderFlow(config(), JSON.stringify(digest), missing.runtime)("mobile_commerce");
    expect(missing.recorded.checks[0]).toEqual({
      "createMobileCommerceOrder: success envelope": false,
      "createMobileCommerceOrder: data as the contract says": false,
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
    data: false,
    complete: false,
    id: undefined as string | undefined,
  });
  const rules = () => compileAnswerRules(digest.responses.createMobileCommerceOrder, "payment_pending");

  it("select the envelope markers and every required field in one GJSON multipath, as one string", () => {
    const { selector, pattern } = rules();
    expect(
      selector.startsWith("[result.codeError,result.message,result.status,result.x-request-id,data."),
    ).toBe(true);
    expect(selector.endsWith("]|@tostr")).toBe(true);
    expect(selector).toContain("data.paymentDetailsData.methodID");
    // An object whose fields are checked is not selected whole; an array is selected as its length.
    expect(selector).not.toMatch(/data\.paymentDetailsData[,\]]/);
    expect(selector).toContain("data.routingAttempts.#");
    expect(pattern.source).toContain('"payment_pending"');
    expect(escapeGjson("x-request-id")).toBe("x-request-id");
    expect(escapeGjson("a.b*c")).toBe("a\\.b\\*c");
  });

  it("match the reference provider's answer and capture the order id", () => {
    const answer = answerOf("", "createMobileCommerceOrder");
    const judged = judgeSelection(answer.json(rules().selector), rules(), verdict());
    expect(judged).toMatchObject({ envelope: true, data: true, complete: true });
    expect(judged.id).toBe((JSON.parse(answer.body ?? "") as { data: { id: string } }).data.id);
  });

  it.each(["amount-as-string", "missing-request-id", "missing-payment-details", "null-currency"])(
    "do not match the %s answer (the detailed check then says why)",
    (fault) => {
      const answer = answerOf(fault, "createMobileCommerceOrder");
      expect(judgeSelection(answer.json(rules().selector), rules(), verdict())).toMatchObject({
        data: false,
        complete: false,
      });
    },
  );

  it("do not match a status other than the profile expects, nor a number where the contract wants a string", () => {
    const answer = answerOf("", "createMobileCommerceOrder");
    const created = compileAnswerRules(digest.responses.createMobileCommerceOrder, "created");
    expect(judgeSelection(answer.json(created.selector), created, verdict()).complete).toBe(false);
    const text = answer.json(rules().selector) as string;
    expect(judgeSelection(text.replace('"RUB"', "643"), rules(), verdict()).complete).toBe(false);
    expect(judgeSelection(text.replace(",1500,", ",1500.5,"), rules(), verdict()).complete).toBe(true);
    expect(judgeSelection(text.replace(",1500,", ',"1500",'), rules(), verdict()).complete).toBe(false);
  });

  it("read an id with escapes as the JSON says", () => {
    const answer = answerOf("", "createMobileCommerceOrder");
    const text = answer.json(rules().selector) as string;
    const id = (JSON.parse(answer.body ?? "") as { data: { id: string } }).data.id;
    expect(judgeSelection(text.replace(id, "a\\u00e9b"), rules(), verdict()).id).toBe("aéb");
  });

  it("judge an unusual but valid answer right, if only on the detailed path", () => {
    const { runtime: rt, recorded } = runtime("");
    const post = rt.post;
    rt.post = (url, body, params) => {
      const answer = post(url, body, params);
      // 1500 written 1.5e3: valid JSON, the same number.
      const odd = (answer.body ?? "").replace('"amount":1500,', '"amount":1.5e3,');
      return { status: answer.status, body: odd, json: (selector) => selectPaths(odd, selector) };
    };
    createOrderFlow(config(), JSON.stringify(digest), rt)("mobile_commerce");
    expect(recorded.checks.every((c) => Object.values(c).every(Boolean))).toBe(true);
    expect(recorded.confirmed).toHaveLength(1);
  });
});
