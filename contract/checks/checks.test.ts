/**
 * Every check in the registry has a good input that passes and at least one bad input that
 * fails with a detail naming what is wrong. The last test makes sure no check is left out.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SAMPLE_ORDER_RECORD } from "../../fixtures/index.ts";
import type { ExchangeResponse } from "../client/index.ts";
import {
  buildContract,
  ConfirmOrderRequest,
  contract,
  jsonTextIssues,
  LENIENT_GAPS,
  ORDER_STATUSES,
} from "../schemas/index.ts";
import type { ObservedCallback } from "./callbacks.ts";
import { CHECK_SCOPES, defineCheck, pass } from "./check.ts";
import { CHECK_REGISTRY, type Check, callbacksSignatureValid, checksOfScope } from "./index.ts";

const requestId = (n: number) => `req-${n}`;
/** What json-text.ts finds in a body. */
const strictIssues = (text: string) => jsonTextIssues(Buffer.from(text, "utf8"));

function response(
  status: number,
  json: unknown,
  contentType = "application/json; charset=utf-8",
): ExchangeResponse {
  const body = json === undefined ? "Internal Server Error" : JSON.stringify(json);
  return { status, headers: { "content-type": contentType }, body, json };
}

const okResult = { codeError: "none", message: null, status: "success", "x-request-id": requestId(1) };
const errResult = {
  codeError: "unauthorized",
  message: "bad key",
  status: "error",
  "x-request-id": requestId(2),
};

const record = { ...SAMPLE_ORDER_RECORD, dateUpdated: "2026-11-22T03:00:01.000Z" };
const confirmation = {
  id: "order-1",
  status: "waiting_for_terminal",
  merchantOrderID: "m-1",
  currency: "RUB",
  amount: 1500,
  timer: 29.5,
};

const successResponse = response(200, { data: record, result: okResult });
const errorResponse = response(401, { data: null, result: errResult });

interface Case {
  good: unknown[];
  /** Each bad input with a pattern its failure detail must match. */
  bad: [unknown, RegExp][];
}

const rejectionCases: Case = {
  good: [
    { response: errorResponse },
    { response: errorResponse, pinned: { httpStatus: 401, codeError: "unauthorized" } },
  ],
  bad: [
    [{ response: successResponse }, /accepted: HTTP 200/],
    [{ response: response(500, undefined, "text/plain") }, /server error instead of a refusal: HTTP 500/],
    [{ response: errorResponse, pinned: { httpStatus: 403 } }, /HTTP 401, the profile pins 403/],
    [
      { response: errorResponse, pinned: { codeError: "auth_failed" } },
      /codeError "unauthorized", the profile pins "auth_failed"/,
    ],
    [{ response: response(302, {}) }, /not a refusal: HTTP 302/],
  ],
};
const acceptanceCases: Case = {
  good: [successResponse],
  bad: [
    [
      response(409, { data: null, result: { ...errResult, codeError: "duplicate" } }),
      /refused: HTTP 409 codeError "duplicate"/,
    ],
  ],
};

const T0 = 1_763_780_400_000;
const cb = (status: string, at: number, extra: Record<string, unknown> = {}): ObservedCallback => ({
  json: { id: "order-1", status, amount: 1500, currency: "RUB", merchantOrderID: "m-1", ...extra },
  receivedAtMs: T0 + at,
  signature: "valid",
  answeredWith: 200,
});
const scenario = (status: string, callbacks: ObservedCallback[], change: Record<string, unknown> = {}) => ({
  orderId: "order-1",
  statusEntered: status,
  callbacks,
  triggeredAtMs: T0,
  timeoutMs: 10_000,
  paths: {
    id: "id",
    status: "status",
    amount: "amount",
    currency: "currency",
    merchantOrderId: "merchantOrderID",
  },
  order: { amount: 1500, currency: "RUB", merchantOrderID: "m-1" },
  signed: true,
  ...change,
});
const succeeded = scenario("succeeded", [cb("succeeded", 200)]);

// --- the checks of the generated and stateful probes --------------------------------------
const refused = (codeError: string, status = 409) =>
  response(status, { data: null, result: { ...errResult, codeError } });
const PROBE_CASES: Record<string, Case> = {
  ...Object.fromEntries(
    [
      "behaviour.rejects-value-outside-enum",
      "behaviour.rejects-length-out-of-bounds",
      "behaviour.rejects-malformed-value",
      "behaviour.rejects-out-of-range",
      "behaviour.rejects-missing-conditional-field",
      "behaviour.rejects-method-of-other-kind",
      "behaviour.rejects-confirm-after-expiry",
    ].map((name) => [name, rejectionCases]),
  ),
  "callbacks.follow-lifecycle": {
    good: [
      { expected: ["succeeded"], received: [{ status: "succeeded", body: "a" }] },
      { expected: [], received: [] },
    ],
    bad: [
      [
        {
          expected: ["succeeded"],
          received: [
            { status: "succeeded", body: "a" },
            { status: "expired", body: "b" },
          ],
        },
        /"expired" 1 time\(s\), expected 0/,
      ],
      [{ expected: ["failed_by_terminal"], received: [] }, /"failed_by_terminal" 0 time\(s\), expected 1/],
    ],
  },
  "semantics.timer-follows-clock": {
    good: [{ stayed: 29.9, moved: 19.9, seconds: 10, how: "the sandbox clock", toleranceSeconds: 1 }],
    bad: [
      [
        { stayed: 30, moved: 30, seconds: 10, how: "the sandbox clock", toleranceSeconds: 1 },
        /lowered timer by 0\.000 s \(30 → 30\), expected 10 ± 1/,
      ],
      [{ stayed: null, moved: 20, seconds: 10, how: "real time", toleranceSeconds: 1 }, /not numbers/],
    ],
  },
  ...Object.fromEntries(
    ["behaviour.concurrent-creations-one-accepted", "behaviour.concurrent-confirmations-one-accepted"].map(
      (name) => [
        name,
        {
          good: [{ answers: [successResponse, refused("duplicate"), refused("duplicate")] }],
          bad: [
            [
              { answers: [successResponse, successResponse, refused("duplicate")] },
              /2 of 3 accepted, expected exactly one/,
            ],
            [{ answers: [refused("duplicate"), refused("duplicate")] }, /0 of 2 accepted/],
          ],
        } satisfies Case,
      ],
    ),
  ),
  "callbacks.one-final-after-concurrent-confirmations": {
    good: [{ finalStatus: "succeeded", callbacks: [{ status: "succeeded", answeredWith: 200 }] }],
    bad: [
      [
        {
          finalStatus: "succeeded",
          callbacks: [
            { status: "succeeded", answeredWith: 200 },
            { status: "succeeded", answeredWith: 200 },
          ],
        },
        /2 acknowledged "succeeded" callbacks, expected exactly one/,
      ],
    ],
  },
  "callbacks.exact-url": {
    good: [{ expected: "/callbacks/<token>/run/x?a=1", received: ["/callbacks/<token>/run/x?a=1"] }],
    bad: [
      [
        { expected: "/callbacks/<token>/run/x?a=1", received: ["/callbacks/<token>/run/x"] },
        /1 of 1 callback\(s\) at "\/callbacks\/<token>\/run\/x", the order's webHook is/,
      ],
    ],
  },
};
// --- end of the issue-10 cases --------------------------------------------------------------------

