/** Envelope checks (seed §2.1, §7): every response, success or failure. */
import * as z from "zod";
import type { ExchangeResponse } from "../h2h-client.ts";
import { ResultMember, SUCCESS_CODE_ERROR, SUCCESS_STATUS } from "../schemas.ts";
import { describeZodIssues } from "../zod-issues.ts";
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
    if (!parsed.success) return fail(describeZodIssues(parsed.error, "(body)").join("; "));
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

export const envelopeSuccessMarkers = defineCheck<ExchangeResponse>(
  "envelope.success-markers",
  "envelope",
  'A success is HTTP 200 with data present, result.codeError "none", result.message null, result.status "success" (§4, §7).',
  (response) => {
    if (response.json === undefined) return fail(notJson(response));
    const problems: string[] = [];
    if (response.status !== 200) problems.push(`HTTP ${response.status}, expected 200`);
    const r = result(response);
    if (!r) return fail([...problems, "result is absent"].join("; "));
    if (r.codeError !== SUCCESS_CODE_ERROR)
      problems.push(`result.codeError is ${show(r.codeError)}, expected "none"`);
    if (r.message !== null) problems.push(`result.message is ${show(r.message)}, expected null`);
    if (r.status !== SUCCESS_STATUS) problems.push(`result.status is ${show(r.status)}, expected "success"`);
    const data = isRecord(response.json) ? response.json.data : undefined;
    if (!isRecord(data)) problems.push(`data is ${show(data)}, expected the payload object`);
    return problems.length > 0
      ? fail(problems.join("; "))
      : pass("HTTP 200, none/null/success, data present");
  },
);

export const envelopeFailureMarkers = defineCheck<ExchangeResponse>(
  "envelope.failure-markers",
  "envelope",
  'A failure is a non-2xx HTTP status with result.codeError other than "none", result.status other than "success", a string result.message, and data null or absent.',
  (response) => {
    if (response.json === undefined) return fail(notJson(response));
    const problems: string[] = [];
    if (response.status >= 200 && response.status < 300)
      problems.push(`HTTP ${response.status} is a success status`);
    const r = result(response);
    if (!r) return fail([...problems, "result is absent"].join("; "));
    if (typeof r.codeError !== "string" || r.codeError === SUCCESS_CODE_ERROR) {
      problems.push(`result.codeError is ${show(r.codeError)}, expected an error code`);
    }
    if (r.status === SUCCESS_STATUS || typeof r.status !== "string")
      problems.push(`result.status is ${show(r.status)} on a failure`);
    if (typeof r.message !== "string")
      problems.push(`result.message is ${show(r.message)}, expected a message`);
    const data = isRecord(response.json) ? response.json.data : undefined;
    if (data !== null && data !== undefined) problems.push(`data is ${show(data)}, expected null or absent`);
    return problems.length > 0
      ? fail(problems.join("; "))
      : pass(`HTTP ${response.status}, codeError ${show(r.codeError)}, message ${show(r.message)}`);
  },
);

export interface RequestIdSighting {
  requestId: unknown;
  /** Where it was seen, e.g. an exchange id or a request line. */
  where: string;
}

export const envelopeRequestIdUnique = defineCheck<RequestIdSighting[]>(
  "envelope.request-id-unique",
  "envelope",
  "result.x-request-id differs from one response to the next (it identifies a request, §2.1).",
  (sightings) => {
    const seen = new Map<string, string[]>();
    for (const { requestId, where } of sightings) {
      if (typeof requestId !== "string" || requestId === "") continue;
      seen.set(requestId, [...(seen.get(requestId) ?? []), where]);
    }
    const repeated = [...seen].filter(([, places]) => places.length > 1);
    if (sightings.length < 2)
      return fail(`only ${sightings.length} response(s) seen: uniqueness cannot be judged`);
    if (repeated.length === 0) return pass(`${seen.size} distinct ids in ${sightings.length} responses`);
    const [id, places] = repeated[0] as [string, string[]];
    return fail(
      `${repeated.length} id(s) repeated; ${show(id)} appears in ${places.length} responses (${places.slice(0, 3).join(", ")}${places.length > 3 ? ", ..." : ""})`,
    );
  },
);
