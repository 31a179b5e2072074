/**
 * One load iteration: create an order (its merchantOrderID carries the run id), wait the payer's
 * think time, confirm it with the profile's success code (or, for a configurable share, the
 * failure or appeal code), and check each answer against the contract digest. The k6 APIs come in
 * through {@link FlowRuntime}, so the same logic is unit-tested in Node. k6-safe: no Node.js API.
 *
 * Cheap by design, because k6 runs it thousands of times a second and interprets JavaScript:
 * everything that does not change between iterations (request bodies, URLs, request parameters,
 * the digest's rules, the VU's id) is prepared once per VU in {@link createOrderFlow}; an
 * iteration fills two values into a body template, has k6 pick the checked values out of each
 * answer in one call (no JSON.parse, see response-rules.ts), and records two checks per answer.
 */

import {
  type ConfirmedStatus,
  callbackUrlWith,
  ENDPOINT_PATHS,
  OPERATIONS_BY_KIND,
  type OperationName,
  type OrderKind,
  STATUS,
} from "../../contract/schemas/names.ts";
import { buildOrderRequest, ORDER_KIND_TAGS } from "../../fixtures/index.ts";
import type { LoadConfig } from "./config.ts";
import {
  type ContractDigest,
  checkDataFields,
  checkSuccessEnvelope,
  type FieldRule,
} from "./contract-digest.ts";
import { REQUEST_KIND_TAG } from "./metric-names.ts";
import {
  type AnswerRules,
  type BasicVerdict,
  compileAnswerRules,
  fieldsMatch,
  judgeBasic,
} from "./response-rules.ts";

/** An answer as k6's http.post returns it (k6's Response has exactly these members). */
export interface HttpAnswer {
  /** 0 when no answer came (connection error, timeout). */
  status: number;
  body: string | null;
  /** The values a GJSON selector picks out of the body (k6 `response.json(selector)`); undefined when the body is not JSON. */
  json(selector: string): unknown;
  /** k6's error code when no answer came (1211 dial timeout, 1212 connection refused, 1050 timeout, ...). */
  error_code?: number;
}

/** What k6's http.post takes as its third argument; built once per operation. */
export interface RequestParams {
  headers: Record<string, string>;
  /** `h2h_request: "api"` sets the API's requests apart from the sink notes for the thresholds. */
  tags: { name: OperationName; [REQUEST_KIND_TAG]?: "api" };
  /** ms */
  timeout: number;
}

export interface FlowRuntime {
  /** An HTTP POST; `params.tags.name` becomes the request's `name` tag (never the raw URL). */
  post(url: string, body: string, params: RequestParams): HttpAnswer;
  /** Records named checks (k6 `check`); each value says whether that check passed. The object is reused. */
  check(results: Record<string, boolean>): void;
  /** ms since the epoch. */
  now(): number;
  random(): number;
  /** Pauses the VU (k6 `sleep`), seconds. */
  sleep(seconds: number): void;
  businessError(codeError: string, operation: OperationName): void;
  /** A request that got no answer at all (refused, reset, timed out): a fault of the transport, not of the API. */
  transportError(errorCode: string, operation: OperationName): void;
  orderConfirmed(expectedFinal: ConfirmedStatus): void;
  /**
   * Tells the sink when an order's callback was triggered (a POST to `url`, no body, answer
   * ignored): the callback timeout counts from the trigger, and only k6 knows that moment.
   */
  noteTrigger(url: string): void;
  /** A line on k6's log (console.warn). */
  warn(message: string): void;
  /** The VU's id, unique in the test (across k6 instances too); asked once per VU. */
  vuId(): number;
}

export interface FlowOutcome {
  created: boolean;
  confirmed: boolean;
  expectedFinal: ConfirmedStatus;
  merchantOrderID: string;
  orderId: string | undefined;
}

