/**
 * A callback whose signature fails is never shown as passed, and its failure says what the
 * provider's engineer needs: the scheme as the profile declares it, the header and value received,
 * what the suite computed over which bytes, and the secret by name and length, never its value.
 * On the console, in the JSON (callbacks, check findings) and in the HTML.
 */
import { describe, expect, it } from "vitest";
import { callbacksSignatureValid, type HmacScheme, signCallbackBody } from "../../contract/index.ts";
import { createMasker } from "../../contract/kit/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import type { CheckRecord } from "../engine/run-model.ts";
import { renderReport } from "../testing/render-report.ts";
import { runReportOf } from "../testing/run-report.ts";
import { callbackEvidence } from "./callback-evidence.ts";
import { printSummary } from "./console-summary.ts";
import { explainStoredSignature } from "./signature-evidence.ts";

const SCHEME: HmacScheme = {
  scheme: "hmac-sha256",
  header: "X-Signature",
  prefix: "sha256=",
  encoding: "hex",
};
const SECRET = "the-callback-secret-0042";
const body = '{"id":"o-1","status":"succeeded"}';
const forged = signCallbackBody(body, "not-the-secret", SCHEME);
const computed = signCallbackBody(body, SECRET, SCHEME);

const stored: StoredCallback = {
  seq: 1,
  receivedAt: "2026-01-01T00:00:01.000Z",
  receivedAtMs: Date.parse("2026-01-01T00:00:01.000Z"),
  method: "POST",
  path: "/callbacks/<token>/run/run-1.mc.succeeded",
  runId: "run-1.mc.succeeded",
  sentAtMs: null,
  expectedStatus: null,
  headers: { "content-type": "application/json", "x-signature": forged },
  bodyBase64: Buffer.from(body).toString("base64"),
  json: JSON.parse(body),
  contentType: "application/json",
  orderId: "o-1",
  status: "succeeded",
  deliveryOfOrder: 1,
  signature: "invalid",
  answeredWith: 200,
};

const masker = createMasker({ secrets: [SECRET], cardNumbers: [] });

describe("a callback whose signature fails", () => {
  const explained = explainStoredSignature(stored, SCHEME, SECRET);

  it("fails callbacks.signature-valid with the value received and the one computed, scheme, bytes and secret as findings", () => {
    const outcome = callbacksSignatureValid.run({
      signed: true,
      callbacks: [
        {
          json: stored.json,
          receivedAtMs: 0,
          signature: "invalid",
          answeredWith: 200,
          signatureExplained: explained,
        },
      ],
    } as never);
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toBe(
      `1 of 1 signature(s) do not verify (invalid); first: X-Signature received "${forged}", computed "${computed}"`,
    );
    expect(outcome.findings).toEqual([
      {
        path: "header X-Signature",
        expected: computed,
        actual: forged,
        hint: `HMAC-SHA256, header X-Signature, prefix "sha256=", hex digest, over the raw body as received, ${body.length} bytes (SHA-256 ${explained?.signedOver.match(/[0-9a-f]{64}/)?.[0]}), with H2H_CALLBACK_SECRET (${SECRET.length} characters)`,
      },
    ]);
  });

  const evidence = callbackEvidence([stored], [], "http://127.0.0.1:9", masker, undefined, {
    scheme: SCHEME,
    secret: SECRET,
  });
  const record: CheckRecord = {
    endpoint: "callbacks (mobile commerce)",
    check: "callbacks.follow-lifecycle",
    rule: "r",
    status: "passed",
    required: true,
    detail: "follows the lifecycle",
    durationMs: 1,
    exchanges: [],
    source: "callbacks",
    timeline: {
      orderId: "o-1",
      scenario: "mobile commerce › succeeded",
      tag: "run-1.mc.succeeded",
      triggeredAt: "2026-01-01T00:00:00.500Z",
      deliveries: [
        {
          status: "succeeded",
          arrivedAfterMs: 500,
          delivery: 1,
          answeredWith: 200,
          signature: "invalid",
          callback: "callback-1",
        },
      ],
    },
  };
  const failed: CheckRecord = {
    ...record,
    check: "callbacks.signature-valid",
    status: "failed",
    detail: "1 of 1 signature(s) do not verify (invalid)",
    findings: [{ path: "header X-Signature", expected: computed, actual: forged, hint: "HMAC-SHA256 …" }],
    timeline: undefined,
  } as CheckRecord;
  const report = runReportOf([record, failed], { callbacks: evidence });

  it("keeps the explanation with the callback in the JSON, the secret named, never given", () => {
    expect(evidence[0]?.signatureExplained).toMatchObject({
      scheme: 'HMAC-SHA256, header X-Signature, prefix "sha256=", hex digest',
      header: "X-Signature",
      received: forged,
      computed,
      signedWith: `H2H_CALLBACK_SECRET (${SECRET.length} characters)`,
    });
    expect(JSON.stringify(evidence)).not.toContain(SECRET);
  });

  it("shows in the HTML: the timeline says the signature failed, never passed, and the callback explains it", () => {
    const html = renderReport("html", report);
    const row = html.slice(html.indexOf('id="callback-timelines"'));
    const timelineRow = row.slice(row.indexOf("<tr><td"), row.indexOf("</tr>", row.indexOf("<tr><td")));
    expect(timelineRow).not.toContain("✓ passed");
    expect(timelineRow).toContain("✗ signature invalid");
    for (const shown of [
      "Scheme (the profile's callbacks.signature)",
      `Received X-Signature</th><td><code>${forged}`,
      `Computed X-Signature</th><td><code>${computed}`,
      `the raw body as received, ${body.length} bytes`,
      `H2H_CALLBACK_SECRET (${SECRET.length} characters)`,
    ])
      expect(html).toContain(shown);
    expect(html).not.toContain(SECRET);
  });

  it("prints on the console the value received, the one computed and how", () => {
    const lines: string[] = [];
    printSummary(report, { json: "r.json" }, (line) => lines.push(line), "/");
    expect(lines).toContain(
      `      header X-Signature: received ${forged}; computed ${computed} (HMAC-SHA256 …)`,
    );
  });
});
