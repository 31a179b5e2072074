/** Envelope checks (api §2.1, §7): every response, success or failure. */
import * as z from "zod";
import type { ExchangeResponse } from "../client/index.ts";
import {
  describeFinding,
  ENVELOPE_MARKERS,
  ErrorResult,
  plainFindings,
  ResultMember,
  SuccessResult,
} from "../schemas/index.ts";
import { defineCheck, fail, isRecord, pass, show } from "./check.ts";

/** The envelope's shape, less the request id, which has a check of its own. */
const EnvelopeShape = z.looseObject({ result: ResultMember.omit({ "x-request-id": true }) });

function result(response: ExchangeResponse): Record<string, unknown> | undefined {
  return isRecord(response.json) && isRecord(response.json.result) ? response.json.result : undefined;
}

function notJson(response: ExchangeResponse): string {
  const start = response.body.slice(0, 60).replace(/\s+/g, " ");
  return `body is not JSON (HTTP ${response.status}, ${response.body.length} bytes: ${show(start)})`;
}

export const envelopeJsonContentType = defineCheck<ExchangeResponse>(
  "envelope.json-content-type",
  "envelope",
  "Every response is JSON and says so in its Content-Type (§4: request and response bodies in JSON).",
  (response) => {
    const type = response.headers["content-type"];
    if (type === undefined) return fail("no Content-Type header");
    return /^application\/([\w.-]+\+)?json\b/i.test(type)
      ? pass(`Content-Type ${type}`)
      : fail(`Content-Type is ${show(type)}, not JSON`);
  },
);

export const envelopeShape = defineCheck<ExchangeResponse>(
  "envelope.shape",
  "envelope",
  "The body is the envelope: result.codeError a string, result.message a string or null, result.status a string (§2.1).",
  (response) => {
    if (response.json === undefined) return fail(notJson(response));
    const parsed = EnvelopeShape.safeParse(response.json);
    if (!parsed.success) {
      const findings = plainFindings(parsed.error, response.json, { rootName: "(body)" });
      return fail(findings.map(describeFinding).join("; "), findings);
    }
    return pass("data/result envelope with typed result members");
  },
);

export const envelopeRequestIdPresent = defineCheck<ExchangeResponse>(
  "envelope.request-id-present",
  "envelope",
  "Every response, successful or not, carries a non-empty result.x-request-id (§7).",
  (response) => {
    if (response.json === undefined) return fail(notJson(response));
    const id = result(response)?.["x-request-id"];
    if (id === undefined) return fail("result.x-request-id is absent");
    if (typeof id !== "string" || id.trim() === "")
      return fail(`result.x-request-id is ${show(id)}, not a non-empty string`);
    return pass(`result.x-request-id ${show(id)}`);
  },
);

const { successCodeError, successStatus } = ENVELOPE_MARKERS;

/** The result members the markers checks judge: the schemas' own, less the request id (a check of its own). */
const SuccessMarkers = SuccessResult.omit({ "x-request-id": true });
const FailureMarkers = ErrorResult.omit({ "x-request-id": true });

/** What a schema issue expected, in the words of a detail line. */
function expectationOf(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_value") return `expected ${issue.values.map((v) => show(v)).join(" or ")}`;
  if (issue.code === "invalid_type")
    return `expected ${issue.expected === "null" ? "null" : `a ${issue.expected}`}`;
  return issue.message;
}

/** One problem per member of `result` the schema refuses: `result.<member> is <found>, <expected>`. */
function markerProblems(
  schema: typeof SuccessMarkers | typeof FailureMarkers,
  result: Record<string, unknown>,
  when = "",
) {
  const parsed = schema.safeParse(result);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const member = issue.path.map(String).join(".");
    return `result.${member} is ${show(result[member])}${when}${issue.code === "invalid_value" || issue.code === "invalid_type" ? ", " : ": "}${expectationOf(issue)}`;
  });
}