// --- the receiver battery's checks: a merchant's receiver's answers -------------------------------
const ans = (status: number | undefined, durationMs = 12, label = "succeeded, mobile_commerce") => ({
  case: label,
  status,
  durationMs,
  ...(status === undefined ? { error: "no answer within 1000 ms" } : {}),
});
const forgeryCases: Case = {
  good: [{ answer: ans(401) }, { answer: ans(400) }],
  bad: [
    [{ answer: ans(200, 5, "no signature") }, /^ACKNOWLEDGED a forged callback: no signature: HTTP 200/],
    [{ answer: ans(undefined, 1000) }, /no answer after 1000 ms .*expected a refusal/],
  ],
};
const RECEIVER_CASES: Record<string, Case> = {
  "receiver.acknowledges-valid": {
    good: [
      { answer: ans(200), timeoutMs: 1000 },
      { answer: ans(204, 999), timeoutMs: 1000 },
    ],
    bad: [
      [{ answer: ans(401), timeoutMs: 1000 }, /HTTP 401 in 12 ms; expected a 2xx within 1000 ms/],
      [{ answer: ans(200, 1500), timeoutMs: 1000 }, /acknowledged after 1500 ms, over 1000 ms/],
      [{ answer: ans(undefined, 1000), timeoutMs: 1000 }, /no answer after 1000 ms/],
    ],
  },
  "receiver.acknowledges-duplicates": {
    good: [{ answers: [ans(200), ans(200), ans(200)], timeoutMs: 1000 }],
    bad: [
      [
        { answers: [ans(200), ans(500), ans(200)], timeoutMs: 1000 },
        /1 of 3 deliveries .*delivery 2: HTTP 500/,
      ],
    ],
  },
  "receiver.answers-variation": {
    good: [{ answer: ans(200) }, { answer: ans(409) }],
    bad: [
      [{ answer: ans(500) }, /HTTP 500 in 12 ms; expected a 2xx or a 4xx/],
      [{ answer: ans(undefined, 1000) }, /no answer after 1000 ms/],
    ],
  },
  "receiver.unknown-order": {
    good: [
      { answer: ans(404), expected: "refuse" },
      { answer: ans(200), expected: "acknowledge" },
    ],
    bad: [
      [{ answer: ans(200), expected: "refuse" }, /HTTP 200 .*expected a 4xx \(refused\)/],
      [{ answer: ans(404), expected: "acknowledge" }, /HTTP 404 .*expected a 2xx \(acknowledged\)/],
    ],
  },
  "receiver.refuses-forgery": forgeryCases,
  "receiver.refuses-wrong-prefix": forgeryCases,
  "receiver.refuses-replay": forgeryCases,
  "receiver.survives-malformed": {
    good: [
      { answer: ans(400), timeoutMs: 1000 },
      { answer: ans(200), timeoutMs: 1000 },
    ],
    bad: [
      [
        { answer: ans(500, 3, "not JSON"), timeoutMs: 1000 },
        /not JSON: HTTP 500 .*expected an answer below 500/,
      ],
      [{ answer: ans(undefined, 1000), timeoutMs: 1000 }, /no answer after 1000 ms/],
    ],
  },
  "receiver.refuses-malformed": {
    good: [{ answer: ans(400) }, { answer: ans(415) }],
    bad: [[{ answer: ans(200, 3, "not JSON") }, /not JSON: HTTP 200 in 3 ms; expected a 4xx/]],
  },
  "receiver.ack-p95": {
    good: [{ durationsMs: Array.from({ length: 20 }, (_, i) => i * 10), planned: 20, timeoutMs: 1000 }],
    bad: [
      [
        { durationsMs: [...Array.from({ length: 18 }, () => 10), 2000, 3000], planned: 20, timeoutMs: 1000 },
        /p95 2000 ms over 1000 ms: 2 of 20 deliveries/,
      ],
      [
        { durationsMs: [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY], planned: 20, timeoutMs: 1000 },
        /p95 over the timeout over 1000 ms: 2 of 2 deliveries sent \(of 20\)/,
      ],
    ],
  },
};

// --- the declared conventions and callback delivery ---------------------------------------------
const utcMs = { offset: "utc", fractionalSeconds: "required", fractionDigits: 3, oneFormat: true } as const;
const dated = (...values: string[]) => values.map((value, i) => ({ path: `date ${i + 1}`, value }));
const CONVENTION_CASES: Record<string, Case> = {
  "fields.date-offset": {
    good: [
      { dates: dated("2026-11-22T03:00:00.000Z", "2026-11-22T03:00:00+00:00"), convention: utcMs },
      { dates: dated("2026-11-22T06:00:00+03:00"), convention: { offset: "any" } },
      { dates: dated("2026-11-22T06:00:00+03:00"), convention: undefined },
    ],
    bad: [
      [
        { dates: dated("2026-11-22T03:00:00.000Z", "2026-11-22T06:00:00.000+03:00"), convention: utcMs },
        /1 of 2 date\(s\) not in UTC: date 2 "2026-11-22T06:00:00.000\+03:00"/,
      ],
      [{ dates: dated("2026-11-22T03:00:00"), convention: utcMs }, /not in UTC/],
      [
        { dates: [{ path: "callback 1 dateUpdated", value: 1_763_780_400_000 }], convention: utcMs },
        /callback 1 dateUpdated "\(number: 1763780400000\)"/,
      ],
    ],
  },
  "fields.date-fraction": {
    good: [
      { dates: dated("2026-11-22T03:00:00.123Z"), convention: utcMs },
      { dates: dated("2026-11-22T03:00:00+05:00"), convention: { fractionalSeconds: "forbidden" } },
      { dates: dated("2026-11-22T03:00:00.5Z"), convention: { fractionalSeconds: "required" } },
      { dates: dated("2026-11-22T03:00:00Z"), convention: {} },
    ],
    bad: [
      [
        { dates: dated("2026-11-22T03:00:00.123Z", "2026-11-22T03:00:00Z"), convention: utcMs },
        /1 of 2 date\(s\) without exactly 3 digit\(s\) of fractional seconds: date 2/,
      ],
      [
        { dates: dated("2026-11-22T03:00:00.1Z"), convention: utcMs },
        /without exactly 3 digit\(s\) of fractional seconds/,
      ],
      [
        { dates: dated("2026-11-22T03:00:00.000+05:00"), convention: { fractionalSeconds: "forbidden" } },
        /without whole seconds, no fraction/,
      ],
    ],
  },
  "fields.one-date-format": {
    good: [
      { dates: dated("2026-11-22T03:00:00.123Z", "2026-11-23T13:20:09.000Z"), convention: utcMs },
      { dates: dated("2026-11-22T03:00:00+05:00", "2026-11-22T03:00:00-03:00"), convention: undefined },
      {
        dates: dated("2026-11-22T03:00:00Z", "2026-11-22T03:00:00.1+00:00"),
        convention: { oneFormat: false },
      },
    ],
    bad: [
      [
        { dates: dated("2026-11-22T03:00:00.123Z", "2026-11-22T03:00:01+00:00"), convention: utcMs },
        /1 of 2 date\(s\) differ in format from date 1 "2026-11-22T03:00:00.123Z": date 2/,
      ],
      [
        {
          dates: [
            ...dated("2026-11-22T03:00:00.123Z"),
            { path: "callback 1 dateUpdated", value: 1_763_780_400_000 },
          ],
          convention: undefined,
        },
        /callback 1 dateUpdated/,
      ],
    ],
  },
  "fields.money-precision": {
    good: [
      { values: [{ path: "data.amountComission", value: 37.51, decimals: 2 }] },
      { values: [{ path: "data.usdtAmount", value: 0.123456, decimals: 6 }] },
      { values: [{ path: "data.amountComission", value: 37.5125, decimals: undefined }] },
    ],
    bad: [
      [
        {
          values: [
            { path: "data.amount", value: 1500, decimals: 2 },
            { path: "data.amountComission", value: 37.5125, decimals: 2 },
          ],
        },
        /1 of 2 money value\(s\) not rounded to the declared decimals: data.amountComission 37.5125 \(2 decimals\)/,
      ],
      [{ values: [{ path: "data.usdtAmount", value: 0.1 + 0.2, decimals: 2 }] }, /data.usdtAmount/],
    ],
  },
  "callbacks.stops-after-acknowledgement": {
    good: [
      succeeded,
      scenario("succeeded", [{ ...cb("succeeded", 1), answeredWith: 204 }]),
      scenario("succeeded", [
        { ...cb("succeeded", 1), answeredWith: 503 },
        { ...cb("succeeded", 200), answeredWith: 202 },
      ]),
      scenario("succeeded_by_appeal", [
        { ...cb("failed_by_terminal", 1), answeredWith: 201 },
        { ...cb("succeeded_by_appeal", 900), answeredWith: 201 },
      ]),
    ],
    bad: [
      [
        scenario("succeeded", [
          { ...cb("succeeded", 1), answeredWith: 201 },
          { ...cb("succeeded", 101), answeredWith: 201 },
        ]),
        /1 delivery\(ies\) after an acknowledged one; "succeeded" was answered HTTP 201 and delivered again 0\.10 s later/,
      ],
    ],
  },
};

