/**
 * One cause per failure when a creation is refused, whatever the answer's shape: a target that
 * refuses every mobile-commerce order (an error envelope with HTTP 400, a 2xx carrying an error,
 * an HTML page, an empty 500, plain text 404, in turn) behind the reference provider. What needed
 * those orders is not evaluated, pointing at the refusal; no check blames a later step for it.
 * Each shape fails once per endpoint and check at most. Only the spec files that need such an
 * order run.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINTS, OPERATION, type RecordedExchange } from "../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { type RunningForwarder, startForwarder } from "../fixtures/testing/index.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";
import { type HostileTarget, startHostileTarget } from "./testing/hostile-target.ts";

const envelope = (status: number, codeError: string) => (response: ServerResponse) => {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(
    JSON.stringify({
      data: null,
      result: {
        codeError,
        message: "payment method not enabled",
        status: "failure",
        "x-request-id": randomUUID(),
      },
    }),
  );
};
const plain = (status: number, type: string, body: string) => (response: ServerResponse) => {
  response.writeHead(status, { "content-type": type });
  response.end(body);
};
/** The refusals, in turn. */
const REFUSALS = [
  envelope(400, "validation_error"),
  envelope(200, "method_not_enabled"),
  plain(502, "text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>"),
  plain(500, "text/plain", ""),
  plain(404, "text/plain", "no such route"),
];

/**
 * The sandbox clock moves a mobile-commerce order, which this target never makes: the lifecycle
 * waits expiry out in real time. A short lifetime, declared and served alike, keeps that wait short.
 */
const LIFETIME_SECONDS = 4;

/**
 * The spec files that create mobile-commerce orders and build on them; the rest (refusals of
 * malformed bodies, quasi-ecom alone) need no order of this kind.
 */
const SPEC_FILES = ["lifecycle", "mobile-commerce", "callbacks", "cross-merchant", "races"].map(
  (name) => `${name}.spec.ts`,
);

const CREATE_PATH = ENDPOINTS[OPERATION.createMobileCommerceOrder].path;
let refuser: HostileTarget;
let provider: RunningReferenceProvider;
let forwarder: RunningForwarder;
beforeAll(async () => {
  let next = 0;
  refuser = await startHostileTarget((_request, _body, response) => {
    (REFUSALS[next++ % REFUSALS.length] as (response: ServerResponse) => void)(response);
  });
  provider = await startReferenceProvider({
    port: 0,
    processingDelayMs: 50,
    lifetimeSeconds: LIFETIME_SECONDS,
  });
  forwarder = await startForwarder({
    upstreamOf: (request) =>
      request.method === "POST" && (request.url ?? "").split("?")[0] === CREATE_PATH
        ? refuser.url
        : provider.url,
  });
});
afterAll(async () => {
  await forwarder?.close();
  await provider?.stop();
  await refuser?.stop();
});

describe("a target that refuses every mobile-commerce creation, in five shapes", () => {
  it("fails the refusals; what needed the orders waits on them, and no later step is blamed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-one-cause-"));
    const profile = JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8")) as {
      callbackTriggers: Record<string, unknown>;
    };
    const profilePath = join(dir, "profile.json");
    writeFileSync(
      profilePath,
      JSON.stringify({
        ...profile,
        callbackTriggers: {
          ...profile.callbackTriggers,
          expired: { unconfirmedForSeconds: LIFETIME_SECONDS },
        },
      }),
    );
    // In this process: the target is, and a child's start-up would cost more than its probes.
    const run = await certifyInProcess(
      {
        H2H_BASE_URL: forwarder.url,
        H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
        H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
        H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        H2H_SEED: "7",
        H2H_PROFILE: profilePath,
      },
      { specFiles: SPEC_FILES },
    );
    const { report } = run;
    expect(run.exitCode, run.output).toBe(1);
    const byId = new Map(report.exchanges.map((e) => [e.id, e]));
    const refusedCreation = (id: string | undefined) => {
      const exchange: RecordedExchange | undefined = id ? byId.get(id) : undefined;
      return exchange?.operation === OPERATION.createMobileCommerceOrder && !isSuccess(exchange);
    };
    const failed = report.checks.filter((c) => c.status === "failed");
    // A check of a success's data never fails on the refusal itself.
    expect(failed.filter((c) => /^(fields|semantics)\./.test(c.check) && refusedCreation(c.subject))).toEqual(
      [],
    );
    // No check fails for a step after a refused creation it needed.
    expect(
      failed
        .filter((c) => c.exchanges.slice(0, -1).some(refusedCreation))
        .map((c) => `${c.endpoint} › ${c.check} › ${c.case}: ${c.detail}`),
    ).toEqual([]);
    // The refusals fail, each shape once per endpoint and check at most (a refusal the case wanted
    // may fail its own check too), and what waits on them points there.
    const roots = failed.filter((c) => refusedCreation(c.subject) && c.check.startsWith("envelope."));
    const answerOf = (c: (typeof roots)[number]) =>
      `${c.endpoint} › ${c.check} › HTTP ${byId.get(c.subject as string)?.response.status}`;
    const rootAnswers = roots.map(answerOf);
    expect(rootAnswers.length).toBeGreaterThan(0);
    expect(rootAnswers.filter((answer, i) => rootAnswers.indexOf(answer) !== i)).toEqual([]);
    // Every shape was answered and failed somewhere.
    expect(new Set(roots.map((c) => byId.get(c.subject as string)?.response.status))).toEqual(
      new Set([400, 200, 502, 500, 404]),
    );
    const waiting = report.checks.filter(
      (c) => c.status === "not evaluated" && refusedCreation(c.blockedBy?.exchange),
    );
    expect(waiting.length).toBeGreaterThan(20);
    for (const check of waiting) expect(check.detail).toMatch(/^not evaluated, because /);
  }, 240_000);
});

const isSuccess = (exchange: RecordedExchange) => {
  const result = (exchange.response.json as { result?: { codeError?: unknown } } | undefined)?.result;
  return exchange.response.status === 200 && result?.codeError === "none";
};
