/**
 * The readers of k6's end-of-test data, on what a real k6 v1.3.0 wrote (load/harness/fixtures):
 * thresholds, checks by name (failing ones first), the delivery denominators, business errors,
 * and the text the scripts print.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseLoadConfig } from "./config.ts";
import {
  businessErrorCount,
  checksOf,
  confirmedByFinal,
  failingChecks,
  type K6Summary,
  textSummary,
  thresholdsOf,
} from "./summary.ts";

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../harness/fixtures/${name}.summary.json`, import.meta.url), "utf8"),
  ) as K6Summary;

describe("k6 summary readers, on real k6 output", () => {
  it("read a passing mixed smoke: every threshold, every check by name, the orders confirmed per final status", () => {
    const summary = fixture("mixed-smoke-shares");
    expect(thresholdsOf(summary)).toHaveLength(6);
    expect(thresholdsOf(summary).every((t) => t.ok)).toBe(true);
    const checks = checksOf(summary);
    // Two checks per answer, four operations.
    expect(checks.map((c) => c.name).sort()).toEqual(
      [
        "confirmMobileCommerceOrder: data as the contract says",
        "confirmMobileCommerceOrder: success envelope",
        "confirmQuasiEcomOrder: data as the contract says",
        "confirmQuasiEcomOrder: success envelope",
        "createMobileCommerceOrder: data as the contract says",
        "createMobileCommerceOrder: success envelope",
        "createQuasiEcomOrder: data as the contract says",
        "createQuasiEcomOrder: success envelope",
      ].sort(),
    );
    expect(failingChecks(summary)).toEqual([]);
    const confirmed = confirmedByFinal(summary);
    expect(confirmed.succeeded + confirmed.failed_by_terminal + confirmed.succeeded_by_appeal).toBe(
      summary.metrics.iterations?.values.count,
    );
    expect(confirmed.failed_by_terminal).toBeGreaterThan(0);
    expect(confirmed.succeeded_by_appeal).toBeGreaterThan(0);
    expect(businessErrorCount(summary)).toBe(0);
  });

  it("name the failing check of a target that breaks the contract, with its counts", () => {
    const summary = fixture("mixed-amount-as-string");
    expect(failingChecks(summary)).toEqual([
      { name: "createMobileCommerceOrder: data as the contract says", passes: 0, fails: expect.any(Number) },
    ]);
    expect(thresholdsOf(summary).find((t) => t.metric === "checks")).toEqual({
      metric: "checks",
      rule: "rate>0.99",
      ok: false,
    });
    const text = textSummary(summary);
    expect(text).toContain("✗ checks rate>0.99");
    expect(text).toMatch(
      /failing checks:\n {2}✗ createMobileCommerceOrder: data as the contract says — \d+ of \d+ failed/,
    );
  });

  it("count business errors, and no endpoint line for an endpoint never reached", () => {
    const summary = fixture("quasi-ecom-wrong-key");
    expect(businessErrorCount(summary)).toBe(summary.metrics.iterations?.values.count);
    expect(failingChecks(summary).map((c) => c.name)).toEqual([
      "createQuasiEcomOrder: data as the contract says",
      "createQuasiEcomOrder: success envelope",
    ]);
    const text = textSummary(summary);
    expect(text).toContain("createQuasiEcomOrder: p50");
    expect(text).not.toContain("confirmQuasiEcomOrder: p50");
    expect(Object.values(confirmedByFinal(summary))).toEqual([0, 0, 0]);
  });

  it("read the older bundle's summary (three checks per answer, no h2h_confirmed_* counters) without failing", () => {
    const summary = fixture("ee084ca-mixed-smoke");
    expect(checksOf(summary)).toHaveLength(12);
    expect(failingChecks(summary)).toEqual([]);
    expect(thresholdsOf(summary)).toHaveLength(6);
    expect(confirmedByFinal(summary)).toEqual({
      succeeded: 0,
      failed_by_terminal: 0,
      succeeded_by_appeal: 0,
    });
    expect(textSummary(summary)).toContain("checks: 100.00% passed (11256 of 11256)");
  });

  it("print each stress step and the capacity", () => {
    const summary = fixture("mixed-stress");
    const config = parseLoadConfig(
      {
        H2H_BASE_URL: "http://127.0.0.1:1",
        H2H_API_KEY: "k",
        H2H_RUN_ID: "r",
        H2H_SCENARIO: "stress",
        H2H_DURATION: "45s",
        H2H_RATE: "40",
        H2H_P95_MS: "60",
      },
      {
        methods: {
          mobile_commerce: { methodID: 101, amount: 1500, requires: { clientID: false, clientMetadata: [] } },
          quasi_ecom: { methodID: 201, amount: 2500.5, requires: { clientID: false, clientMetadata: [] } },
        },
        codes: { succeeded: "1111" },
        expectedStatus: {
          createMobileCommerceOrder: "payment_pending",
          confirmMobileCommerceOrder: "waiting_for_terminal",
          createQuasiEcomOrder: "created",
          confirmQuasiEcomOrder: "created",
        },
        requestTimeoutMs: 5000,
      },
    );
    const text = textSummary(summary, config);
    expect(text).toContain("stress steps:");
    expect(text).toMatch(/^capacity: 60 orders\/s$/m);
    expect(text).toMatch(/^ {2}✗ 90 orders\/s \(started [\d.]+\/s\): createMobileCommerceOrder p95/m);
    // The per-step thresholds are in the step lines, not the threshold list.
    expect(text).not.toMatch(/step:\d/);
  });
});
