/**
 * A callback's body is kept as received: a byte order mark stays, bytes that are not UTF-8 are
 * kept as base64, and a secret is masked in either spelling.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createMasker } from "../../contract/kit/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import { callbackEvidence, callbackReadingNotes } from "./callback-evidence.ts";

const SECRET = "sandbox-key-merchant-1";
const masker = createMasker({ secrets: [SECRET], cardNumbers: ["4111111111111111"] });

function stored(raw: Buffer): StoredCallback {
  return {
    seq: 1,
    receivedAt: "2026-01-01T00:00:01.000Z",
    receivedAtMs: Date.parse("2026-01-01T00:00:01.000Z"),
    method: "POST",
    path: "/callbacks/<token>/run/run-1.mc.succeeded",
    runId: "run-1.mc.succeeded",
    sentAtMs: null,
    expectedStatus: null,
    headers: { "content-type": "application/json" },
    bodyBase64: raw.toString("base64"),
    json: null,
    contentType: "application/json",
    orderId: "o-1",
    status: "succeeded",
    deliveryOfOrder: 1,
    signature: "not-checked",
    answeredWith: 200,
  };
}

const evidenceOf = (raw: Buffer) => callbackEvidence([stored(raw)], [], "http://127.0.0.1:9", masker)[0];

describe("a callback body as evidence", () => {
  it("keeps a byte order mark, all its bytes counted", () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"o-1"}')]);
    const evidence = evidenceOf(raw);
    expect(evidence?.bodyEncoding).toBe("utf8");
    expect(evidence?.body).toBe('\ufeff{"id":"o-1"}');
    expect(evidence?.bodyBytes).toBe(raw.length);
  });

  it("keeps bytes that are not UTF-8 as base64, a secret in them masked", () => {
    const raw = Buffer.concat([
      Buffer.from(`{"id":"o-1","key":"${SECRET}","note":"`),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    const evidence = evidenceOf(raw);
    expect(evidence?.bodyEncoding).toBe("base64");
    expect(evidence?.body).not.toBe(raw.toString("base64"));
    const kept = Buffer.from(evidence?.body ?? "", "base64");
    expect(kept.toString("latin1")).not.toContain(SECRET);
    expect(kept.includes(0xff)).toBe(true);
  });
});

const base: StoredCallback = {
  seq: 1,
  receivedAt: "2026-01-01T00:00:00.000Z",
  receivedAtMs: 0,
  method: "POST",
  path: "/callbacks/<token>",
  runId: null,
  sentAtMs: null,
  expectedStatus: null,
  headers: {},
  bodyBase64: "",
  json: null,
  contentType: "application/json",
  orderId: null,
  status: null,
  deliveryOfOrder: 1,
  signature: "not-checked",
  answeredWith: 200,
};

describe("callbacks as evidence: how their bodies were read", () => {
  it("names a callback's Content-Encoding and keeps its bytes as sent; names what the sink could not read", () => {
    const gzipped = gzipSync(JSON.stringify({ id: "o-1", status: "succeeded" }));
    const stored: StoredCallback[] = [
      {
        ...base,
        bodyBase64: gzipped.toString("base64"),
        contentEncoding: "gzip",
        bodyProblem: null,
        orderId: "o-1",
        status: "succeeded",
      },
      {
        ...base,
        seq: 2,
        bodyBase64: gzipped.subarray(0, 12).toString("base64"),
        contentEncoding: "gzip",
        bodyProblem: "the body does not decode as gzip: unexpected end of file",
        answeredWith: 400,
      },
      { ...base, seq: 3, bodyBase64: Buffer.from("{}").toString("base64") },
    ];
    const evidence = callbackEvidence(stored, [], "http://127.0.0.1:9", createMasker({ secrets: [] }));
    expect(evidence.map((e) => [e.contentEncoding, e.bodyProblem, e.bodyEncoding])).toEqual([
      ["gzip", undefined, "base64"],
      ["gzip", "the body does not decode as gzip: unexpected end of file", "base64"],
      [undefined, undefined, "utf8"],
    ]);
    expect(Buffer.from(evidence[0]?.body ?? "", "base64")).toEqual(gzipped);
    expect(callbackReadingNotes(evidence)).toEqual([
      "2 callback(s) came with a Content-Encoding (gzip: 2): read decoded, their signatures checked on the bytes as sent",
      "1 callback(s) the sink could not read, answered 4xx and filed under no order; first callback-2 (HTTP 400): the body does not decode as gzip: unexpected end of file",
    ]);
  });
});
