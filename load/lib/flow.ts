/**
 * One load iteration: create an order (its merchantOrderID carries the run id), confirm it with
 * the profile's success code (or, for a configurable share, the failure or appeal code), and
 * check each answer against the contract digest. The k6 APIs come in through {@link FlowRuntime},
 * so the same logic is unit-tested in Node. k6-safe: no Node.js API.
 */

import {
  type ConfirmedStatus,
  callbackUrlWith,
  endpointPath,
  OPERATIONS_BY_KIND,
  type OperationName,
  type OrderKind,
  STATUS,
} from "../../contract/names.ts";
import { buildOrderRequest, ORDER_KIND_TAGS } from "../../fixtures/index.ts";
import type { LoadConfig } from "./config.ts";
import { type ContractDigest, checkDataFields, checkSuccessEnvelope } from "./contract-digest.ts";

export interface HttpAnswer {
  status: number;
  body: string | null;
}

export interface FlowRuntime {
  /** An HTTP POST; `name` becomes the request's `name` tag (never the raw URL). */
  post(
    url: string,
    body: string,
    headers: Record<string, string>,
    name: OperationName,
    timeoutMs: number,
  ): HttpAnswer;
  /** Records named checks (k6 `check`); each value says whether that check passed. */
  check(results: Record<string, boolean>, operation: OperationName): void;
  /** ms since the epoch. */
  now(): number;
  random(): number;
  flowDuration(ms: number, kind: OrderKind): void;
  businessError(codeError: string, operation: OperationName): void;
  orderConfirmed(kind: OrderKind, expectedFinal: ConfirmedStatus): void;
}

export interface Iteration {
  vu: number;
  iteration: number;
}

/** Which final status this iteration aims for, by the configured shares. */
export function pickConfirmedStatus(config: LoadConfig, random: number): ConfirmedStatus {
  if (random < config.failureShare) return STATUS.failed_by_terminal;
  if (random < config.failureShare + config.appealShare) return STATUS.succeeded_by_appeal;
  return STATUS.succeeded;
}

function codeFor(config: LoadConfig, final: ConfirmedStatus): string {
  const code = config.profile.codes[final];
  if (code === undefined) throw new Error(`the profile has no code for ${final}`);
  return code;
}

/** The check names, one per rule, aggregated by k6 across iterations. */
export function checkNames(operation: OperationName) {
  return {
    envelope: `${operation}: success envelope`,
    fields: `${operation}: required fields and types`,
    status: `${operation}: expected status`,
  };
}

function checkAnswer(
  runtime: FlowRuntime,
  digest: ContractDigest,
  config: LoadConfig,
  operation: OperationName,
  answer: HttpAnswer,
): Record<string, unknown> | undefined {
  const parsed = checkSuccessEnvelope(answer.status, answer.body);
  const data = parsed.json?.data as Record<string, unknown> | undefined;
  const names = checkNames(operation);
  const envelopeOk = parsed.problems.length === 0;
  runtime.check(
    {
      [names.envelope]: envelopeOk,
      [names.fields]: envelopeOk && checkDataFields(data, digest.responses[operation]).length === 0,
      [names.status]: envelopeOk && data?.status === config.profile.expectedStatus[operation],
    },
    operation,
  );
  if (!envelopeOk) {
    runtime.businessError(
      parsed.codeError ?? (answer.status === 0 ? "no_answer" : `http_${answer.status}`),
      operation,
    );
    return undefined;
  }
  return data;
}

export function runOrderFlow(
  kind: OrderKind,
  config: LoadConfig,
  digest: ContractDigest,
  runtime: FlowRuntime,
  iteration: Iteration,
): void {
  const operations = OPERATIONS_BY_KIND[kind];
  const method = config.profile.methods[kind];
  const expectedFinal = pickConfirmedStatus(config, runtime.random());
  const startedAt = runtime.now();
  const merchantOrderID = `${config.runId}-${ORDER_KIND_TAGS[kind]}-${iteration.vu}-${iteration.iteration}`;
  const webHook =
    config.callbackUrl === undefined
      ? undefined
      : callbackUrlWith(config.callbackUrl, {
          runId: config.runId,
          sentAtMs: startedAt,
          expectedStatus: expectedFinal,
        });
  const body = buildOrderRequest(kind, {
    methodID: method.methodID,
    amount: method.amount,
    merchantOrderID,
    withClientID: method.requires.clientID,
    ...(webHook !== undefined ? { webHook } : {}),
    withClientMetadata: method.requires.clientMetadata,
  });
  const headers = { "content-type": "application/json", authorization: `Bearer ${config.apiKey}` };

  const created = runtime.post(
    `${config.baseUrl}${endpointPath(operations.create)}`,
    JSON.stringify(body),
    headers,
    operations.create,
    config.profile.requestTimeoutMs,
  );
  const order = checkAnswer(runtime, digest, config, operations.create, created);
  const orderId = typeof order?.id === "string" ? order.id : undefined;
  if (orderId === undefined) return;

  const confirmed = runtime.post(
    `${config.baseUrl}${endpointPath(operations.confirm, orderId)}`,
    JSON.stringify({ code: codeFor(config, expectedFinal) }),
    headers,
    operations.confirm,
    config.profile.requestTimeoutMs,
  );
  if (checkAnswer(runtime, digest, config, operations.confirm, confirmed) === undefined) return;
  runtime.flowDuration(runtime.now() - startedAt, kind);
  runtime.orderConfirmed(kind, expectedFinal);
}