/** Which final status this iteration aims for, by the configured shares. */
export function pickConfirmedStatus(config: LoadConfig, random: number): ConfirmedStatus {
  if (random < config.failureShare) return STATUS.failed_by_terminal;
  if (random < config.failureShare + config.appealShare) return STATUS.succeeded_by_appeal;
  return STATUS.succeeded;
}

/**
 * The check names, aggregated by k6 across iterations: every answer is checked for a success with
 * the status the profile expects; a sample of answers (the first few of each VU, then every
 * `fieldCheckEvery`-th) also for every required field with a type the contract accepts.
 */
export function checkNames(operation: OperationName) {
  return {
    success: `${operation}: success with the expected status`,
    fields: `${operation}: every required field of the right type`,
  };
}

/** A VU checks every field of its first answers to each operation, whatever the sampling. */
export const FIRST_ANSWERS_CHECKED_IN_FULL = 3;

/** Distinct problems a VU writes to k6's log, at most: enough to name the field, never a flood. */
export const MAX_WARNINGS_PER_VU = 5;

const MOID = "@@H2H_MERCHANT_ORDER_ID@@";
const HOOK = "@@H2H_WEBHOOK@@";
/** Stand-ins for when the order was made and what it expects, in the callback URL's template. */
const SENT_AT = 987654321012345;
const EXPECTED = "h2h_expected_final";

interface PreparedOperation {
  operation: OperationName;
  /** The digest's rules for this operation, kept once an answer failed (for the detailed wording). */
  fieldRules: FieldRule[] | undefined;
  params: RequestParams;
  rules: AnswerRules;
  expectedStatus: string;
  names: ReturnType<typeof checkNames>;
  /** The objects handed to runtime.check (with and without the field check), and the verdict, reused. */
  withFields: Record<string, boolean>;
  successOnly: Record<string, boolean>;
  verdict: BasicVerdict;
  /** Answers to this operation so far, in this VU. */
  answers: number;
}

interface PreparedKind {
  tag: string;
  /** The create body around the merchantOrderID and the webHook: [before id, between, after hook]. */
  body: [string, string, string];
  createUrl: string;
  confirmUrl: [string, string];
  create: PreparedOperation;
  confirm: PreparedOperation;
}

/** JSON text of a string without its quotes. */
const jsonInner = (text: string) => JSON.stringify(text).slice(1, -1);

function prepareKind(kind: OrderKind, config: LoadConfig, digest: ContractDigest): PreparedKind {
  const method = config.profile.methods[kind];
  const template = JSON.stringify(
    buildOrderRequest(kind, {
      methodID: method.methodID,
      amount: method.amount,
      merchantOrderID: MOID,
      withClientID: method.requires.clientID,
      withClientMetadata: method.requires.clientMetadata,
      ...(config.callbackUrl !== undefined ? { webHook: HOOK } : {}),
    }),
  );
  const [beforeId = "", afterId = ""] = template.split(MOID);
  const [between = "", after = ""] = config.callbackUrl !== undefined ? afterId.split(HOOK) : [afterId, ""];
  const rebuilt =
    config.callbackUrl !== undefined ? [beforeId, MOID, between, HOOK, after] : [beforeId, MOID, between];
  if (rebuilt.join("") !== template)
    throw new Error(
      `the ${kind} order body does not have merchantOrderID before metadata.webHook: ${template}`,
    );
  const headers = { "content-type": "application/json", authorization: `Bearer ${config.apiKey}` };
  const operation = (name: OperationName): PreparedOperation => {
    const names = checkNames(name);
    return {
      operation: name,
      fieldRules: undefined,
      params: {
        headers,
        tags: { name, [REQUEST_KIND_TAG]: "api" },
        timeout: config.profile.requestTimeoutMs,
      },
      rules: compileAnswerRules(digest.responses[name]),
      expectedStatus: config.profile.expectedStatus[name],
      names,
      withFields: { [names.success]: false, [names.fields]: false },
      successOnly: { [names.success]: false },
      verdict: { envelope: false, status: false, complete: false, id: undefined },
      answers: 0,
    };
  };
  const operations = OPERATIONS_BY_KIND[kind];
  const [confirmBefore = "", confirmAfter = ""] = ENDPOINT_PATHS[operations.confirm].split("{id}");
  return {
    tag: ORDER_KIND_TAGS[kind],
    body: [beforeId, between, after],
    createUrl: `${config.baseUrl}${ENDPOINT_PATHS[operations.create]}`,
    confirmUrl: [`${config.baseUrl}${confirmBefore}`, confirmAfter],
    create: operation(operations.create),
    confirm: operation(operations.confirm),
  };
}

