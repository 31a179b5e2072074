/**
 * Load reports for the project's own tests, built from what a real k6 wrote
 * (load/harness/fixtures) and a real sink tally fed with the callbacks the run's confirmed orders
 * would get: the report, page and plot tests share them.
 */
import { readFileSync } from "node:fs";
import { CallbackTally, type StoredCallback } from "../../webhook-sink/index.ts";
import { analyseDelivery } from "../harness/delivery.ts";
import { type K6Timeline, loadSeriesOf, parseK6Timeline } from "../harness/k6-timeline.ts";
import { buildLoadReport, type LoadReport } from "../harness/report.ts";
import { stressOutcome } from "../lib/capacity.ts";
import { stressSteps } from "../lib/scenarios.ts";
import { confirmedByFinal, type K6Summary } from "../lib/summary.ts";

export const fixture = (name: string) => ({
  summary: JSON.parse(
    readFileSync(new URL(`../harness/fixtures/${name}.summary.json`, import.meta.url), "utf8"),
  ) as K6Summary,
  timeline: parseK6Timeline(
    readFileSync(new URL(`../harness/fixtures/${name}.timeline.ndjson.gz`, import.meta.url)),
  ),
});

const settings = {
  rate: 1.5,
  duration: "30s",
  thinkSeconds: 1,
  maxVUs: 100,
  mobileShare: 0.5,
  failureShare: 0,
  appealShare: 0,
  p95Ms: 500,
};

let seq = 0;
const callback = (
  orderId: string,
  status: string,
  expected: string,
  sentAtMs: number,
  receivedAtMs: number,
) =>
  ({
    seq: ++seq,
    receivedAt: new Date(receivedAtMs).toISOString(),
    receivedAtMs,
    method: "POST",
    path: "/callbacks/<token>/run/r",
    runId: "r",
    sentAtMs,
    expectedStatus: expected,
    headers: {},
    bodyBase64: Buffer.from(JSON.stringify({ id: orderId, status })).toString("base64"),
    json: null,
    contentType: "application/json",
    orderId,
    status,
    deliveryOfOrder: 1,
    signature: "valid",
    answeredWith: 200,
  }) satisfies StoredCallback;

/** A sink that got every confirmed order's final callback, spread over the run, 1.2 s after each order. */
export function tallyFor(confirmed: Record<string, number>, startMs: number, seconds: number, missing = 0) {
  const tally = new CallbackTally({ originMs: startMs });
  let n = 0;
  const total = Object.values(confirmed).reduce((a, b) => a + b, 0);
  for (const [final, count] of Object.entries(confirmed)) {
    for (let i = 0; i < count - (final === "succeeded" ? missing : 0); i++, n++) {
      const sentAt = startMs + (n / Math.max(1, total)) * seconds * 1000;
      if (final === "succeeded_by_appeal")
        tally.add(callback(`o${n}`, "failed_by_terminal", final, sentAt, sentAt + 1000), 0.3);
      tally.add(callback(`o${n}`, final, final, sentAt, sentAt + 1200 + (n % 7) * 10), 0.3);
    }
  }
  return tally;
}

export function report(
  name: string,
  options: { missing?: number; stress?: boolean; timeline?: K6Timeline; summary?: K6Summary } = {},
): LoadReport {
  const loaded = options.summary && options.timeline ? undefined : fixture(name);
  const summary = options.summary ?? (loaded as { summary: K6Summary }).summary;
  const timeline = options.timeline ?? (loaded as { timeline: K6Timeline }).timeline;
  const startMs = (timeline.periods[0]?.timeMs ?? 0) - timeline.periodMs;
  const seconds = ((timeline.periods.at(-1)?.timeMs ?? startMs) - startMs) / 1000;
  const confirmed = confirmedByFinal(summary);
  const tally = tallyFor(confirmed, startMs, seconds, options.missing ?? 0);
  const run = tally.summary("r", 10_000);
  return buildLoadReport({
    summary,
    delivery: analyseDelivery(run, confirmed, tally.intakeSummary(), tally.samples),
    deliveryTarget: 1,
    businessErrorsByCode: {},
    stress: options.stress
      ? stressOutcome(summary, stressSteps({ rate: 40, duration: "45s" }), {
          p95Ms: 60,
          operations: [
            "createMobileCommerceOrder",
            "confirmMobileCommerceOrder",
            "createQuasiEcomOrder",
            "confirmQuasiEcomOrder",
          ],
        })
      : undefined,
    series: loadSeriesOf(timeline),
    sinkSeries: { delivered: run.deliveredTimeline, intake: run.intakeTimeline },
    startMs,
    meta: {
      runId: "load-1",
      startedAt: "2026-11-22T04:00:00.000Z",
      finishedAt: "2026-11-22T04:00:31.000Z",
      target: "http://127.0.0.1:8080",
      script: "mixed",
      scenario: options.stress ? "stress" : "smoke",
      sends: "smoke: 1.5 orders/s for 30s",
      settings,
      runner: "k6 /opt/k6/bin/k6",
      k6ExitCode:
        summary.metrics.checks?.thresholds?.["rate>0.99"]?.ok === false ? 99 : options.stress ? 99 : 0,
      files: {},
    },
  });
}