export const envelopeSuccessMarkers = defineCheck<ExchangeResponse>(
  "envelope.success-markers",
  "envelope",
  `A success is HTTP 200 with data present, result.codeError "${successCodeError}", result.message null, result.status "${successStatus}" (§4, §7).`,
  (response) => {
    if (response.json === undefined) return fail(notJson(response));
    const problems: string[] = [];
    if (response.status !== 200) problems.push(`HTTP ${response.status}, expected 200`);
    const r = result(response);
    if (!r) return fail([...problems, "result is absent"].join("; "));
    problems.push(...markerProblems(SuccessMarkers, r));
    const data = isRecord(response.json) ? response.json.data : undefined;
    if (!isRecord(data)) problems.push(`data is ${show(data)}, expected the payload object`);
    return problems.length > 0
      ? fail(problems.join("; "))
      : pass(`HTTP 200, ${successCodeError}/null/${successStatus}, data present`);
  },
);

export const envelopeFailureMarkers = defineCheck<ExchangeResponse>(
  "envelope.failure-markers",
  "envelope",
  `A failure is a non-2xx HTTP status with result.codeError other than "${successCodeError}" and result.status other than "${successStatus}".`,
  (response) => {
    if (response.json === undefined) return fail(notJson(response));
    const problems: string[] = [];
    if (response.status >= 200 && response.status < 300)
      problems.push(`HTTP ${response.status} is a success status`);
    const r = result(response);
    if (!r) return fail([...problems, "result is absent"].join("; "));
    problems.push(...markerProblems(FailureMarkers, r, " on a failure"));
    return problems.length > 0
      ? fail(problems.join("; "))
      : pass(`HTTP ${response.status}, codeError ${show(r.codeError)}, status ${show(r.status)}`);
  },
  {
    source: {
      kind: "necessary",
      reason:
        "§7 shows no failure body or status; every response carries the §2.1 envelope, and a failure cannot carry the success markers none/success or a 2xx",
    },
  },
);

/** A failure's answer, with what the profile declares of its body (gaps.failureData, gaps.failureMessage). */
export interface FailureBodyInput {
  response: ExchangeResponse;
  failureData?: "null" | "any" | undefined;
  failureMessage?: "string" | "any" | undefined;
}

export const envelopeFailureData = defineCheck<FailureBodyInput>(
  "envelope.failure-data",
  "envelope",
  "A failure's data is null or absent, as the profile's gaps.failureData declares.",
  ({ response, failureData = "null" }) => {
    if (response.json === undefined) return fail(notJson(response));
    const data = isRecord(response.json) ? response.json.data : undefined;
    return failureData === "null" && data !== null && data !== undefined
      ? fail(`data is ${show(data)}, expected null or absent`)
      : pass(`data ${show(data)}`);
  },
  {
    source: {
      kind: "advisory",
      reason: "§7 shows no failure body, and §2.1 gives every response a data member",
      declaredBy: ["gaps.failureData"],
    },
  },
);

export const envelopeFailureMessage = defineCheck<FailureBodyInput>(
  "envelope.failure-message",
  "envelope",
  "A failure's result.message is a string that says what failed, as the profile's gaps.failureMessage declares: an empty or whitespace-only message says nothing and fails too.",
  ({ response, failureMessage = "string" }) => {
    if (response.json === undefined) return fail(notJson(response));
    const message = result(response)?.message;
    if (failureMessage !== "string") return pass(`result.message ${show(message)}`);
    if (typeof message !== "string") return fail(`result.message is ${show(message)}, expected a string`);
    // A blank message is a string that says nothing: the declaration asks for what failed.
    return message.trim() === ""
      ? fail(`result.message is ${show(message)}, expected a message that says what failed, not a blank one`)
      : pass(`result.message ${show(message)}`);
  },
  {
    source: {
      kind: "advisory",
      reason: "§7 shows no failure body, and §2.1 allows a message that is null",
      declaredBy: ["gaps.failureMessage"],
    },
  },
);
