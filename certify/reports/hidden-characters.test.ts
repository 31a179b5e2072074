/**
 * A target's text with bidi overrides or C1 controls (in a finding, a body, a header) reaches the
 * JUnit and HTML reports with those characters shown as escapes, never raw: a reader sees the
 * text as the target sent it, not reordered or hidden.
 */
import { describe, expect, it } from "vitest";
import type { RecordedExchange } from "../../contract/index.ts";
import type { RunReport } from "../engine/run-model.ts";
import { renderReport } from "../testing/render-report.ts";
import { runReportOf } from "../testing/run-report.ts";

const HOSTILE = "order\u202e0001\u202c paid\u2067 \u0085\u009b31m";
const RAW = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;

const exchange: RecordedExchange = {
  id: "lifecycle-1",
  source: "lifecycle",
  operation: "createMobileCommerceOrder",
  startedAt: "2026-01-01T00:00:01.000Z",
  durationMs: 3,
  request: { method: "POST", url: "http://127.0.0.1:8080/api/orders", headers: {}, body: "{}" },
  response: {
    status: 200,
    headers: { "x-note": HOSTILE },
    body: JSON.stringify({ status: "failure", message: HOSTILE }),
    json: { status: "failure", message: HOSTILE },
  },
};

const report: RunReport = runReportOf(
  [
    {
      endpoint: "createMobileCommerceOrder",
      check: "envelope.shape",
      rule: "r",
      status: "failed",
      required: true,
      detail: `message is ${HOSTILE}`,
      durationMs: 1,
      exchanges: [exchange.id],
      source: "lifecycle",
    },
  ],
  { exchanges: [exchange], errors: [`the target said ${HOSTILE}`] },
);

describe("bidi and C1 characters from a target", () => {
  it.each([
    ["JUnit", "junit"],
    ["HTML", "html"],
  ] as const)("are shown escaped in the %s report, never raw", (_name, kind) => {
    const text = renderReport(kind, report);
    expect(text).not.toMatch(RAW);
    expect(text).toContain("order\\u202e0001\\u202c paid\\u2067 \\u0085\\u009b31m");
  });
});
