/**
 * The bytes as received, not only the value JSON.parse makes of them: a body with a member name
 * twice, a byte order mark, bytes that are not UTF-8 or a lone surrogate reads one way here and
 * another way in the merchant's parser (first-wins, serde, `JSON.parse(buf.toString())`).
 */
import type { ExchangeResponse, RecordedExchange } from "../client/index.ts";
import {
  type Finding,
  type JsonTextIssue,
  type JsonTextProblem,
  type JsonTextReport,
  matchEndpoint,
} from "../schemas/index.ts";
import type { CallbackScenario } from "./callbacks.ts";
import {
  type Check,
  defineCheck,
  exchangeWhere,
  fail,
  pass,
  type RuleSource,
  type RunJudgement,
} from "./check.ts";

/** Exchanges a record points at: enough to open a few, not a list of every answer of a flood. */
const MAX_IDS = 20;

/** What each problem breaks, as a finding's `expected`. */
const EXPECTED: Record<JsonTextProblem, string> = {
  "byte-order-mark": "JSON text that starts with its first value, no byte order mark (RFC 8259 §8.1)",
  "invalid-utf8": "UTF-8 bytes (RFC 8259 §8.1)",
  "duplicate-name": "each member name once per object (RFC 8259 §4; I-JSON, RFC 7493 §2.3)",
  "lone-surrogate": "a surrogate pair, never half of one (I-JSON, RFC 7493 §2.1)",
};

const SOURCE: RuleSource = {
  kind: "necessary",
  reason:
    "§4 makes every body JSON; RFC 8259 §8.1 says JSON between systems MUST be UTF-8 and MUST NOT start with a byte order mark, " +
    "and a member name twice (§4) or a lone surrogate (§8.2) has no one meaning: a first-wins parser reads another answer than " +
    "JSON.parse does, and I-JSON (RFC 7493 §2.1, §2.3) forbids both",
};

function findingsOf(issues: readonly JsonTextIssue[], where = ""): Finding[] {
  return issues.map((issue) => ({
    path: `${where}${issue.path}`,
    expected: EXPECTED[issue.problem],
    actual: `${issue.problem}: ${issue.detail}`,
  }));
}

const said = (issues: readonly JsonTextIssue[], more: number) =>
  `${issues.map((i) => `${i.problem} at ${i.path}: ${i.detail}`).join("; ")}${more > 0 ? `; and ${more} more` : ""}`;

export const envelopeStrictJson: Check<Pick<ExchangeResponse, "jsonText">> = defineCheck<
  Pick<ExchangeResponse, "jsonText">
>(
  "envelope.strict-json",
  "envelope",
  "Every answer's bytes are JSON with one reading: UTF-8 with no byte order mark, no member name twice in an object at any depth, no lone surrogate (RFC 8259, I-JSON).",
  ({ jsonText }) => {
    if (!jsonText) return pass("UTF-8, no byte order mark, every member name once, no lone surrogate");
    return fail(said(jsonText.issues, jsonText.more), findingsOf(jsonText.issues));
  },
  {
    source: SOURCE,
    // Every JSON answer of the run: one record per endpoint whose answers break it (the first
    // one's findings in full); when none does, one passed record says how many were read.
    overRun: ({ exchanges }) => {
      // Only JSON answers: a body that is not JSON is envelope.shape's finding (one cause, one failure).
      const judged = exchanges.filter(
        (e) => e.response.json !== undefined || e.response.jsonText !== undefined,
      );
      const byEndpoint = new Map<string, RecordedExchange[]>();
      const failing = new Map<string, RecordedExchange[]>();
      for (const exchange of judged) {
        const path = new URL(exchange.request.url).pathname;
        // A probe sent to an endpoint's path without naming it counts under that endpoint.
        const endpoint = exchange.operation ?? matchEndpoint(path)?.operation ?? path;
        byEndpoint.set(endpoint, [...(byEndpoint.get(endpoint) ?? []), exchange]);
        if (!envelopeStrictJson.run(exchange.response).ok)
          failing.set(endpoint, [...(failing.get(endpoint) ?? []), exchange]);
      }
      if (failing.size === 0)
        return [
          {
            outcome: pass(
              `all ${judged.length} JSON answer(s): UTF-8, no byte order mark, every member name once, no lone surrogate`,
            ),
          },
        ];
      return [...failing].map(([endpoint, bad]): RunJudgement => {
        const first = bad[0] as RecordedExchange;
        const outcome = envelopeStrictJson.run(first.response);
        const of = byEndpoint.get(endpoint)?.length ?? bad.length;
        return {
          outcome: fail(
            `${bad.length} of ${of} answer(s); first ${exchangeWhere(first)}: ${outcome.detail}`,
            outcome.findings,
          ),
          endpoint,
          exchanges: bad.slice(0, MAX_IDS).map((e) => e.id),
          subject: first.id,
        };
      });
    },
  },
);

export const callbacksStrictJson = defineCheck<CallbackScenario>(
  "callbacks.strict-json",
  "callbacks",
  "Every delivery of a callback is JSON with one reading: UTF-8 with no byte order mark, no member name twice in an object at any depth, no lone surrogate (RFC 8259, I-JSON).",
  (scenario) => {
    if (scenario.callbacks.length === 0) return fail("no callback arrived");
    const bad = scenario.callbacks.flatMap((callback, i) =>
      callback.jsonText ? [{ delivery: i + 1, report: callback.jsonText as JsonTextReport }] : [],
    );
    if (bad.length === 0)
      return pass(
        `${scenario.callbacks.length} deliver${scenario.callbacks.length === 1 ? "y" : "ies"}, each strict JSON`,
      );
    return fail(
      `${bad.length} of ${scenario.callbacks.length} deliveries: ${bad
        .map(({ delivery, report }) => `delivery ${delivery}: ${said(report.issues, report.more)}`)
        .join("; ")}`,
      bad.flatMap(({ delivery, report }) => findingsOf(report.issues, `delivery ${delivery}: `)),
    );
  },
  { source: SOURCE },
);
