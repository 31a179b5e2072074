/**
 * Hostile targets whose answers JSON.parse forgives: the reference provider behind a proxy that
 * rewrites each answer's bytes (a decoy result first, an amount decoy, a whole error result first,
 * a byte order mark, a lone surrogate escape, a byte that is not UTF-8), and a provider that signs
 * callbacks with a decoy id and status first. Each is NOT CONFORMANT through the strict-JSON check
 * alone, and the evidence keeps the bytes as received.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";
import { type HostileTarget, startHostileTarget } from "./testing/hostile-target.ts";

fileTimeout(240_000);

const specRunner = sharedSpecRunner();

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** `text` with its first `find` replaced by `insert` (the answer unchanged when it has none). */
const inserted = (find: string, insert: string) => (body: Buffer) => {
  const text = body.toString("utf8");
  const at = text.indexOf(find);
  return at === -1
    ? body
    : Buffer.concat([
        Buffer.from(text.slice(0, at + find.length)),
        Buffer.from(insert, "latin1"),
        Buffer.from(text.slice(at + find.length)),
      ]);
};

/** Each rewrite, and the problem it must be found as. */
const REWRITES: Record<string, { rewrite: (body: Buffer) => Buffer; problem: string }> = {
  "a decoy error status first in result": {
    rewrite: inserted('"result":{', '"status":"error","codeError":"internal_error",'),
    problem: "duplicate-name result.status",
  },
  'an "amount":0 decoy first in data': {
    rewrite: inserted('"data":{', '"amount":0,'),
    problem: "duplicate-name data.amount",
  },
  "a whole error result first": {
    rewrite: (body) =>
      Buffer.concat([
        Buffer.from(
          '{"result":{"codeError":"internal_error","message":"internal error","status":"error","x-request-id":"r"},',
        ),
        body.subarray(1),
      ]),
    problem: "duplicate-name result",
  },
  "a byte order mark": { rewrite: (body) => Buffer.concat([BOM, body]), problem: "byte-order-mark (body)" },
  "a lone surrogate in a refusal's message": {
    rewrite: inserted('"message":"', "\\ud800 "),
    problem: "lone-surrogate result.message",
  },
  "a byte that is not UTF-8 in a refusal's message": {
    rewrite: inserted('"message":"', "\xff"),
    problem: "invalid-utf8 (body)",
  },
};

let provider: RunningReferenceProvider;
let decoyCallbacks: RunningReferenceProvider;
let proxy: HostileTarget;
/** The rewrite the proxy applies now (one run at a time: the spec runner is shared). */
let rewrite: (body: Buffer) => Buffer = (body) => body;

async function forward(request: IncomingMessage, body: string, response: ServerResponse) {
  const upstream = await fetch(`${provider.url}${request.url}`, {
    method: request.method ?? "POST",
    headers: Object.fromEntries(
      Object.entries(request.headers).filter(
        (entry): entry is [string, string] => typeof entry[1] === "string" && entry[0] !== "content-length",
      ),
    ),
    ...(request.method === "GET" ? {} : { body }),
  });
  const answer = rewrite(Buffer.from(await upstream.arrayBuffer()));
  response.writeHead(upstream.status, {
    "content-type": upstream.headers.get("content-type") ?? "application/json",
    "content-length": answer.length,
  });
  response.end(answer);
}

beforeAll(async () => {
  [provider, decoyCallbacks] = await Promise.all([
    startReferenceProvider({ port: 0 }),
    startReferenceProvider({ port: 0, faults: ["callback-decoy-members"] }),
  ]);
  proxy = await startHostileTarget((request, body, response) => {
    forward(request, body, response).catch(() => response.destroy());
  });
});
afterAll(async () => {
  await specRunner.close();
  await Promise.all([proxy?.stop(), provider?.stop(), decoyCallbacks?.stop()]);
});

const env = (baseUrl: string) => ({
  H2H_BASE_URL: baseUrl,
  H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
  H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
  H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
});

describe("answers whose bytes JSON.parse forgives", () => {
  it.each(Object.keys(REWRITES))("%s: NOT CONFORMANT through envelope.strict-json alone", async (name) => {
    const { rewrite: change, problem } = REWRITES[name] as (typeof REWRITES)[string];
    rewrite = change;
    try {
      const run = await certifyInProcess(env(proxy.url), {
        specFiles: ["mobile-commerce.spec.ts"],
        specRunner: specRunner.run,
      });
      expect(run.exitCode, run.output).toBe(1);
      expect(run.report.verdict).toBe("not conformant");
      const failed = run.report.checks.filter((c) => c.status === "failed" && c.required);
      expect([...new Set(failed.map((c) => c.check))]).toEqual(["envelope.strict-json"]);
      expect(failed[0]?.ruleSource?.kind).toBe("necessary");
      // The evidence: the failing answer, its issues named, its bytes as received.
      const subject = run.report.exchanges.find((e) => e.id === failed[0]?.subject);
      const found = (subject?.response.jsonText?.issues ?? []).map((i) => `${i.problem} ${i.path}`);
      expect(found).toContain(problem);
      if (problem.startsWith("byte-order-mark")) {
        expect(subject?.response.body.charCodeAt(0)).toBe(0xfeff);
        expect(Buffer.byteLength(subject?.response.body ?? "")).toBe(subject?.response.size?.bytes);
      }
      if (problem.startsWith("invalid-utf8")) expect(subject?.response.body).toContain("\ufffd");
    } finally {
      rewrite = (body) => body;
    }
  });
});

describe("callbacks whose bytes JSON.parse forgives", () => {
  it("validly signed with a decoy id and status first: NOT CONFORMANT through callbacks.strict-json", async () => {
    const run = await certifyInProcess(env(decoyCallbacks.url), {
      specFiles: ["callbacks.spec.ts"],
      specRunner: specRunner.run,
    });
    expect(run.exitCode, run.output).toBe(1);
    const failed = run.report.checks.filter((c) => c.status === "failed" && c.required);
    expect([...new Set(failed.map((c) => c.check))]).toEqual(["callbacks.strict-json"]);
    expect(failed[0]?.detail).toMatch(/delivery 1: duplicate-name at id: member "id" twice/);
    // The signature verified: the decoy is inside what was signed.
    expect(
      run.report.checks.some((c) => c.check === "callbacks.signature-valid" && c.status === "passed"),
    ).toBe(true);
  });
});