/** An amount that rounds to 0 (tiny), and one past the maximum that rounds onto it (over). */
const tiny = { sent: 0.004, rounded: 0, decimals: 2, expect: "refused-or-exact" as const };
const over = { sent: 1_000_000.004, rounded: 1_000_000, decimals: 2, expect: "refused" as const };

const merchantConfirmation = {
  orderId: "o1",
  created: { kind: "quasi_ecom" },
  pathKind: "quasi_ecom",
  answerStatus: 200,
  notConfirmableBecause: undefined,
};
const lostCreation = { exchangeId: "x1", order: "A", merchantOrderID: "m1" };
const MERCHANT_CASES: Record<string, Case> = {
  "merchant.request-headers": {
    good: [{ headers: { "content-type": "application/json; charset=utf-8", authorization: "Bearer k1" } }],
    bad: [
      [
        { headers: { "content-type": "text/plain", authorization: "Bearer k1" } },
        /text\/plain", expected application\/json/,
      ],
      [{ headers: { "content-type": "application/json" } }, /no Authorization header/],
    ],
  },
  "merchant.request-body-valid": {
    good: [{ text: '{"code":"1111"}', schema: ConfirmOrderRequest, requiredFields: [] }],
    bad: [
      [{ text: "code=1111", schema: ConfirmOrderRequest, requiredFields: [] }, /the body is not JSON/],
      [{ text: '{"code":1111}', schema: ConfirmOrderRequest, requiredFields: [] }, /code/],
    ],
  },
  "merchant.order-id-unique": {
    good: [[lostCreation, { ...lostCreation, exchangeId: "x2" }].map((c) => ({ ...c }))],
    bad: [
      [[lostCreation, { ...lostCreation, order: "B", exchangeId: "x2" }], /"m1" for another order in x2/],
    ],
  },
  "merchant.confirms-own-order": {
    good: [merchantConfirmation, { ...merchantConfirmation, created: undefined }],
    bad: [
      [{ ...merchantConfirmation, created: undefined, answerStatus: 404 }, /an order it did not create/],
      [{ ...merchantConfirmation, pathKind: "mobile_commerce" }, /through the mobile_commerce confirm path/],
    ],
  },
  "merchant.confirms-confirmable": {
    good: [merchantConfirmation],
    bad: [
      [
        { ...merchantConfirmation, notConfirmableBecause: "its expired callback" },
        /after its expired callback/,
      ],
    ],
  },
  "merchant.no-blind-resend": {
    good: [
      {
        unanswered: [lostCreation],
        creations: [
          { ...lostCreation, atMs: 1 },
          { ...lostCreation, exchangeId: "x2", atMs: 2 },
        ],
      },
    ],
    bad: [
      [
        {
          unanswered: [lostCreation],
          creations: [
            { ...lostCreation, atMs: 1 },
            { exchangeId: "x2", order: "A", merchantOrderID: "m2", atMs: 2 },
          ],
        },
        /x2 sends x1's order again with merchantOrderID "m2"/,
      ],
    ],
  },
};

