/**
 * The k6 side of {@link FlowRuntime}: k6/http, check, and the custom metrics. Imported only by
 * the k6 entry scripts (type-checked against @types/k6, bundled with k6's modules external).
 */
import { check } from "k6";
import http from "k6/http";
import { Counter, Trend } from "k6/metrics";
import type { FlowRuntime } from "./flow.ts";

/** create sent → confirm answered, per order kind. */
const flowDuration = new Trend("h2h_flow_duration", true);
/** Answers that were not a success, by codeError (or http_<status>) and endpoint. */
const businessErrors = new Counter("h2h_business_errors");
/** Orders confirmed, by kind and the final status they should reach: the callback delivery ratio's denominator. */
const ordersConfirmed = new Counter("h2h_orders_confirmed");

export const k6Runtime: FlowRuntime = {
  post(url, body, headers, name, timeoutMs) {
    const response = http.post(url, body, {
      headers,
      tags: { name },
      timeout: `${timeoutMs}ms`,
      responseType: "text",
    });
    return { status: response.status, body: typeof response.body === "string" ? response.body : null };
  },
  check(results, operation) {
    const checks: Record<string, () => boolean> = {};
    for (const [name, passed] of Object.entries(results)) checks[name] = () => passed;
    check(null, checks, { name: operation });
  },
  now: () => Date.now(),
  random: () => Math.random(),
  flowDuration: (ms, kind) => flowDuration.add(ms, { kind }),
  businessError: (codeError, operation) => businessErrors.add(1, { codeError, name: operation }),
  orderConfirmed: (kind, expectedFinal) => ordersConfirmed.add(1, { kind, expected_final: expectedFinal }),
};
