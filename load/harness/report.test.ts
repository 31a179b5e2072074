/**
 * The load reports, built from what a real k6 wrote (load/harness/fixtures) and a real sink tally:
 * the verdict and why, the failing checks by name, delivery per final status, the stress
 * capacity, inline SVG plots with data, and a size that does not grow with the run's length.
 */
import { describe, expect, it } from "vitest";
import { parseJunit, validateJunit10, xmllintPath } from "../../fixtures/testing/junit-schema.ts";
import { fixture, report } from "../testing/sample-report.ts";
import type { K6Timeline } from "./k6-timeline.ts";
import { bucketPoints, type LoadReport, renderLoadHtml, renderLoadJunit } from "./report.ts";

const plots = (html: string) =>
  [...html.matchAll(/<svg class="plot" data-plot="([^"]+)" data-points="(\d+)"/g)].map((m) => ({
    plot: m[1],
    points: Number(m[2]),
  }));

describe("load reports", () => {
  it("pass when k6 passed, every threshold held and every final callback came in time", () => {
    const passed = report("mixed-smoke-shares");
    expect(passed.passed).toBe(true);
    expect(passed.failures).toEqual([]);
    expect(passed.delivery.ratio).toBe(1);
    expect(passed.endpoints.map((e) => e.endpoint).sort()).toHaveLength(4);
    const junit = renderLoadJunit(passed);
    expect(junit).toContain('failures="0"');
    expect(junit).toContain('name="http_req_duration{name:createMobileCommerceOrder} p(95)&lt;500"');
    expect(junit).toContain(
      'classname="checks" name="createMobileCommerceOrder: success with the expected status"',
    );
    const html = renderLoadHtml(passed);
    expect(html).toContain("PASSED");
    expect(html).toContain("No check failed.");
    // Self-contained: nothing fetched from anywhere.
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
  });

  // Which TLS settings k6 was given, never a key or passphrase.
  it("say which TLS files the run used", () => {
    const withTls: LoadReport = {
      ...report("mixed-smoke-shares"),
      tls: {
        caFile: "/certs/ca.pem",
        caCertificates: [{ subject: "CN=ca", issuer: "CN=ca", validTo: "2026-12-01T00:00:00.000Z" }],
        clientCert: "/certs/client.pem",
        clientCertificate: { subject: "CN=client", issuer: "CN=ca", validTo: "2026-12-01T00:00:00.000Z" },
        clientKey: "/certs/client.key",
        passphrase: true,
      },
    };
    const html = renderLoadHtml(withTls);
    expect(html).toContain("TLS: trusted CA file /certs/ca.pem: CN=ca, valid to 2026-12-01T00:00:00.000Z");
    expect(html).toContain("client certificate /certs/client.pem: CN=client (issued by CN=ca)");
    expect(renderLoadHtml(report("mixed-smoke-shares"))).not.toContain("TLS:");
  });

  it("draw every plot with data: p95 and throughput per endpoint, errors, delivery over time, the latency distribution", () => {
    const found = plots(renderLoadHtml(report("mixed-smoke-shares")));
    expect(found.map((p) => p.plot)).toEqual(["p95", "throughput", "errors", "delivery", "latency"]);
    for (const plot of found) expect(plot.points, plot.plot).toBeGreaterThan(0);
  });

  it("fail on a failing check, naming it in the JUnit file and the page", () => {
    const failed = report("mixed-amount-as-string");
    expect(failed.passed).toBe(false);
    expect(failed.failures).toContain("threshold checks rate>0.99 was crossed");
    expect(failed.checks.failing.map((c) => c.name)).toEqual([
      "createMobileCommerceOrder: every required field of the right type",
    ]);
    expect(renderLoadJunit(failed)).toMatch(
      /<testcase classname="checks" name="createMobileCommerceOrder: every required field of the right type">\n\s+<failure message="\d+ of \d+ failed \(100\.00 %\)"/,
    );
    expect(renderLoadHtml(failed)).toContain(
      "✗ createMobileCommerceOrder: every required field of the right type",
    );
  });

  it.skipIf(xmllintPath() === undefined)(
    "write JUnit that validates against Jenkins xunit's junit-10.xsd (skipped: xmllint is not installed)",
    () => {
      for (const r of [report("mixed-smoke-shares"), report("mixed-amount-as-string")]) {
        const verdict = validateJunit10(renderLoadJunit(r));
        expect(verdict.errors).toBe("");
        expect(verdict.valid).toBe(true);
      }
    },
  );

  it("write JUnit that junit2json reads, with its counts", async () => {
    const failed = report("mixed-amount-as-string");
    const parsed = await parseJunit(renderLoadJunit(failed));
    const suite = parsed.testsuite?.[0];
    const cases = suite?.testcase ?? [];
    expect(suite?.tests).toBe(cases.length);
    expect(suite?.errors).toBe(0);
    expect(suite?.failures).toBe(cases.filter((c) => c.failure !== undefined).length);
    expect(suite?.failures).toBeGreaterThan(0);
    expect(parsed.failures).toBe(suite?.failures);
  });

  it("count requests with no answer (a target killed mid-run) as transport errors, out of latency and business errors", () => {
    const { summary, timeline } = fixture("mixed-smoke-shares");
    const plain = summary.metrics["http_req_duration{name:createMobileCommerceOrder}"];
    const killed = structuredClone(summary);
    // What k6 keeps when refused connections (0 ms each) are among the requests: the plain metric
    // drags to 0, the expected_response:true submetric holds the answered ones.
    killed.metrics["http_req_duration{name:createMobileCommerceOrder}"] = {
      ...(plain as NonNullable<typeof plain>),
      values: { ...plain?.values, med: 0, "p(95)": 0.4 },
    };
    killed.metrics["http_req_duration{name:createMobileCommerceOrder,expected_response:true}"] = {
      ...(plain as NonNullable<typeof plain>),
      values: { ...plain?.values, med: 12.5, "p(95)": 30 },
    };
    killed.metrics.h2h_transport_errors = {
      type: "counter",
      contains: "default",
      values: { count: 65, rate: 2 },
    };
    const r = report("mixed-smoke-shares", { summary: killed, timeline });
    expect(r.transportErrors.total).toBe(65);
    expect(r.businessErrors.total).toBe(0);
    const create = r.endpoints.find((e) => e.endpoint === "createMobileCommerceOrder");
    expect(create).toMatchObject({ p50: 12.5, p95: 30 });
    expect(r.endpoints.filter((e) => e.endpoint === "createMobileCommerceOrder")).toHaveLength(1);
    const junit = renderLoadJunit(r);
    expect(junit).toMatch(/<testsuite [^>]*errors="1"/);
    expect(junit).toContain('<error message="65 requests got no answer (refused, reset or timed out)"');
    expect(renderLoadHtml(r)).toContain("no answer (refused, reset, timed out)</td><td>65 in all");
  });

  it("say that no order was created when the target took none, never a delivery share of zero orders", () => {
    const none = report("quasi-ecom-wrong-key");
    expect(none.delivery.confirmed).toBe(0);
    expect(none.passed).toBe(false);
    expect(none.failures).toContainEqual(expect.stringMatching(/^no order was created \(\d+ iterations\)/));
    for (const text of [renderLoadJunit(none), renderLoadHtml(none)]) {
      expect(text).not.toMatch(/\b0 of 0 |orders got their final callback/);
      expect(text).toContain("no order was confirmed, so no callback delivery was measured");
    }
  });

  it("draw the sink's callbacks per second over each bucket's real width: a last bucket of 10 ms is no spike", () => {
    // 2 callbacks/s, then the run's one last callback in the 10 ms before the series was taken.
    const points = bucketPoints(
      { startMs: 10_000, bucketMs: 1_000, counts: [2, 2, 1], endMs: 12_010 },
      10_000,
    );
    expect(points).toEqual([
      [0.5, 2],
      [1.505, 3 / 1.01],
    ]);
    // A last bucket half full or more stands, over its real width.
    expect(bucketPoints({ startMs: 0, bucketMs: 1_000, counts: [2, 1], endMs: 1_500 }, 0)).toEqual([
      [0.5, 2],
      [1.25, 2],
    ]);
  });

  it("fail when a final callback is missing, saying how many of how many", () => {
    const missing = report("mixed-smoke-shares", { missing: 2 });
    expect(missing.passed).toBe(false);
    expect(missing.delivery.byFinal[0]).toMatchObject({ final: "succeeded", missing: 2 });
    expect(renderLoadJunit(missing)).toMatch(
      /<failure message="\d+ of \d+ confirmed orders got their final callback within 10s of its trigger \(\d+\.\d+ %\), 2 never"/,
    );
  });

  it("stress: report each step and the capacity; k6's exit code 99 (stopped at a broken step) is no failure", () => {
    const stress = report("mixed-stress", { stress: true });
    expect(stress.stress?.line).toMatch(/^capacity: /);
    expect(stress.failures.some((f) => f.startsWith("k6 exited"))).toBe(false);
    expect(renderLoadJunit(stress)).toContain('classname="stress" name="capacity"');
    expect(renderLoadHtml(stress)).toContain("Stress steps");
  });

  it("stay the same size whatever the run's length: every series is per period or per bucket", () => {
    const minute = report("mixed-smoke-shares");
    const { summary, timeline } = fixture("mixed-smoke-shares");
    // The same run stretched to a day: the harness's period grows, the number of periods does not.
    const day: K6Timeline = {
      ...timeline,
      periodMs: 720_000,
      periods: timeline.periods.map((p, i) => ({
        ...p,
        timeMs: (timeline.periods[0]?.timeMs ?? 0) + i * 720_000,
        durationMs: 720_000,
      })),
    };
    const long = report("mixed-smoke-shares", { summary, timeline: day });
    const size = (r: LoadReport) => ({ json: JSON.stringify(r).length, html: renderLoadHtml(r).length });
    expect(size(long).json).toBeLessThan(size(minute).json * 1.2);
    expect(size(long).html).toBeLessThan(size(minute).html * 1.2);
    expect(size(long).html).toBeLessThan(200_000);
  });
});