function codeFor(config: LoadConfig, final: ConfirmedStatus): string {
  const code = config.profile.codes[final];
  if (code === undefined) throw new Error(`the profile has no code for ${final}`);
  return code;
}

export type OrderFlow = (kind: OrderKind) => FlowOutcome;

/**
 * Returns the iteration. What it needs is prepared on a VU's first iteration of each order kind
 * and kept; the contract digest comes as JSON text (`digestJson`) and is parsed only then.
 */
export function createOrderFlow(config: LoadConfig, digestJson: string, runtime: FlowRuntime): OrderFlow {
  const digest = () => JSON.parse(digestJson) as ContractDigest;
  const kinds: Partial<Record<OrderKind, PreparedKind>> = {};
  const prepared = (kind: OrderKind) => {
    let entry = kinds[kind];
    if (entry === undefined) {
      entry = prepareKind(kind, config, digest());
      kinds[kind] = entry;
    }
    return entry;
  };
  const confirmBodies: Partial<Record<ConfirmedStatus, string>> = {};
  const confirmBody = (final: ConfirmedStatus) => {
    let body = confirmBodies[final];
    if (body === undefined) {
      body = JSON.stringify({ code: codeFor(config, final) });
      confirmBodies[final] = body;
    }
    return body;
  };
  // The callback URL as the names table makes it, split around when the order was made and
  // what it expects: an iteration fills in the two, as text, already JSON-escaped.
  const hook =
    config.callbackUrl === undefined
      ? undefined
      : jsonInner(
          callbackUrlWith(config.callbackUrl, {
            runId: config.runId,
            sentAtMs: SENT_AT,
            expectedStatus: EXPECTED,
          }),
        ).split(new RegExp(`${SENT_AT}|${EXPECTED}`));
  if (hook !== undefined && hook.length !== 3)
    throw new Error("the callback URL's template did not split around its time and expected status");
  const warned = new Set<string>();

  let vu: number | undefined;
  let iterations = 0;

  const fieldRulesOf = (operation: PreparedOperation): FieldRule[] => {
    if (operation.fieldRules === undefined) operation.fieldRules = digest().responses[operation.operation];
    return operation.fieldRules;
  };

  /**
   * Checks an answer the slow, detailed way (JSON.parse, the digest's rules): the verdict when the
   * fast one found a problem or could not tell, and the problems, named on k6's log.
   */
  function explain(operation: PreparedOperation, answer: HttpAnswer, withFields: boolean): boolean {
    const verdict = operation.verdict;
    const envelope = checkSuccessEnvelope(answer.status, answer.body);
    const data = envelope.json?.data as { status?: unknown; id?: unknown } | undefined;
    const problems = [...envelope.problems];
    const fieldProblems =
      problems.length === 0 && withFields ? checkDataFields(data, fieldRulesOf(operation)) : [];
    if (problems.length === 0 && data?.status !== operation.expectedStatus)
      problems.push(`data.status is ${JSON.stringify(data?.status)}, expected "${operation.expectedStatus}"`);
    problems.push(...fieldProblems);
    verdict.envelope = envelope.problems.length === 0;
    verdict.status = verdict.envelope && data?.status === operation.expectedStatus;
    verdict.complete = true;
    verdict.id = typeof data?.id === "string" ? data.id : undefined;
    for (const problem of problems) {
      const line = `${operation.operation}: ${problem}`;
      if (warned.has(line) || warned.size >= MAX_WARNINGS_PER_VU) continue;
      warned.add(line);
      runtime.warn(`h2h-certify check failed: ${line} (each problem is logged once per VU)`);
    }
    return verdict.envelope && fieldProblems.length === 0;
  }

  /** Checks an answer; returns whether it is a success envelope. */
  function checkAnswer(operation: PreparedOperation, answer: HttpAnswer): boolean {
    const verdict = operation.verdict;
    operation.answers += 1;
    const withFields =
      operation.answers <= FIRST_ANSWERS_CHECKED_IN_FULL || operation.answers % config.fieldCheckEvery === 0;
    let fields = true;
    // A success is an HTTP 200 with a body; anything else is judged, and explained, the detailed way.
    if (answer.status === 200 && answer.body !== null && answer.body !== "") {
      judgeBasic(answer.json(operation.rules.basic), operation.expectedStatus, verdict);
      if (withFields && verdict.envelope)
        fields = fieldsMatch(answer.json(operation.rules.fields), operation.rules);
    } else verdict.complete = false;
    if (!verdict.complete || !verdict.status || !fields) fields = explain(operation, answer, withFields);
    const results = withFields ? operation.withFields : operation.successOnly;
    results[operation.names.success] = verdict.envelope && verdict.status;
    if (withFields) results[operation.names.fields] = fields;
    runtime.check(results);
    // No answer (status 0) is the transport's fault, counted apart from the API's error answers.
    if (answer.status === 0) runtime.transportError(String(answer.error_code ?? 0), operation.operation);
    else if (!verdict.envelope)
      runtime.businessError(codeErrorOf(answer) ?? `http_${answer.status}`, operation.operation);
    return verdict.envelope;
  }

  return (kind) => {
    if (vu === undefined) vu = runtime.vuId();
    const flow = prepared(kind);
    const expectedFinal = pickConfirmedStatus(config, runtime.random());
    const startedAt = runtime.now();
    const merchantOrderID = `${config.runId}-${flow.tag}-${vu}-${iterations++}`;
    const body =
      hook === undefined
        ? flow.body[0] + merchantOrderID + flow.body[1]
        : `${flow.body[0]}${merchantOrderID}${flow.body[1]}${hook[0]}${startedAt}${hook[1]}${expectedFinal}${hook[2]}${flow.body[2]}`;
    const outcome: FlowOutcome = {
      created: false,
      confirmed: false,
      expectedFinal,
      merchantOrderID,
      orderId: undefined,
    };

    if (!checkAnswer(flow.create, runtime.post(flow.createUrl, body, flow.create.params))) return outcome;
    const orderId = flow.create.verdict.id;
    if (orderId === undefined) return outcome;
    outcome.created = true;
    outcome.orderId = orderId;

    if (config.thinkSeconds > 0) runtime.sleep(config.thinkSeconds);
    const confirmUrl = flow.confirmUrl[0] + encodeURIComponent(orderId) + flow.confirmUrl[1];
    const confirmed = runtime.post(confirmUrl, confirmBody(expectedFinal), flow.confirm.params);
    // The latest moment the confirmation can have taken effect, as certify counts callbackMs from.
    const triggeredAtMs = runtime.now();
    if (!checkAnswer(flow.confirm, confirmed)) return outcome;
    outcome.confirmed = true;
    runtime.orderConfirmed(expectedFinal);
    if (config.callbackUrl !== undefined)
      runtime.noteTrigger(
        callbackUrlWith(config.callbackUrl, {
          runId: config.runId,
          sentAtMs: startedAt,
          expectedStatus: expectedFinal,
          orderId,
          triggeredAtMs,
        }),
      );
    return outcome;
  };
}

/** result.codeError of an error answer, for counting business errors by code. */
function codeErrorOf(answer: HttpAnswer): string | undefined {
  if (answer.body === null || answer.body === "") return undefined;
  try {
    const code = (JSON.parse(answer.body) as { result?: { codeError?: unknown } } | null)?.result?.codeError;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}
