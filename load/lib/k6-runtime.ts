/**
 * The flow's runtime inside k6: k6's http, check, sleep and custom metrics (k6-safe: only k6's own
 * modules, which the bundles leave external).
 *
 * Custom metrics, chosen to cost one sample per iteration at most:
 *   h2h_confirmed_<final status>  counters, one per final status an order aims at: the callback
 *                                 delivery denominators (separate metrics, not a tag, so k6 keeps
 *                                 them in the summary without submetrics)
 *   h2h_business_errors           counter of answers that were not a success, tagged codeError and
 *                                 name; a sample only when an answer fails
 *   h2h_transport_errors          counter of requests that got no answer (refused, reset, timed
 *                                 out), tagged errorCode (k6's) and name
 */
import { type Checkers, check, sleep } from "k6";
import exec from "k6/execution";
import http from "k6/http";
import { Counter } from "k6/metrics";
import { CONFIRMED_STATUSES, type ConfirmedStatus } from "../../contract/schemas/names.ts";
import type { LoadConfig } from "./config.ts";
import type { FlowRuntime, HttpAnswer, RequestParams } from "./flow.ts";
import {
  BUSINESS_ERRORS_METRIC,
  CONFIRMED_METRIC_PREFIX,
  REQUEST_KIND_TAG,
  TRANSPORT_ERRORS_METRIC,
  TRIGGER_NOTE_NAME,
} from "./metric-names.ts";
import { STEP_TAG, settledStepAt, stepsOf } from "./scenarios.ts";

/** k6's console (its log); @types/k6 leaves it undeclared. */
declare const console: { warn(...values: unknown[]): void };

const confirmed = Object.fromEntries(
  CONFIRMED_STATUSES.map((final) => [final, new Counter(`${CONFIRMED_METRIC_PREFIX}${final}`)]),
) as Record<ConfirmedStatus, Counter>;
const businessErrors = new Counter(BUSINESS_ERRORS_METRIC);
const transportErrors = new Counter(TRANSPORT_ERRORS_METRIC);

/** A trigger note: no body, its answer unread, tagged apart from the API's requests. */
const NOTE_PARAMS = {
  tags: { name: TRIGGER_NOTE_NAME, [REQUEST_KIND_TAG]: "note" },
  responseType: "none",
  timeout: 10_000,
} as const;

export const k6Runtime: FlowRuntime = {
  // k6's own functions, not wrapped: one interpreted call less per request. Its Response is the
  // HttpAnswer itself (status, body, json): no copy per request.
  post: http.post as unknown as (url: string, body: string, params: RequestParams) => HttpAnswer,
  check(results) {
    // k6 takes a check's value as is when it is not a function (its Check resolves callables
    // only): no closure per check per iteration.
    check(null, results as unknown as Checkers<null>);
  },
  now: Date.now,
  random: Math.random,
  sleep,
  businessError: (codeError, operation) => businessErrors.add(1, { codeError, name: operation }),
  transportError: (errorCode, operation) => transportErrors.add(1, { errorCode, name: operation }),
  orderConfirmed: (final) => confirmed[final].add(1),
  noteTrigger: (url) => {
    http.post(url, null, NOTE_PARAMS);
  },
  warn: (message) => console.warn(message),
  vuId: () => exec.vu.idInTest,
};

/**
 * For a stepped scenario (stress): tags the VU's samples with the step whose settled window this
 * moment is in (and removes the tag during ramps and warm-ups), so each step is judged on its own.
 * Returns a no-op for the other scenarios.
 */
export function stepTagger(config: LoadConfig): () => void {
  const steps = stepsOf(config);
  if (steps === undefined) return () => {};
  return () => {
    const step = settledStepAt(steps, (Date.now() - exec.scenario.startTime) / 1000);
    if (step === undefined) delete exec.vu.metrics.tags[STEP_TAG];
    else exec.vu.metrics.tags[STEP_TAG] = String(step.index);
  };
}