const CASES: Record<string, Case> = {
  ...PROBE_CASES,
  "behaviour.amount-not-rounded-past-limit": {
    good: [
      { ...tiny, response: errorResponse },
      { ...tiny, response: successResponse, orderAmount: 0.004 },
      { ...over, response: errorResponse, pinned: { httpStatus: 401 } },
    ],
    bad: [
      [
        { ...tiny, response: successResponse, orderAmount: 0 },
        /accepted 0\.004, and the order's amount is 0: neither refused nor kept as sent \(0\.004 rounds to 0 at 2 decimal\(s\)\)/,
      ],
      [
        { ...over, response: successResponse, orderAmount: 1_000_000 },
        /accepted 1000000\.004, past the method's limit as sent \(1000000\.004 rounds to 1000000/,
      ],
      [{ ...over, response: errorResponse, pinned: { httpStatus: 400 } }, /HTTP 401, the profile pins 400/],
      [{ ...tiny, response: response(500, undefined, "text/plain") }, /server error instead of a refusal/],
    ],
  },
  ...RECEIVER_CASES,
  ...MERCHANT_CASES,
  ...CONVENTION_CASES,
  "callbacks.arrives": {
    good: [succeeded],
    bad: [
      [scenario("expired", []), /no callback within 10\.00 s of entering expired/],
      [
        scenario("expired", [cb("expired", 12_000)]),
        /no callback within 10\.00 s of entering expired \(1 arrived later\)/,
      ],
    ],
  },
  // --- callbacks before their trigger, the sandbox clock ---
  "callbacks.not-before-trigger": {
    good: [
      succeeded,
      scenario("expired", []),
      // A lifetime counted on the target's clock may end a tick early.
      scenario("expired", [cb("expired", -400)], { earlyToleranceMs: 1_000 }),
    ],
    bad: [
      [
        scenario("expired", [cb("expired", -9_610)]),
        /1 of 1 callback\(s\) arrived before the trigger; the first 9\.61 s before the trigger \(status "expired"\)/,
      ],
      [
        scenario("succeeded", [cb("succeeded", -1), cb("succeeded", 300)]),
        /1 of 2 callback\(s\) arrived before/,
      ],
      [
        scenario("expired", [cb("expired", -1_500)], { earlyToleranceMs: 1_000 }),
        /1\.50 s before the trigger/,
      ],
    ],
  },
  "callbacks.date-not-before-trigger": {
    good: [
      scenario("succeeded", [cb("succeeded", 200, { dateUpdated: new Date(T0 + 150).toISOString() })], {
        paths: { id: "id", status: "status", dateUpdated: "dateUpdated" },
        datesNotBefore: [{ atMs: T0, what: "the confirmation was sent", toleranceMs: 2_000 }],
      }),
      // Within the room for the clocks' skew.
      scenario("succeeded", [cb("succeeded", 200, { dateUpdated: new Date(T0 - 1_500).toISOString() })], {
        paths: { id: "id", status: "status", dateUpdated: "dateUpdated" },
        datesNotBefore: [{ atMs: T0, what: "the confirmation was sent", toleranceMs: 2_000 }],
      }),
      // No date path declared: nothing to read.
      scenario("succeeded", [cb("succeeded", 200, { dateUpdated: "2000-01-01T00:00:00Z" })], {
        datesNotBefore: [{ atMs: T0, what: "the confirmation was sent", toleranceMs: 0 }],
      }),
    ],
    bad: [
      [
        scenario("expired", [cb("expired", 200, { dateUpdated: new Date(T0 - 30_000).toISOString() })], {
          paths: { id: "id", status: "status", dateUpdated: "dateUpdated" },
          datesNotBefore: [
            { atMs: T0 - 30_000, what: "the creation record's dateUpdated", toleranceMs: 1_000 },
            {
              atMs: T0,
              what: "the creation record's dateAdded plus the declared lifetime (30 s)",
              toleranceMs: 2_000,
            },
          ],
        }),
        /^1 date\(s\) before the status was entered: dateUpdated "2025-11-22T02:59:30\.000Z" \(status "expired"\) is 30\.00 s before the creation record's dateAdded plus the declared lifetime \(30 s\)/,
      ],
    ],
  },
  "callbacks.sandbox-clock": {
    good: [{ response: successResponse }],
    bad: [
      [
        { response: response(404, { data: null, result: { ...errResult, codeError: "not_found" } }) },
        /^HTTP 404 codeError "not_found": the clock did not move$/,
      ],
      [
        { error: "http://127.0.0.1:1/sandbox/v1/clock/advance: ECONNREFUSED" },
        /could not be asked: .*ECONNREFUSED/,
      ],
      [{}, /was not asked/],
    ],
  },
  // --- end of the callbacks-before-trigger cases ---
  "callbacks.body-parses": {
    good: [succeeded],
    bad: [
      [scenario("succeeded", [{ ...cb("succeeded", 1), json: null }]), /1 of 1 bodies are not JSON objects/],
      [scenario("succeeded", []), /no callback arrived to parse/],
    ],
  },
  "callbacks.strict-json": {
    good: [succeeded],
    bad: [
      [
        scenario("succeeded", [
          cb("succeeded", 100),
          {
            ...cb("succeeded", 200),
            jsonText: strictIssues('{"status":"expired","id":"x","status":"succeeded"}'),
          },
        ]),
        /^1 of 2 deliveries: delivery 2: duplicate-name at status: member "status" twice/,
      ],
      [scenario("succeeded", []), /no callback arrived/],
    ],
  },
  "callbacks.names-order": {
    good: [succeeded],
    bad: [
      [
        scenario("succeeded", [cb("succeeded", 1, { id: "order-2" })]),
        /id is "order-2" in 1 callback\(s\), expected "order-1"/,
      ],
      [scenario("succeeded", [cb("succeeded", 1, { id: undefined })]), /id is absent/],
    ],
  },
  "callbacks.names-status": {
    good: [
      succeeded,
      scenario("succeeded_by_appeal", [cb("failed_by_terminal", 1), cb("succeeded_by_appeal", 2)]),
    ],
    bad: [
      [
        scenario("succeeded", [cb("success", 1)]),
        /no callback says "succeeded" at status; they say "success"/,
      ],
    ],
  },
  "callbacks.signature-valid": {
    good: [
      succeeded,
      scenario("succeeded", [{ ...cb("succeeded", 1), signature: "missing" }], { signed: false }),
    ],
    bad: [
      [
        scenario("succeeded", [{ ...cb("succeeded", 1), signature: "invalid" }]),
        /1 of 1 signature\(s\) do not verify \(invalid\)/,
      ],
      [scenario("succeeded", [{ ...cb("succeeded", 1), signature: "missing" }]), /do not verify \(missing\)/],
      [
        scenario("succeeded", [
          { ...cb("succeeded", 1), answeredWith: 503, body: '{"id":"order-1","status":"succeeded"}' },
          { ...cb("succeeded", 900), signature: "invalid", body: '{"status":"succeeded","id":"order-1"}' },
        ]),
        /^1 of 2 signature\(s\) do not verify \(invalid\); 1 of them carry other bytes than the first delivery \(delivery 2\)$/,
      ],
    ],
  },
  "callbacks.matches-order": {
    good: [succeeded, scenario("succeeded", [cb("succeeded", 1)], { paths: { id: "id", status: "status" } })],
    bad: [
      [
        scenario("succeeded", [cb("succeeded", 1, { amount: 15, currency: "KZT" })]),
        /amount is 15, the order's is 1500; currency is "KZT", the order's is "RUB"/,
      ],
      [scenario("succeeded", [cb("success", 1)]), /no callback for "succeeded" to compare/],
    ],
  },
  "callbacks.exactly-once": {
    good: [
      succeeded,
      scenario("succeeded", [{ ...cb("succeeded", 1), answeredWith: 503 }, cb("succeeded", 600)]),
    ],
    bad: [
      [
        scenario("succeeded", [cb("succeeded", 1), cb("succeeded", 2)]),
        /2 acknowledged "succeeded" callbacks/,
      ],
    ],
  },
  "callbacks.appeal-after-failure": {
    good: [
      scenario("succeeded_by_appeal", [cb("failed_by_terminal", 1), cb("succeeded_by_appeal", 300)]),
      scenario("succeeded_by_appeal", [cb("succeeded_by_appeal", 300)]),
      // Sent 50 ms apart, arrived the other way round: the times they carry decide.
      scenario(
        "succeeded_by_appeal",
        [
          cb("succeeded_by_appeal", 1, { dateUpdated: "2026-01-01T00:00:00.100Z" }),
          cb("failed_by_terminal", 1, { dateUpdated: "2026-01-01T00:00:00.050Z" }),
        ],
        { paths: { id: "id", status: "status", dateUpdated: "dateUpdated" } },
      ),
    ],
    bad: [
      [
        scenario("succeeded_by_appeal", [cb("succeeded_by_appeal", 1), cb("failed_by_terminal", 500)]),
        /failed_by_terminal arrived 0\.50 s after succeeded_by_appeal \(by arrival\)/,
      ],
      [
        scenario(
          "succeeded_by_appeal",
          [
            cb("failed_by_terminal", 1, { dateUpdated: "2026-01-01T00:00:00.300Z" }),
            cb("succeeded_by_appeal", 2, { dateUpdated: "2026-01-01T00:00:00.100Z" }),
          ],
          { paths: { id: "id", status: "status", dateUpdated: "dateUpdated" } },
        ),
        /failed_by_terminal says it was entered 0\.20 s after succeeded_by_appeal \(dateUpdated\)/,
      ],
      [
        scenario(
          "succeeded_by_appeal",
          [cb("succeeded_by_appeal", 1, { dateUpdated: "soon" }), cb("failed_by_terminal", 500)],
          { paths: { id: "id", status: "status", dateUpdated: "dateUpdated" } },
        ),
        /arrived 0\.50 s after succeeded_by_appeal \(by arrival: dateUpdated is not a readable date in both\)/,
      ],
      [
        scenario("succeeded_by_appeal", [cb("failed_by_terminal", 1)]),
        /no succeeded_by_appeal callback arrived/,
      ],
    ],
  },
  "callbacks.retry-policy": {
    good: [
      {
        attemptsAtMs: [0, 500, 1500, 3500, 7500],
        policy: { attempts: 5, delaysMs: [500, 1000, 2000, 4000], toleranceMs: 300 },
      },
      { attemptsAtMs: [0, 800] },
      // Late by 0.25 s with a tolerance of 0.15 s, while the sink itself stood still for 0.12 s.
      {
        attemptsAtMs: [0, 100, 300, 600, 1250],
        policy: { attempts: 5, delaysMs: [100, 200, 300, 400], toleranceMs: 150 },
        observerStallMs: 120,
      },
      // Observed traffic: refused once, acknowledged on the retry: two attempts of five were all that was due.
      {
        attemptsAtMs: [0, 110],
        policy: { attempts: 5, delaysMs: [100, 200, 300, 400], toleranceMs: 50 },
        settled: true,
      },
      // Watching stopped before the third attempt was due.
      {
        attemptsAtMs: [0, 100],
        policy: { attempts: 3, delaysMs: [100, 200], toleranceMs: 50 },
        observedUntilMs: 250,
      },
      // The receiver took 0.4 s to refuse: the retry's delay counted from then.
      {
        attemptsAtMs: [0, 520],
        policy: { attempts: 2, delaysMs: [100], toleranceMs: 50 },
        refusedAfterMs: [400],
        bodies: ['{"id":"o-1"}', '{"id":"o-1"}'],
      },
    ],
    bad: [
      [{ attemptsAtMs: [0] }, /1 attempt\(s\): a refused callback was not retried/],
      [
        {
          attemptsAtMs: [0, 500, 1500],
          policy: { attempts: 5, delaysMs: [500, 1000, 2000, 4000], toleranceMs: 300 },
        },
        /3 attempts, the policy says 5/,
      ],
      [
        { attemptsAtMs: [0, 100], policy: { attempts: 2, delaysMs: [500], toleranceMs: 300 } },
        /retry 1 after 0\.10 s, the policy says 0\.50 s ± 0\.30 s/,
      ],
      // The sink's stall widens the room by its length, no more: 0.65 s is 0.25 s + 0.11 s late.
      [
        {
          attemptsAtMs: [0, 100, 300, 600, 1250],
          policy: { attempts: 5, delaysMs: [100, 200, 300, 400], toleranceMs: 150 },
          observerStallMs: 90,
        },
        /retry 4 after 0\.65 s, the policy says 0\.40 s ± 0\.15 s \(\+ 0\.09 s, the sink's own stalls meanwhile\)/,
      ],
      // Observed traffic: a refusal settled by an acknowledged retry may not be followed by more attempts than declared.
      [
        {
          attemptsAtMs: [0, 100, 300],
          policy: { attempts: 2, delaysMs: [100], toleranceMs: 50 },
          settled: true,
        },
        /3 attempts, the policy says 2/,
      ],
      // Watched past the next retry's due time, and none came.
      [
        {
          attemptsAtMs: [0, 100],
          policy: { attempts: 3, delaysMs: [100, 200], toleranceMs: 50 },
          observedUntilMs: 1_000,
        },
        /2 attempts, the policy says 3/,
      ],
      [
        {
          attemptsAtMs: [0, 100],
          policy: { attempts: 2, delaysMs: [100], toleranceMs: 50 },
          bodies: ['{"id":"o-1"}', '{"id":"o-1","x":1}'],
        },
        /retry 1 carries other bytes than the first attempt/,
      ],
      // The refusal's time gives room to be late, no more.
      [
        {
          attemptsAtMs: [0, 700],
          policy: { attempts: 2, delaysMs: [100], toleranceMs: 50 },
          refusedAfterMs: [400],
        },
        /retry 1 after 0\.70 s, the policy says 0\.10 s ± 0\.05 s \(\+ 0\.40 s, counted from the attempt's refusal\)/,
      ],
    ],
  },
  "envelope.content-coding-accepted": {
    good: [
      { codings: ["gzip"], acceptEncoding: "gzip, br", refused: [], decoded: true },
      { codings: ["br"], acceptEncoding: undefined, refused: [], decoded: true },
    ],
    bad: [
      [
        { codings: ["br"], acceptEncoding: "gzip", refused: ["br"], decoded: true },
        /Content-Encoding br, which the request's Accept-Encoding "gzip" does not accept \(br\)/,
      ],
      // Not decoded: not evaluated (ok false), never passed, with the reason.
      [
        {
          codings: ["gzip"],
          acceptEncoding: undefined,
          refused: [],
          decoded: false,
          problem: "the body does not decode as gzip",
        },
        /not evaluated, because the answer's body could not be decoded.*does not decode as gzip/,
      ],
    ],
  },
  "envelope.strict-json": {
    good: [successResponse, errorResponse],
    bad: [
      [
        { ...successResponse, jsonText: strictIssues('{"result":{"status":"error","status":"success"}}') },
        /^duplicate-name at result\.status: member "status" twice in one object/,
      ],
      [
        { ...successResponse, jsonText: strictIssues('\ufeff{"result":{"message":"\\ud800"}}') },
        /^byte-order-mark at \(body\): .*; lone-surrogate at result\.message: \\ud800, a high surrogate/,
      ],
    ],
  },
  "envelope.json-content-type": {
    good: [successResponse, response(200, {}, "application/problem+json")],
    bad: [
      [response(200, {}, "text/html"), /Content-Type is "text\/html", not JSON/],
      [{ ...successResponse, headers: {} }, /no Content-Type header/],
    ],
  },
  "envelope.shape": {
    good: [successResponse, errorResponse],
    bad: [
      [response(200, { data: record }), /^result is missing: expected an object$/],
      [
        response(200, { data: record, result: { ...okResult, message: 5 } }),
        /^result\.message is the number 5: expected a string$/,
      ],
      [response(500, undefined), /body is not JSON \(HTTP 500/],
    ],
  },
  "envelope.request-id-present": {
    good: [successResponse, errorResponse],
    bad: [
      [
        response(200, { data: record, result: { ...okResult, "x-request-id": undefined } }),
        /result\.x-request-id is absent/,
      ],
      [
        response(200, { data: record, result: { ...okResult, "x-request-id": "" } }),
        /not a non-empty string/,
      ],
      [
        response(401, { data: null, result: { ...errResult, "x-request-id": 7 } }),
        /is 7, not a non-empty string/,
      ],
    ],
  },
  "envelope.success-markers": {
    good: [successResponse],
    bad: [
      [
        response(200, { data: record, result: { ...okResult, message: "OK" } }),
        /result\.message is "OK", expected null/,
      ],
      [response(200, { data: record, result: { ...okResult, status: "ok" } }), /result\.status is "ok"/],
      [response(200, { data: record, result: { ...okResult, codeError: "0" } }), /result\.codeError is "0"/],
      [response(201, { data: record, result: okResult }), /HTTP 201, expected 200/],
      [response(200, { result: okResult }), /data is absent/],
    ],
  },
  "envelope.failure-markers": {
    good: [
      errorResponse,
      response(404, { result: { ...errResult, codeError: "order_not_found" } }),
      // §2.1 allows a null message and gives every response data: neither breaks a marker.
      response(400, { data: {}, result: { ...errResult, message: null } }),
    ],
    bad: [
      [
        response(401, { data: null, result: { ...errResult, status: "success" } }),
        /result\.status is "success" on a failure/,
      ],
      [response(200, { data: null, result: errResult }), /HTTP 200 is a success status/],
      [
        response(400, { data: null, result: { ...errResult, codeError: "none" } }),
        /result\.codeError is "none"/,
      ],
    ],
  },
  "envelope.failure-data": {
    good: [
      { response: errorResponse },
      { response: response(400, { data: {}, result: errResult }), failureData: "any" },
    ],
    bad: [
      [{ response: response(400, { data: {}, result: errResult }) }, /data is \{\}, expected null or absent/],
    ],
  },
  "envelope.failure-message": {
    good: [
      { response: errorResponse },
      {
        response: response(400, { data: null, result: { ...errResult, message: null } }),
        failureMessage: "any",
      },
      {
        response: response(400, { data: null, result: { ...errResult, message: "" } }),
        failureMessage: "any",
      },
    ],
    bad: [
      [
        {
          response: response(400, { data: null, result: { ...errResult, message: null } }),
          failureMessage: "string",
        },
        /result\.message is null, expected a string/,
      ],
      [
        { response: response(400, { data: null, result: { ...errResult, message: "" } }) },
        /result\.message is "", expected a message that says what failed/,
      ],
      [
        { response: response(400, { data: null, result: { ...errResult, message: " \t " } }) },
        /not a blank one/,
      ],
    ],
  },

  "envelope.within-size-limit": {
    good: [
      successResponse,
      { ...successResponse, size: { bytes: 262_144, from: "content-length" } },
      {
        ...successResponse,
        size: { bytes: 90, from: "counted" },
        contentEncoding: { codings: ["gzip"], decoded: true },
      },
    ],
    bad: [
      [
        {
          ...successResponse,
          truncated: true,
          limitBytes: 262_144,
          size: { bytes: 5_242_880, from: "content-length" },
        },
        /answer is 5,242,880 bytes \(Content-Length\), over the limit of 262,144 bytes; only the first 262,144 bytes are kept/,
      ],
      [
        {
          ...successResponse,
          truncated: true,
          limitBytes: 1024,
          size: { bytes: 9_000_000, from: "at-least" },
        },
        /answer is at least 9,000,000 bytes \(reading stopped there\), over the limit of 1,024 bytes/,
      ],
      [
        {
          ...successResponse,
          truncated: true,
          limitBytes: 262_144,
          size: { bytes: 130_878, from: "at-least" },
          contentEncoding: { codings: ["gzip"], decoded: true },
        },
        /answer decodes to more than the limit of 262,144 bytes; gzip-compressed: at least 130,878 bytes/,
      ],
    ],
  },
  "envelope.request-id-unique": {
    good: [[1, 2, 3].map((n) => ({ requestId: requestId(n), where: `#${n}` }))],
    bad: [
      [
        [1, 2, 1].map((n, i) => ({ requestId: requestId(n), where: `#${i}` })),
        /1 id\(s\) repeated; "req-1" appears in 2 responses \(#0, #2\)/,
      ],
      [[{ requestId: "a", where: "#0" }], /only 1 response/],
    ],
  },
  "semantics.order-id-unique": {
    good: [
      [
        { orderId: "a", where: "#1" },
        { orderId: "b", where: "#2" },
      ],
    ],
    bad: [
      [
        [
          { orderId: "100001", where: "#1 createMobileCommerceOrder, merchant m-1" },
          { orderId: "100002", where: "#2" },
          { orderId: "100001", where: "#3 createMobileCommerceOrder, merchant m-2" },
        ],
        /1 id\(s\) given to more than one order; "100001" to 2 orders \(#1 createMobileCommerceOrder, merchant m-1, #3 createMobileCommerceOrder, merchant m-2\)/,
      ],
    ],
  },
  "fields.order-record": {
    good: [{ data: record, contract }],
    bad: [
      [
        { data: { ...record, amount: "1500" }, contract },
        /^data\.amount is the string "1500": expected a number$/,
      ],
      [
        { data: { ...record, paymentDetailsData: undefined }, contract },
        /^data\.paymentDetailsData is missing: expected an object$/,
      ],
      [{ data: { ...record, merchantID: null }, contract }, /^data\.merchantID is null: expected a string$/],
      [{ data: null, contract }, /data is null: there is no order record/],
      [
        {
          data: { ...record, currency: "EUR" },
          contract: buildContract({ ...LENIENT_GAPS, currencies: ["RUB"] }),
        },
        /data\.currency/,
      ],
    ],
  },
  "fields.confirmation-result": {
    good: [{ data: confirmation, contract }],
    bad: [
      [{ data: { ...confirmation, timer: undefined }, contract }, /data\.timer/],
      [{ data: { ...confirmation, amount: "1500" }, contract }, /data\.amount/],
    ],
  },
  "fields.quasi-ecom-creation-result": {
    good: [{ data: { id: "q", status: "created", merchantOrderID: null }, contract }],
    bad: [[{ data: { status: "created" }, contract }, /data\.id/]],
  },
  "fields.status-known": {
    good: [{ status: "created", known: ORDER_STATUSES }],
    bad: [
      [{ status: "success", known: ORDER_STATUSES }, /status "success" is not a known status/],
      [{ status: 3, known: ORDER_STATUSES }, /status 3/],
    ],
  },
  "semantics.usdt-amount": {
    good: [{ record, tolerance: 0.01 }],
    bad: [
      [
        { record: { ...record, usdtAmount: 138750 }, tolerance: 0.01 },
        /usdtAmount 138750 vs amount \/ exchangeRate = 1500 \/ 92\.5.*exceeds tolerance 0\.01/,
      ],
      [
        { record: { ...record, usdtAmount: "16.22" }, tolerance: 0.01 },
        /usdtAmount is "16\.22", not a number/,
      ],
      [{ record: { ...record, exchangeRate: 0 }, tolerance: 0.01 }, /exchangeRate is 0/],
    ],
  },
  "semantics.usdt-commission": {
    good: [{ record, tolerance: 0.01 }],
    bad: [
      [
        { record: { ...record, usdtAmountComission: 37.5 }, tolerance: 0.01 },
        /usdtAmountComission 37\.5 vs amountComission/,
      ],
    ],
  },
  "semantics.commission-non-negative": {
    good: [record],
    bad: [[{ ...record, amountComission: -1 }, /amountComission is -1/]],
  },
  "semantics.exchange-rate-positive": {
    good: [record],
    bad: [
      [{ ...record, exchangeRate: -92.5 }, /exchangeRate is -92\.5/],
      [{ ...record, exchangeRate: null }, /exchangeRate is null, not a number/],
    ],
  },
  "semantics.amount-echoed": {
    good: [{ field: "amount", expected: 1500, received: 1500 }],
    bad: [[{ field: "amount", expected: 1500, received: 1500.5 }, /amount is 1500\.5, expected 1500/]],
  },
  "semantics.currency-of-method": {
    good: [{ field: "currency", expected: "RUB", received: "RUB" }],
    bad: [[{ field: "currency", expected: "RUB", received: "KZT" }, /currency is "KZT", expected "RUB"/]],
  },
  "semantics.requisite-type-fields": {
    good: [
      {
        paymentDetails: { requisiteTypeCode: "link", link: "https://x" },
        methodID: 101,
        declaredType: "link",
        linkTypes: ["link"],
      },
      {
        paymentDetails: { requisiteTypeCode: "phone", link: null },
        methodID: 102,
        declaredType: undefined,
        linkTypes: ["link"],
      },
    ],
    bad: [
      [
        {
          paymentDetails: { requisiteTypeCode: "link", link: null },
          methodID: 101,
          declaredType: "link",
          linkTypes: ["link"],
        },
        /^paymentDetailsData\.link is null, but requisiteTypeCode "link" of method 101 is a link type: expected a non-empty link$/,
      ],
      [
        {
          paymentDetails: { requisiteTypeCode: "link", link: " " },
          methodID: 101,
          declaredType: undefined,
          linkTypes: ["link"],
        },
        /link is " "/,
      ],
      [
        {
          paymentDetails: { requisiteTypeCode: "phone", link: null },
          methodID: 101,
          declaredType: "link",
          linkTypes: ["link"],
        },
        /requisiteTypeCode is "phone", but the profile declares "link" for method 101/,
      ],
      [
        { paymentDetails: null, methodID: 101, declaredType: "link", linkTypes: [] },
        /paymentDetailsData is null/,
      ],
    ],
  },
  "semantics.method-echoed": {
    good: [{ field: "paymentDetailsData.methodID", expected: 101, received: 101 }],
    bad: [
      [
        { field: "paymentDetailsData.methodID", expected: 101, received: 102 },
        /paymentDetailsData\.methodID is 102/,
      ],
    ],
  },
  "semantics.merchant-order-id-echoed": {
    good: [
      { field: "idTransactionMerchant", expected: "m-1", received: "m-1" },
      { field: "idTransactionMerchant", expected: null, received: null },
      { field: "merchantOrderID", expected: null, received: undefined },
    ],
    bad: [
      [
        { field: "idTransactionMerchant", expected: "m-1", received: null },
        /idTransactionMerchant is null, expected "m-1"/,
      ],
      [
        { field: "merchantOrderID", expected: null, received: "someone-else" },
        /merchantOrderID is "someone-else", expected null/,
      ],
    ],
  },
  "semantics.dates-ordered": {
    good: [
      { record, rfc3339: true },
      { record: { ...record, dateAdded: "Sun, 22 Nov 2026 03:00:00 GMT" }, rfc3339: false },
      // No declared format: a date that is not ISO 8601 is not misread, and its order not judged.
      { record: { ...record, dateAdded: "23.11.2026 03:00" }, rfc3339: false },
      { record: { ...record, dateAdded: "yesterday" }, rfc3339: false },
    ],
    bad: [
      [
        { record: { ...record, dateUpdated: "2026-11-22T02:00:00.000Z" }, rfc3339: true },
        /dateUpdated "2026-11-22T02:00:00.000Z" is 3600 s before dateAdded/,
      ],
      [
        { record: { ...record, dateAdded: "2026-13-45T03:00:00Z" }, rfc3339: true },
        /dateAdded "2026-13-45T03:00:00Z" does not parse as a date/,
      ],
      [
        { record: { ...record, dateUpdated: "2026-11-22T02:00:00Z" }, rfc3339: false },
        /dateUpdated "2026-11-22T02:00:00Z" is 3600 s before dateAdded/,
      ],
      [{ record: { ...record, dateAdded: "2026-11-22 03:00:00" }, rfc3339: true }, /is not RFC 3339/],
      [
        { record: { ...record, dateAdded: 1763780400 }, rfc3339: false },
        /dateAdded is 1763780400, not a string/,
      ],
    ],
  },
  "semantics.routing-attempts-empty": {
    good: [record],
    bad: [
      [{ ...record, routingAttempts: [{ terminal: "t1" }] }, /routingAttempts has 1 element/],
      [{ ...record, routingAttempts: null }, /routingAttempts is null, not an array/],
    ],
  },
  "semantics.confirmation-echoes-order": {
    good: [
      {
        pathId: "order-1",
        order: { amount: 1500, currency: "RUB", merchantOrderID: "m-1" },
        result: confirmation,
      },
    ],
    bad: [
      [
        {
          pathId: "order-2",
          order: { amount: 1500, currency: "RUB", merchantOrderID: "m-1" },
          result: confirmation,
        },
        /id is "order-1", expected the path's "order-2"/,
      ],
      [
        {
          pathId: "order-1",
          order: { amount: 99, currency: "KZT", merchantOrderID: null },
          result: confirmation,
        },
        /amount is 1500, the order's is 99; currency is "RUB", the order's is "KZT"; merchantOrderID is "m-1", the order's is null/,
      ],
    ],
  },
  "semantics.timer-valid": {
    good: [confirmation, { ...confirmation, timer: 0 }],
    bad: [
      [{ ...confirmation, timer: -1 }, /timer is -1, negative/],
      [{ ...confirmation, timer: undefined }, /timer is absent, not a number/],
    ],
  },
  "semantics.status-after-operation": {
    good: [
      { operation: "createMobileCommerceOrder", expected: "payment_pending", received: "payment_pending" },
    ],
    bad: [
      [
        { operation: "confirmQuasiEcomOrder", expected: "created", received: "succeeded" },
        /confirmQuasiEcomOrder answered status "succeeded", expected "created"/,
      ],
    ],
  },
  "behaviour.rejects-missing-api-key": rejectionCases,
  "behaviour.rejects-wrong-api-key": rejectionCases,
  "behaviour.rejects-near-miss-api-key": rejectionCases,
  "behaviour.rejects-query-api-key": rejectionCases,
  "behaviour.rejects-missing-field": rejectionCases,
  "behaviour.rejects-wrong-type": rejectionCases,
  "behaviour.rejects-traffic-type-outside-enum": rejectionCases,
  "behaviour.rejects-non-positive-amount": rejectionCases,
  "behaviour.rejects-malformed-json": rejectionCases,
  "behaviour.rejects-unknown-order": rejectionCases,
  "behaviour.rejects-wrong-code": rejectionCases,
  "behaviour.rejects-confirming-twice": rejectionCases,
  "behaviour.rejects-other-kind-confirm-path": rejectionCases,
  "behaviour.rejects-duplicate-merchant-order-id": rejectionCases,
  "behaviour.rejects-other-merchants-order": rejectionCases,
  "behaviour.accepts-merchant-order-id-of-other-merchant": acceptanceCases,
  "behaviour.accepts-merchant-order-id-differing-in-case": acceptanceCases,
  "behaviour.confirmable-after-wrong-code": acceptanceCases,
  "behaviour.rejects-malformed-code": rejectionCases,
  "behaviour.refusal-changes-nothing": {
    good: [
      {
        refused: "create refused: an amount of zero",
        proof: "create",
        shows: "its merchantOrderID is still free",
        response: response(200, { data: { ...record, status: "payment_pending" }, result: okResult }),
      },
    ],
    bad: [
      [
        {
          refused: "create refused: an amount of zero",
          proof: "create",
          shows: "its merchantOrderID is still free",
          response: response(409, {
            data: null,
            result: { ...errResult, codeError: "duplicate_merchant_order_id" },
          }),
        },
        /after create refused: an amount of zero was refused, create answered HTTP 409 codeError "duplicate_merchant_order_id", not 200: the refusal had an effect/,
      ],
      [
        {
          refused: "confirm through the other kind's path",
          proof: "confirm with code 1111",
          shows: "the order must still await its confirmation",
          response: response(409, { data: null, result: { ...errResult, codeError: "invalid_order_state" } }),
        },
        /confirm with code 1111 answered HTTP 409 codeError "invalid_order_state", not 200/,
      ],
    ],
  },
  "behaviour.confirms-late-in-lifetime": {
    good: [
      {
        response: response(200, { data: { timer: 11 }, result: okResult }),
        lifetimeSeconds: 30,
        ageSeconds: { least: 18, most: 18.4 },
        successStatus: "succeeded",
        callbackStatuses: ["succeeded"],
      },
    ],
    bad: [
      [
        {
          response: response(409, { data: null, result: { ...errResult, codeError: "invalid_order_state" } }),
          lifetimeSeconds: 30,
          ageSeconds: { least: 18, most: 18.4 },
          successStatus: "succeeded",
          callbackStatuses: ["expired"],
        },
        /the success code, sent 18\.0-18\.4 s into its declared lifetime of 30 s, answered HTTP 409 codeError "invalid_order_state": the order no longer took its confirmation/,
      ],
      [
        {
          response: response(200, { data: { timer: 11 }, result: okResult }),
          lifetimeSeconds: 30,
          ageSeconds: { least: 18, most: 18.4 },
          successStatus: "succeeded",
          callbackStatuses: ["expired"],
        },
        /was accepted, but the order did not reach "succeeded" \(callbacks: "expired"\)/,
      ],
    ],
  },
  "semantics.timer-counts-down-lifetime": {
    good: [
      {
        timer: 11.7,
        lifetimeSeconds: 30,
        movedSeconds: 18,
        minElapsedSeconds: 0.1,
        maxElapsedSeconds: 0.4,
        toleranceSeconds: 1,
        timerStepSeconds: 1,
      },
    ],
    bad: [
      [
        {
          timer: 30,
          lifetimeSeconds: 30,
          movedSeconds: 18,
          minElapsedSeconds: 0.1,
          maxElapsedSeconds: 0.4,
          toleranceSeconds: 1,
          timerStepSeconds: 1,
        },
        /timer 30 late in the order's life, expected between 9\.600 and 13\.900 .*: it does not count the lifetime down/,
      ],
      [
        {
          timer: 0,
          lifetimeSeconds: 30,
          movedSeconds: 18,
          minElapsedSeconds: 0.1,
          maxElapsedSeconds: 0.4,
          toleranceSeconds: 1,
          timerStepSeconds: 1,
        },
        /it counts down a shorter lifetime/,
      ],
      [
        {
          timer: "11",
          lifetimeSeconds: 30,
          movedSeconds: 18,
          minElapsedSeconds: 0.1,
          maxElapsedSeconds: 0.4,
          toleranceSeconds: 1,
          timerStepSeconds: 1,
        },
        /timer is "11", not a number/,
      ],
    ],
  },
  "semantics.refusal-keeps-timer": {
    good: [
      {
        timer: 19.4,
        lifetimeSeconds: 30,
        movedSeconds: 10,
        minElapsedSeconds: 0.3,
        maxElapsedSeconds: 0.6,
        toleranceSeconds: 1,
        timerStepSeconds: 1,
      },
    ],
    bad: [
      [
        {
          timer: 30,
          lifetimeSeconds: 30,
          movedSeconds: 10,
          minElapsedSeconds: 0.3,
          maxElapsedSeconds: 0.6,
          toleranceSeconds: 1,
          timerStepSeconds: 1,
        },
        /timer 30 after the refusals, expected between 17\.400 and 21\.700 .*: a refusal set the order's timer back/,
      ],
      [
        {
          timer: 5,
          lifetimeSeconds: 30,
          movedSeconds: 10,
          minElapsedSeconds: 0.3,
          maxElapsedSeconds: 0.6,
          toleranceSeconds: 1,
          timerStepSeconds: 1,
        },
        /a refusal ran the order's timer down/,
      ],
      [
        {
          timer: "20",
          lifetimeSeconds: 30,
          movedSeconds: 0,
          minElapsedSeconds: 0,
          maxElapsedSeconds: 1,
          toleranceSeconds: 1,
          timerStepSeconds: 1,
        },
        /timer is "20", not a number/,
      ],
    ],
  },
  "behaviour.no-server-error": {
    good: [
      [
        { status: 200, where: "a" },
        { status: 404, where: "b" },
      ],
    ],
    bad: [
      [
        [
          { status: 200, where: "a" },
          { status: 502, where: "POST /x" },
        ],
        /1 of 2 responses were 5xx: HTTP 502 for POST \/x/,
      ],
    ],
  },
};

describe.each([...CHECK_REGISTRY.values()].map((check) => [check.name, check] as const))(
  "%s",
  (name, check) => {
    const cases = CASES[name];
    it("passes on a good response", () => {
      expect(cases, `no test cases for ${name}`).toBeDefined();
      for (const input of cases?.good ?? []) {
        const outcome = (check as Check<unknown>).run(input);
        expect(outcome, outcome.detail).toMatchObject({ ok: true });
      }
    });
    it("fails on a bad response, saying what is wrong", () => {
      expect(cases?.bad.length ?? 0).toBeGreaterThan(0);
      for (const [input, detail] of cases?.bad ?? []) {
        const outcome = (check as Check<unknown>).run(input);
        expect(outcome.ok).toBe(false);
        expect(outcome.detail).toMatch(detail);
        // Plain words: the path, what was expected and found, never zod's own text.
        expect(outcome.detail).not.toMatch(/Invalid input|received undefined|Unrecognized key/);
      }
    });
    it("names the basis of its rule", () => {
      const source = check.source;
      if (source.kind === "stated") expect(source.sections.length).toBeGreaterThan(0);
      if (source.kind === "declared") expect(source.keys.length).toBeGreaterThan(0);
      if (source.kind === "necessary" || source.kind === "advisory")
        expect(source.reason.length).toBeGreaterThan(20);
    });
  },
);

it("every check has cases, and every case is a check", () => {
  expect(Object.keys(CASES).sort()).toEqual([...CHECK_REGISTRY.keys()].sort());
});

describe("the checks' index", () => {
  it("imports every module of contract/checks, so that every check registers", () => {
    const dir = new URL(".", import.meta.url);
    const index = readFileSync(new URL("index.ts", dir), "utf8");
    const modules = readdirSync(dir).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "index.ts",
    );
    expect(modules.filter((f) => !index.includes(`"./${f}"`))).toEqual([]);
  });
});

describe("a check's scope", () => {
  it("is declared by every check; the run-scope ones, and only they, carry the engine's overRun", () => {
    for (const check of CHECK_REGISTRY.values()) {
      expect(CHECK_SCOPES, check.name).toContain(check.scope);
      expect(check.overRun !== undefined, check.name).toBe(check.scope === "run");
    }
    expect(checksOfScope("run").map((c) => c.name)).toEqual(
      expect.arrayContaining([
        "envelope.strict-json",
        "envelope.within-size-limit",
        "behaviour.no-server-error",
      ]),
    );
  });

  it("refuses a run-scope check without overRun, and overRun on a check the specs run", () => {
    const judge = () => pass("fine");
    expect(() =>
      defineCheck("envelope.scratch-no-pass", "envelope", "A scratch rule (§4).", judge, { scope: "run" }),
    ).toThrow(/run-scope check needs overRun/);
    expect(() =>
      defineCheck("envelope.scratch-spec-run", "envelope", "A scratch rule (§4).", judge, {
        scope: "exchange",
        overRun: () => [],
      }),
    ).toThrow(/only a run-scope check has one/);
    expect(CHECK_REGISTRY.has("envelope.scratch-no-pass")).toBe(false);
  });
});

it("callbacks.signature-valid shows a retry whose bytes differ with both bodies", () => {
  const first = '{"id":"order-1","status":"succeeded"}';
  const retry = '{"status":"succeeded","id":"order-1"}';
  const outcome = callbacksSignatureValid.run(
    scenario("succeeded", [
      { ...cb("succeeded", 1), answeredWith: 503, body: first },
      { ...cb("succeeded", 900), signature: "invalid", body: retry },
    ]),
  );
  expect(outcome.findings).toEqual([
    { path: "body of delivery 2", expected: `the first delivery's bytes, ${first}`, actual: retry },
  ]);
});
