/**
 * The readers of k6's end-of-test data, on what a real k6 v1.3.0 wrote (load/harness/fixtures):
 * thresholds, checks by name (failing ones first), the delivery denominators, business errors,
 * and the text the scripts print.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type BundledProfile, parseLoadConfig } from "./config.ts";
import {
  businessErrorCount,
  checksOf,
  confirmedByFinal,
  failingChecks,
  type K6Summary,
  textSummary,
  thresholdsOf,
} from "./summary.ts";

/** What the bundle knows of the reference profile, for the stress steps. */
const PROFILE: BundledProfile = {
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
};

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
        "confirmMobileCommerceOrder: every required field of the right type",
        "confirmMobileCommerceOrder: success with the expected status",
        "confirmQuasiEcomOrder: every required field of the right type",
        "confirmQuasiEcomOrder: success with the expected status",
        "createMobileCommerceOrder: every required field of the right type",
        "createMobileCommerceOrder: success with the expected status",
        "createQuasiEcomOrder: every required field of the right type",
        "createQuasiEcomOrder: success with the expected status",
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
      {
        name: "createMobileCommerceOrder: every required field of the right type",
        passes: 0,
        fails: expect.any(Number),
      },
    ]);
    expect(thresholdsOf(summary).find((t) => t.metric === "checks")).toEqual({
      metric: "checks",
      rule: "rate>0.99",
      ok: false,
    });
    const text = textSummary(summary);
    expect(text).toContain("✗ checks rate>0.99");
    expect(text).toMatch(
      /failing checks:\n {2}✗ createMobileCommerceOrder: every required field of the right type — \d+ of \d+ failed/,
    );
  });

  it("count business errors, and no endpoint line for an endpoint never reached", () => {
    const summary = fixture("quasi-ecom-wrong-key");
    expect(businessErrorCount(summary)).toBe(summary.metrics.iterations?.values.count);
    // Most failures first: success is checked on every answer, the fields on a sample.
    expect(failingChecks(summary).map((c) => c.name)).toEqual([
      "createQuasiEcomOrder: success with the expected status",
      "createQuasiEcomOrder: every required field of the right type",
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
      PROFILE,
    );
    const text = textSummary(summary, config);
    expect(text).toContain("stress steps:");
    expect(text).toMatch(/^capacity: 60 orders\/s$/m);
    expect(text).toMatch(/^ {2}✗ 90 orders\/s \(started [\d.]+\/s\): createMobileCommerceOrder p95/m);
    // The per-step thresholds are in the step lines, not the threshold list.
    expect(text).not.toMatch(/step:\d/);
  });

  it("print ≥ the last step's rate when no stress step broke", () => {
    const config = parseLoadConfig(
      {
        H2H_BASE_URL: "http://127.0.0.1:1",
        H2H_API_KEY: "k",
        H2H_RUN_ID: "r",
        H2H_SCENARIO: "stress",
        H2H_DURATION: "45s",
        H2H_RATE: "20",
        H2H_P95_MS: "150",
      },
      PROFILE,
    );
    expect(textSummary(fixture("mixed-stress-held"), config)).toMatch(
      /^capacity: ≥ 45 orders\/s \(no threshold broke up to the last step\)$/m,
    );
  });
});
