/**
 * What no load tool measures by itself: whether every confirmed order's callback still arrives
 * under load, how late, and how cleanly. Each order's callback URL carried the run id, when the
 * order was made and the final status expected of it; the sink tallied every callback as it came
 * (webhook-sink/tally.ts); k6 counted the orders confirmed per expected final status. This joins
 * the two, per final status.
 */

import { CONFIRMED_STATUSES, type ConfirmedStatus } from "../../contract/index.ts";
import type { RunTally, SinkIntake, StoredCallback } from "../../webhook-sink/index.ts";

type Latency = RunTally["latencyMs"];

export interface FinalDelivery {
  final: ConfirmedStatus;
  /** Orders k6 confirmed aiming at this final status. */
  confirmed: number;
  /** Of those, whose final callback arrived: within the wait window, and after it. */
  delivered: number;
  late: number;
  /** Never arrived while the harness listened. */
  missing: number;
  /**
   * Final callbacks for orders k6 did not count as confirmed: an iteration cut short when k6
   * stopped (a stress step broke, Ctrl-C) after the provider took the confirmation.
   */
  uncounted: number;
  /** Callbacks of this status that repeated one the order already had. */
  duplicates: number;
  /** Callbacks of this status that came before the status that must precede it (an appeal before its failure). */
  outOfOrder: number;
  /** Other final statuses these orders got, by status. */
  otherFinal: Record<string, number>;
  /** Order made → final callback. */
  latencyMs: Latency;
  /** Trigger (the confirmation, answered) → final callback: what the profile's callbackMs bounds. */
  triggerLatencyMs: Latency;
  /** Delivered orders whose trigger note never reached the sink: judged from the order's creation. */
  withoutTrigger: number;
}

export interface DeliveryReport {
  /** Orders the load run confirmed (k6's h2h_confirmed_* counters). */
  confirmed: number;
  /** Distinct orders whose expected final callback arrived, at any time the harness listened. */
  delivered: number;
  /** Of those, within the wait window after the order was made. */
  onTime: number;
  late: number;
  missing: number;
  /** Final callbacks for orders k6 did not count as confirmed (see FinalDelivery.uncounted). */
  uncounted: number;
  /** onTime / confirmed; 1 when nothing was confirmed. */
  ratio: number;
  /** Order made → expected final callback, ms. */
  latencyMs: Latency;
  /** Trigger (the confirmation, answered) → expected final callback, ms. */
  triggerLatencyMs: Latency;
  /** Delivered orders judged from their creation because their trigger note never came. */
  withoutTrigger: number;
  /** A callback is late when it comes this long after its trigger (the profile's callback timeout). */
  windowMs: number;
  byFinal: FinalDelivery[];
  duplicates: number;
  outOfOrder: number;
  /** Final callbacks with another status than the one expected, by status. */
  unexpectedStatuses: Record<string, number>;
  /** Callbacks of the run naming no order or status the sink knows. */
  unmatched: number;
  /** Signature verdicts of the run's callbacks. */
  signatures: Record<string, number>;
  /** Callbacks of this run the sink took, and its own intake (all runs): rate, answer time. */
  callbacks: number;
  sink: Omit<SinkIntake, "timeline">;
  latencyHistogram: RunTally["latencyHistogram"];
  /** Odd callbacks kept in full, as evidence (masked when written). */
  samples: { reason: string; callback: StoredCallback }[];
}

export function analyseDelivery(
  tally: RunTally,
  confirmed: Record<ConfirmedStatus, number>,
  intake: SinkIntake,
  samples: { reason: string; callback: StoredCallback }[] = [],
): DeliveryReport {
  const byFinal: FinalDelivery[] = CONFIRMED_STATUSES.map((final) => {
    const expected = tally.byExpected[final];
    const status = tally.byStatus[final];
    const arrived = expected?.delivered ?? 0;
    const uncounted = Math.max(0, arrived - confirmed[final]);
    // Which arrivals were the uncounted orders' is unknown: the late ones are counted first.
    const late = Math.min(expected?.late ?? 0, arrived - uncounted);
    return {
      final,
      confirmed: confirmed[final],
      delivered: arrived - uncounted,
      late,
      missing: Math.max(0, confirmed[final] - arrived),
      uncounted,
      duplicates: status?.duplicates ?? 0,
      outOfOrder: status?.outOfOrder ?? 0,
      otherFinal: expected?.otherFinal ?? {},
      latencyMs: expected?.latencyMs ?? { p50: null, p95: null, p99: null, max: null },
      triggerLatencyMs: expected?.triggerLatencyMs ?? { p50: null, p95: null, p99: null, max: null },
      withoutTrigger: expected?.withoutTrigger ?? 0,
    };
  });
  const sum = (pick: (f: FinalDelivery) => number) => byFinal.reduce((n, f) => n + pick(f), 0);
  const totalConfirmed = sum((f) => f.confirmed);
  const delivered = sum((f) => f.delivered);
  const late = sum((f) => f.late);
  const onTime = delivered - late;
  const uncounted = sum((f) => f.uncounted);
  const unexpectedStatuses: Record<string, number> = {};
  for (const f of byFinal)
    for (const [status, count] of Object.entries(f.otherFinal))
      unexpectedStatuses[status] = (unexpectedStatuses[status] ?? 0) + count;
  return {
    confirmed: totalConfirmed,
    delivered,
    onTime,
    late,
    missing: sum((f) => f.missing),
    uncounted,
    ratio:
      totalConfirmed === 0
        ? 1
        : Math.round((Math.min(onTime, totalConfirmed) / totalConfirmed) * 10_000) / 10_000,
    latencyMs: tally.latencyMs,
    triggerLatencyMs: tally.triggerLatencyMs,
    withoutTrigger: tally.withoutTrigger,
    windowMs: tally.windowMs,
    byFinal,
    duplicates: Object.values(tally.byStatus).reduce((n, s) => n + s.duplicates, 0),
    outOfOrder: Object.values(tally.byStatus).reduce((n, s) => n + s.outOfOrder, 0),
    unexpectedStatuses,
    unmatched: tally.unmatched,
    signatures: tally.signatures,
    callbacks: tally.callbacks,
    sink: { callbacks: intake.callbacks, peakPerSecond: intake.peakPerSecond, answerMs: intake.answerMs },
    latencyHistogram: tally.latencyHistogram,
    samples,
  };
}
