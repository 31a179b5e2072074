import { describe, expect, it } from "vitest";
import type { K6Summary } from "../lib/summary.ts";
import { textSummary } from "../lib/summary.ts";
import { analyseDelivery } from "./delivery.ts";
import { buildLoadReport, renderLoadHtml, renderLoadJunit } from "./report.ts";

/** The shape k6's handleSummary receives (only what the reports read). */
const summary = (crossed: boolean): K6Summary => ({
  metrics: {
    checks: {
      type: "rate",
      values: { rate: 1, passes: 120, fails: 0 },
      thresholds: { "rate>0.99": { ok: true } },
    },
    http_req_failed: { type: "rate", values: { rate: 0 }, thresholds: { "rate<0.01": { ok: true } } },
    "http_req_duration{name:createMobileCommerceOrder}": {
      type: "trend",
      values: { med: 3.1, "p(95)": crossed ? 900 : 7.2, "p(99)": 9.9, count: 20 },
      thresholds: { "p(95)<500": { ok: !crossed } },
    },
    iterations: { type: "counter", values: { count: 20 } },
    dropped_iterations: { type: "counter", values: { count: 2 } },
    h2h_orders_confirmed: { type: "counter", values: { count: 20 } },
    h2h_flow_duration: { type: "trend", values: { med: 6, "p(95)": 12, "p(99)": 15 } },
  },
});

const meta = {
  runId: "load-1",
  startedAt: "2026-11-22T04:00:00.000Z",
  finishedAt: "2026-11-22T04:00:31.000Z",
  target: "http://127.0.0.1:8080",
  script: "mobile-commerce",
  scenario: "smoke",
  runner: "k6 /usr/bin/k6",
  k6ExitCode: 0,
  files: {},
};

describe("load reports", () => {
  it("pass when k6 passed, every threshold held and delivery met its target", () => {
    const report = buildLoadReport({
      summary: summary(false),
      delivery: analyseDelivery([], 0),
      deliveryTarget: 1,
      businessErrors: {},
      meta,
    });
    expect(report).toMatchObject({
      passed: true,
      iterations: 20,
      droppedIterations: 2,
      endpoints: [{ endpoint: "createMobileCommerceOrder", p95: 7.2, count: 20 }],
    });
    const junit = renderLoadJunit(report);
    expect(junit).toContain('failures="0"');
    expect(junit).toContain('name="http_req_duration{name:createMobileCommerceOrder} p(95)&lt;500"');
    expect(renderLoadHtml(report)).toContain("PASSED");
  });

  it("fail on a crossed threshold, and on delivery below target, naming each in the JUnit file", () => {
    const crossed = buildLoadReport({
      summary: summary(true),
      delivery: analyseDelivery([], 0),
      deliveryTarget: 1,
      businessErrors: {},
      meta: { ...meta, k6ExitCode: 99 },
    });
    expect(crossed.passed).toBe(false);
    expect(renderLoadJunit(crossed)).toMatch(
      /<failure message="http_req_duration\{name:createMobileCommerceOrder\} p\(95\)&lt;500 was crossed"/,
    );
    const undelivered = buildLoadReport({
      summary: summary(false),
      delivery: analyseDelivery([], 20),
      deliveryTarget: 1,
      businessErrors: { unauthorized: 3 },
      meta,
    });
    expect(undelivered.passed).toBe(false);
    expect(renderLoadJunit(undelivered)).toContain(
      '<failure message="0 of 20 confirmed orders got their final callback (0.00 %)" type="delivery"/>',
    );
    expect(renderLoadHtml(undelivered)).toContain("unauthorized");
  });

  it("print a short text summary with thresholds, checks and per-endpoint latency", () => {
    const text = textSummary(summary(true));
    expect(text).toContain("✗ http_req_duration{name:createMobileCommerceOrder} p(95)<500");
    expect(text).toContain("checks: 100.00% passed (120 of 120)");
    expect(text).toContain("createMobileCommerceOrder: p50 3.1 ms, p95 900.0 ms");
    expect(text).toContain("iterations 20, dropped 2, orders confirmed 20");
  });
});
