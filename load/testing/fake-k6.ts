/**
 * For the project's own tests of the load scripts, where no k6 is installed: a synchronous
 * stand-in target built on the reference provider's own order book (so answers are real order
 * records, not canned text), and stub `k6` modules so a built bundle can be imported and run in
 * Node exactly as k6 would call it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ENDPOINTS, matchEndpoint, type OperationName } from "../../contract/endpoints.ts";
import { MERCHANTS_BY_API_KEY, ProviderError } from "../../fixtures/reference-provider/conventions.ts";
import type { FaultEffects } from "../../fixtures/reference-provider/faults.ts";
import {
  OrderBook,
  toConfirmationResult,
  toOrderRecord,
  toQuasiEcomCreationResult,
} from "../../fixtures/reference-provider/order-book.ts";
import type { HttpAnswer } from "../lib/flow.ts";
import { selectPaths } from "./select-paths.ts";

export interface SyncTarget {
  post(url: string, body: string, headers: Record<string, string>): HttpAnswer;
  requests: { url: string; name?: string }[];
  stop(): void;
}

/** The reference provider's behaviour, answered synchronously (as k6's http.post is). */
export function syncReferenceTarget(effects: FaultEffects = {}): SyncTarget {
  const book = new OrderBook({
    lifetimeMs: 30_000,
    processingDelayMs: 1_000_000,
    effects,
    onStatusEntered: () => {},
  });
  const requests: SyncTarget["requests"] = [];
  let requestCount = 0;
  let operation: OperationName | undefined;
  const answer = (status: number, data: unknown, result: Record<string, unknown>): HttpAnswer => {
    const envelope = { data, result: { ...result, "x-request-id": `req-${++requestCount}` } };
    effects.shapeResponse?.({ operation, httpStatus: status, envelope });
    const body = JSON.stringify(envelope);
    return { status, body, json: (selector: string) => selectPaths(body, selector) };
  };
  return {
    requests,
    stop: () => book.shutdown(),
    post(url, body, headers) {
      requests.push({ url });
      const merchant = MERCHANTS_BY_API_KEY.get((headers.authorization ?? "").replace(/^Bearer /, ""));
      const match = matchEndpoint(new URL(url).pathname);
      operation = match?.operation;
      try {
        if (!merchant) throw new ProviderError("unauthorized", "bad key");
        if (!match) throw new ProviderError("not_found", "no endpoint");
        const parsed = ENDPOINTS[match.operation].request.safeParse(JSON.parse(body));
        if (!parsed.success) throw new ProviderError("validation_error", parsed.error.message);
        const request = parsed.data as never;
        const ok = { codeError: "none", message: null, status: "success" };
        switch (match.operation) {
          case "createMobileCommerceOrder":
            return answer(200, toOrderRecord(book.create(merchant, "mobile_commerce", request)), ok);
          case "createQuasiEcomOrder":
            return answer(200, toQuasiEcomCreationResult(book.create(merchant, "quasi_ecom", request)), ok);
          default: {
            const kind = ENDPOINTS[match.operation].orderKind;
            const { order, timer } = book.confirm(
              merchant,
              kind,
              match.orderId ?? "",
              (request as { code: string }).code,
            );
            return answer(200, toConfirmationResult(order, timer), ok);
          }
        }
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        return answer(error.httpStatus, null, {
          codeError: error.codeError,
          message: error.message,
          status: "error",
        });
      }
    },
  };
}

export interface K6Recording {
  checks: { name: string; passed: boolean; tags: Record<string, string> | undefined }[];
  metrics: { metric: string; value: number; tags: Record<string, string> | undefined }[];
  requests: { url: string; tags: Record<string, string> | undefined }[];
}

/**
 * Writes stub `k6`, `k6/http`, `k6/execution` and `k6/metrics` packages under `dir/node_modules`
 * that forward to `globalThis.__FAKE_K6__`, so a bundle importing them runs in Node.
 */
export function installFakeK6(dir: string): void {
  const pkg = join(dir, "node_modules", "k6");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "k6",
      type: "module",
      exports: {
        ".": "./index.js",
        "./http": "./http.js",
        "./execution": "./execution.js",
        "./metrics": "./metrics.js",
      },
    }),
  );
  const hook = "globalThis.__FAKE_K6__";
  writeFileSync(
    join(pkg, "index.js"),
    `export function check(value, sets, tags) { for (const [name, f] of Object.entries(sets)) ${hook}.recording.checks.push({ name, passed: !!(typeof f === "function" ? f(value) : f), tags }); return true; }
export function sleep() {}
export default { check, sleep };`,
  );
  writeFileSync(
    join(pkg, "http.js"),
    `function post(url, body, params) { ${hook}.recording.requests.push({ url, tags: params && params.tags }); return ${hook}.post(url, body, (params && params.headers) || {}); }
export default { post };`,
  );
  writeFileSync(
    join(pkg, "execution.js"),
    `export default { get vu() { return { idInTest: ${hook}.vu }; }, get scenario() { return { iterationInTest: ${hook}.iteration }; } };`,
  );
  writeFileSync(
    join(pkg, "metrics.js"),
    `class Metric { constructor(name) { this.name = name; } add(value, tags) { ${hook}.recording.metrics.push({ metric: this.name, value, tags }); } }
export class Trend extends Metric {}
export class Counter extends Metric {}
export class Rate extends Metric {}
export class Gauge extends Metric {}`,
  );
}
