/**
 * Certify's JUnit file as CI servers take it: valid against Jenkins xunit's JUnit schema
 * (junit-10.xsd, with xmllint) and read by a JUnit consumer from the npm registry (junit2json),
 * with the counts it carries: tests, failures, errors, skipped.
 */
import { describe, expect, it } from "vitest";
import { parseJunit, validateJunit10, xmllintPath } from "../../../fixtures/testing/junit-schema.ts";
import type { CheckRecord } from "../../engine/run-model.ts";
import { renderReport } from "../../testing/render-report.ts";
import { runReportOf } from "../../testing/run-report.ts";

const check = (status: CheckRecord["status"], extra: Partial<CheckRecord> = {}): CheckRecord =>
  ({
    endpoint: "createMobileCommerceOrder",
    check: `envelope.${status.replace(" ", "-")}`,
    rule: "r",
    status,
    required: true,
    detail: `a ${status} check`,
    durationMs: 2,
    exchanges: [],
    source: "lifecycle",
    ...extra,
  }) as CheckRecord;

const report = runReportOf([
  check("passed"),
  check("failed"),
  check("failed", { check: "envelope.informational", required: false, reason: "gap" }),
  check("skipped", { reason: "no second key" }),
  check("not evaluated", { endpoint: "confirmMobileCommerceOrder" }),
]);

describe("certify's JUnit file", () => {
  it.skipIf(xmllintPath() === undefined)(
    "validates against Jenkins xunit's junit-10.xsd (skipped: xmllint is not installed)",
    () => {
      const verdict = validateJunit10(renderReport("junit", report));
      expect(verdict.errors).toBe("");
      expect(verdict.valid).toBe(true);
    },
  );

  it("parses in junit2json with its counts", async () => {
    const parsed = await parseJunit(renderReport("junit", report));
    expect(parsed.tests).toBe(5);
    expect(parsed.failures).toBe(1);
    expect(parsed.errors).toBe(0);
    const suites = parsed.testsuite ?? [];
    expect(suites.map((s) => [s.name, s.tests, s.failures, s.errors, s.skipped])).toEqual([
      ["createMobileCommerceOrder", 4, 1, 0, 1],
      ["confirmMobileCommerceOrder", 1, 0, 0, 1],
    ]);
    expect(suites[0]?.testcase?.find((c) => c.failure !== undefined)?.failure?.[0]?.message).toBe(
      "a failed check",
    );
  });

  it("is one testcase for a record that stands for several results (observe's); the totals count results", async () => {
    const counted = runReportOf([
      check("passed", { count: 40 }),
      check("failed"),
      check("failed", { case: "7 more failed, not listed", count: 7 }),
      check("not evaluated", { endpoint: "confirmMobileCommerceOrder", count: 3 }),
    ]);
    expect(counted.totals).toMatchObject({ passed: 40, failedRequired: 8, notEvaluated: 3 });
    expect(counted.summary.map((s) => [s.endpoint, s.passed, s.failed, s.notEvaluated])).toEqual([
      ["createMobileCommerceOrder", 40, 8, 0],
      ["confirmMobileCommerceOrder", 0, 0, 3],
    ]);
    const parsed = await parseJunit(renderReport("junit", counted));
    expect([parsed.tests, parsed.failures]).toEqual([4, 2]);
    expect((parsed.testsuite ?? []).map((s) => [s.name, s.tests, s.failures])).toEqual([
      ["createMobileCommerceOrder", 3, 2],
      ["confirmMobileCommerceOrder", 1, 0],
    ]);
  });
});
