/**
 * For the project's own tests of the load scripts, where no k6 is installed: stub `k6` modules so
 * a built bundle can be imported and run in Node exactly as k6 would call it, with `http.post`
 * answered synchronously (as k6's is) by the reference provider's own handler, its answer's
 * `json(selector)` as k6's (GJSON array multipaths, see select-paths.ts), and a check's value taken
 * as is when it is not a function (as k6's `check` does).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ReferenceProvider } from "../../fixtures/providers/reference/index.ts";
import type { HttpAnswer } from "../lib/flow.ts";
import { selectPaths } from "./select-paths.ts";

export interface K6Recording {
  checks: { name: string; passed: boolean; tags: Record<string, string> | undefined }[];
  metrics: { metric: string; value: number; tags: Record<string, string> | undefined }[];
  requests: { url: string; tags: Record<string, string> | undefined }[];
}

/** What the stub modules forward to, at `globalThis.__K6_STUB__`. */
export interface K6Stub {
  recording: K6Recording;
  post(url: string, body: string, headers: Record<string, string>): HttpAnswer;
  vu: number;
  iteration: number;
}

/** A k6 `http.post` answered by the app: the URL's path and query, headers as node:http names them. */
export function postTo(provider: ReferenceProvider): K6Stub["post"] {
  return (url, body, headers) => {
    const { pathname, search } = new URL(url);
    const reply = provider.request({
      method: "POST",
      url: pathname + search,
      headers: Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
      ),
      body,
    });
    return { status: reply.status, body: reply.body, json: (selector) => selectPaths(reply.body, selector) };
  };
}

/**
 * Writes stub `k6`, `k6/http`, `k6/execution` and `k6/metrics` packages under `dir/node_modules`
 * that forward to `globalThis.__K6_STUB__`, so a bundle importing them runs in Node.
 */
export function installK6Stubs(dir: string): void {
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
  const hook = "globalThis.__K6_STUB__";
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
