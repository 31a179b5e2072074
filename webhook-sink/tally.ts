/**
 * The sink's load-run mode: instead of storing every callback (raw body, headers) on disk and in
 * memory, it tallies them as they arrive, so an hour-long soak writes nothing per callback and
 * keeps one number per order. What a load report needs survives: per final status, the orders
 * whose expected final callback came (and how long after the order), duplicates, callbacks out of
 * order (an appeal before the failure it appeals), callbacks with another final status than
 * expected; the sink's own intake rate and answer time; and a bounded sample of odd callbacks in
 * full, as evidence.
 *
 * Memory: one packed number per order that got a callback (its statuses seen, expected final
 * status, latency), about 100 bytes with its key; a fixed number of timeline buckets; at most
 * `sampleLimit` full callbacks. Nothing grows per callback.
 */
import { FINAL_STATUSES, type FinalStatus, STATUS } from "../contract/schemas/names.ts";
import type { StoredCallback } from "./store.ts";

/** A count per time bucket whose width doubles whenever the run outgrows `maxBuckets`: bounded at any length. */
export class Timeline {
  private counts: number[] = [];
  bucketMs: number;

  constructor(
    readonly originMs: number,
    initialBucketMs = 1_000,
    private readonly maxBuckets = 120,
  ) {
    this.bucketMs = initialBucketMs;
  }

  add(atMs: number, n = 1): void {
    let index = Math.max(0, Math.floor((atMs - this.originMs) / this.bucketMs));
    while (index >= this.maxBuckets) {
      const merged: number[] = [];
      for (let i = 0; i < this.counts.length; i += 2)
        merged.push((this.counts[i] ?? 0) + (this.counts[i + 1] ?? 0));
      this.counts = merged;
      this.bucketMs *= 2;
      index = Math.floor((atMs - this.originMs) / this.bucketMs);
    }
    while (this.counts.length <= index) this.counts.push(0);
    this.counts[index] = (this.counts[index] ?? 0) + n;
  }

  series(): TimelineSeries {
    // When the series was taken: its last bucket is only that wide (a rate divides by the real width).
    return { startMs: this.originMs, bucketMs: this.bucketMs, counts: [...this.counts], endMs: Date.now() };
  }
}

export interface TimelineSeries {
  /** ms since the epoch where bucket 0 starts. */
  startMs: number;
  bucketMs: number;
  counts: number[];
  /** ms since the epoch when the series was taken (its last bucket ends there, or at its full width). */
  endMs?: number;
}

/** The largest count in any one calendar second, kept in O(1). */
class PeakPerSecond {
  private second = -1;
  private count = 0;
  peak = 0;

  add(atMs: number): void {
    const second = Math.floor(atMs / 1000);
    if (second !== this.second) {
      this.second = second;
      this.count = 0;
    }
    this.count += 1;
    if (this.count > this.peak) this.peak = this.count;
  }
}

/** Answer times of the sink, in a fixed log-scale histogram (5 % wide buckets from 0.01 ms to over an hour). */
export class DurationHistogram {
  private static readonly FACTOR = 1.05;
  private static readonly MIN_MS = 0.01;
  private readonly counts = new Map<number, number>();
  count = 0;
  maxMs = 0;

  add(ms: number): void {
    const index =
      ms <= DurationHistogram.MIN_MS
        ? 0
        : Math.ceil(Math.log(ms / DurationHistogram.MIN_MS) / Math.log(DurationHistogram.FACTOR));
    this.counts.set(index, (this.counts.get(index) ?? 0) + 1);
    this.count += 1;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  /** The upper bound of the bucket holding the p-th percentile (at most 5 % above the true value). */
  percentile(p: number): number | null {
    if (this.count === 0) return null;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (const index of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(index) ?? 0;
      if (seen >= rank)
        return Math.min(this.maxMs, DurationHistogram.MIN_MS * DurationHistogram.FACTOR ** index);
    }
    return this.maxMs;
  }
}

/** The statuses the tally tells apart (the final ones), each a bit in an order's mark. */
export const TALLIED_STATUSES: readonly FinalStatus[] = FINAL_STATUSES;
export type TalliedStatus = FinalStatus;

/** A status that must come before another for the same order (a failure before its appeal). */
const PREDECESSOR: Partial<Record<TalliedStatus, TalliedStatus>> = {
  [STATUS.succeeded_by_appeal]: STATUS.failed_by_terminal,
};

const STATUS_BIT = Object.fromEntries(TALLIED_STATUSES.map((status, i) => [status, 1 << i])) as Record<
  TalliedStatus,
  number
>;
const EXPECTED_CODE: Record<string, number> = Object.fromEntries(
  TALLIED_STATUSES.map((status, i) => [status, i + 1]),
);

/**
 * An order's mark, packed in one number: bits 0-3 the statuses seen, bits 4-6 the expected final
 * status (0: unknown), the rest the latency of the expected final callback in ms plus one (0: not
 * arrived yet). A double holds integers up to 2^53: latencies up to about 2^46 ms are exact.
 */
const LATENCY_UNIT = 128;
const decodeSeen = (mark: number) => mark % 16;
const decodeExpected = (mark: number) => Math.floor(mark / 16) % 8;
const decodeLatency = (mark: number): number | null => {
  const stored = Math.floor(mark / LATENCY_UNIT);
  return stored === 0 ? null : stored - 1;
};
const encodeMark = (seen: number, expected: number, latencyMs: number | null) =>
  seen + expected * 16 + (latencyMs === null ? 0 : (Math.max(0, Math.round(latencyMs)) + 1) * LATENCY_UNIT);

export interface StatusTally {
  /** Callbacks with this status. */
  received: number;
  /** Of those, repeats of a status the order already had. */
  duplicates: number;
  /** Of those, arrived before the status that must precede it (an appeal before its failure). */
  outOfOrder: number;
}

export interface ExpectedTally {
  /** Orders aiming at this final status whose final callback came. */
  delivered: number;
  /** Order made → that callback, ms, exact (nearest rank). */
  latencyMs: { p50: number | null; p95: number | null; p99: number | null; max: number | null };
  /**
   * The request that triggered the callback (the confirmation, answered) → that callback, ms, for
   * the orders whose trigger note came: what the profile's callbackMs bounds.
   */
  triggerLatencyMs: { p50: number | null; p95: number | null; p99: number | null; max: number | null };
  /** Delivered more than the wait window after the trigger (after the order, when no trigger note came). */
  late: number;
  /** Delivered orders whose trigger note never came: judged from the order's creation, stricter. */
  withoutTrigger: number;
  /** Other final statuses these orders got instead, by status. */
  otherFinal: Record<string, number>;
}

export interface RunTally {
  runId: string;
  /** Callbacks of this run. */
  callbacks: number;
  byStatus: Record<string, StatusTally>;
  byExpected: Record<string, ExpectedTally>;
  /** Callbacks whose body named no order or no status, or whose URL named no expected status. */
  unmatched: number;
  signatures: Record<string, number>;
  /** Order made → expected final callback, over all delivered orders, ms. */
  latencyMs: ExpectedTally["latencyMs"];
  /** Trigger (the confirmation's answer) → expected final callback, over delivered orders with a trigger note, ms. */
  triggerLatencyMs: ExpectedTally["latencyMs"];
  /** Orders the sender noted as triggered (confirmed), by the final status each aims at: denominators for a sink-only delivery count. */
  triggered: Record<string, number>;
  /** Delivered orders with no trigger note: judged from the order's creation. */
  withoutTrigger: number;
  /** Latency of every delivered expected final callback, as a log-scale histogram for a plot. */
  latencyHistogram: { upperMs: number[]; counts: number[]; log: boolean };
  /** Expected final callbacks over time (first arrival), and every callback of the run over time. */
  deliveredTimeline: TimelineSeries;
  intakeTimeline: TimelineSeries;
  /** The wait window late arrivals were judged against, ms. */
  windowMs: number;
}

export interface SinkIntake {
  /** Every callback the sink took, all runs. */
  callbacks: number;
  peakPerSecond: number;
  /** Time from a request's start to the sink's answer, ms. */
  answerMs: { p50: number | null; p99: number | null; max: number | null };
  timeline: TimelineSeries;
}

interface RunState {
  orders: Map<string, number>;
  /** Per order with a trigger note: (trigger − order made, ms) × 8 + the expected status's code. */
  triggers: Map<string, number>;
  triggered: Map<string, number>;
  callbacks: number;
  /** Orders whose expected final callback arrived. */
  delivered: number;
  byStatus: Map<string, StatusTally>;
  unmatched: number;
  signatures: Map<string, number>;
  deliveredTimeline: Timeline;
  intake: Timeline;
}

export interface TallyOptions {
  /** Where the timelines start (ms since the epoch); default: now. */
  originMs?: number;
  maxTimelineBuckets?: number;
  /** Odd callbacks kept in full as evidence, at most. */
  sampleLimit?: number;
}

/** p50, p95, p99 and max of the values (sorted in place), nearest rank. */
function percentiles(values: number[]): ExpectedTally["latencyMs"] {
  values.sort((a, b) => a - b);
  return {
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: values.at(-1) ?? null,
  };
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

export class CallbackTally {
  private readonly runs = new Map<string, RunState>();
  private readonly originMs: number;
  private readonly maxBuckets: number;
  private readonly sampleLimit: number;
  private readonly intake: Timeline;
  private readonly peak = new PeakPerSecond();
  private readonly answers = new DurationHistogram();
  private total = 0;
  private readonly listeners = new Set<() => void>();
  /** Odd callbacks (bad signature, unmatched, duplicate, out of order, another final status), in full. */
  readonly samples: { reason: string; callback: StoredCallback }[] = [];

  constructor(options: TallyOptions = {}) {
    this.originMs = options.originMs ?? Date.now();
    this.maxBuckets = options.maxTimelineBuckets ?? 120;
    this.sampleLimit = options.sampleLimit ?? 20;
    this.intake = new Timeline(this.originMs, 1_000, this.maxBuckets);
  }

  private run(runId: string): RunState {
    let state = this.runs.get(runId);
    if (state === undefined) {
      state = {
        orders: new Map(),
        triggers: new Map(),
        triggered: new Map(),
        callbacks: 0,
        delivered: 0,
        byStatus: new Map(),
        unmatched: 0,
        signatures: new Map(),
        deliveredTimeline: new Timeline(this.originMs, 1_000, this.maxBuckets),
        intake: new Timeline(this.originMs, 1_000, this.maxBuckets),
      };
      this.runs.set(runId, state);
    }
    return state;
  }

  private sample(reason: string, callback: StoredCallback): void {
    if (this.samples.length < this.sampleLimit) this.samples.push({ reason, callback });
  }

  /** Takes one callback (as the sink parsed it) and how long the sink took to answer it. */
  add(callback: StoredCallback, answerMs: number): void {
    this.total += 1;
    this.intake.add(callback.receivedAtMs);
    this.peak.add(callback.receivedAtMs);
    this.answers.add(answerMs);
    const run = this.run(callback.runId ?? "");
    run.callbacks += 1;
    run.intake.add(callback.receivedAtMs);
    run.signatures.set(callback.signature, (run.signatures.get(callback.signature) ?? 0) + 1);
    if (
      callback.signature === "invalid" ||
      callback.signature === "missing" ||
      callback.signature === "malformed"
    )
      this.sample(`signature ${callback.signature}`, callback);

    const status = callback.status as TalliedStatus | null;
    if (callback.orderId === null || status === null || !(status in STATUS_BIT)) {
      run.unmatched += 1;
      this.sample("no order id or no known status in the body", callback);
      return;
    }
    const stats = run.byStatus.get(status) ?? { received: 0, duplicates: 0, outOfOrder: 0 };
    run.byStatus.set(status, stats);
    stats.received += 1;

    const mark = run.orders.get(callback.orderId) ?? 0;
    const seen = decodeSeen(mark);
    const expectedCode =
      decodeExpected(mark) ||
      (callback.expectedStatus === null ? 0 : (EXPECTED_CODE[callback.expectedStatus] ?? 0));
    const expected: TalliedStatus | null =
      expectedCode === 0 ? null : (TALLIED_STATUSES[expectedCode - 1] ?? null);
    let latency = decodeLatency(mark);

    if (seen & STATUS_BIT[status]) {
      stats.duplicates += 1;
      this.sample(`duplicate ${status}`, callback);
    } else {
      const predecessor = PREDECESSOR[status];
      if (predecessor !== undefined && !(seen & STATUS_BIT[predecessor])) {
        stats.outOfOrder += 1;
        this.sample(`${status} before ${predecessor}`, callback);
      }
      if (status === expected) {
        latency = callback.sentAtMs === null ? 0 : callback.receivedAtMs - callback.sentAtMs;
        run.delivered += 1;
        run.deliveredTimeline.add(callback.receivedAtMs);
      } else if (expected !== null && PREDECESSOR[expected] !== status) {
        this.sample(`${status} for an order expecting ${expected}`, callback);
      }
    }
    if (expected === null) run.unmatched += 1;
    run.orders.set(callback.orderId, encodeMark(seen | STATUS_BIT[status], expectedCode, latency));
    for (const listener of this.listeners) listener();
  }

  /**
   * Takes a trigger note: the sender says when the request that triggers an order's callback was
   * answered (its own clock, like the order's `at`). Callback latency counts from then, as the
   * profile's callbackMs does; a repeated note for the order is ignored.
   */
  note(
    runId: string,
    orderId: string,
    sentAtMs: number,
    triggeredAtMs: number,
    expected: string | null,
  ): void {
    const run = this.run(runId);
    if (run.triggers.has(orderId)) return;
    const code = expected === null ? 0 : (EXPECTED_CODE[expected] ?? 0);
    run.triggers.set(orderId, Math.max(0, Math.round(triggeredAtMs - sentAtMs)) * 8 + code);
    if (code !== 0) run.triggered.set(expected as string, (run.triggered.get(expected as string) ?? 0) + 1);
  }

  /** Orders of a run whose expected final callback has arrived. */
  delivered(runId: string): number {
    return this.run(runId).delivered;
  }

  /** Resolves once `count` orders of the run got their expected final callback, or at the deadline. */
  async waitForDeliveries(runId: string, count: number, deadlineMs: number): Promise<number> {
    let delivered = this.delivered(runId);
    while (delivered < count && Date.now() < deadlineMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, deadlineMs - Date.now()));
        function done() {
          clearTimeout(timer);
          listeners.delete(done);
          resolve();
        }
        const listeners = this.listeners;
        listeners.add(done);
      });
      delivered = this.delivered(runId);
    }
    return delivered;
  }

  summary(runId: string, windowMs: number): RunTally {
    const run = this.run(runId);
    const byExpected: Record<string, ExpectedTally> = {};
    const latenciesByExpected = new Map<string, number[]>();
    const triggerLatenciesByExpected = new Map<string, number[]>();
    const all: number[] = [];
    const allFromTrigger: number[] = [];
    let withoutTrigger = 0;
    for (const [orderId, mark] of run.orders) {
      const code = decodeExpected(mark);
      if (code === 0) continue;
      const expected = TALLIED_STATUSES[code - 1] as TalliedStatus;
      const entry = byExpected[expected] ?? {
        delivered: 0,
        latencyMs: { p50: null, p95: null, p99: null, max: null },
        triggerLatencyMs: { p50: null, p95: null, p99: null, max: null },
        late: 0,
        withoutTrigger: 0,
        otherFinal: {},
      };
      byExpected[expected] = entry;
      const latency = decodeLatency(mark);
      if (latency !== null) {
        entry.delivered += 1;
        const trigger = run.triggers.get(orderId);
        // From the trigger, as the profile's callbackMs counts; from the order when no note came.
        const fromTrigger = trigger === undefined ? null : latency - Math.floor(trigger / 8);
        if ((fromTrigger ?? latency) > windowMs) entry.late += 1;
        if (fromTrigger === null) {
          entry.withoutTrigger += 1;
          withoutTrigger += 1;
        } else {
          const list = triggerLatenciesByExpected.get(expected) ?? [];
          list.push(fromTrigger);
          triggerLatenciesByExpected.set(expected, list);
          allFromTrigger.push(fromTrigger);
        }
        const list = latenciesByExpected.get(expected) ?? [];
        list.push(latency);
        latenciesByExpected.set(expected, list);
        all.push(latency);
      }
      const seen = decodeSeen(mark);
      for (const status of TALLIED_STATUSES) {
        if (status === expected || PREDECESSOR[expected] === status || !(seen & STATUS_BIT[status])) continue;
        entry.otherFinal[status] = (entry.otherFinal[status] ?? 0) + 1;
      }
    }
    for (const [expected, list] of latenciesByExpected)
      (byExpected[expected] as ExpectedTally).latencyMs = percentiles(list);
    for (const [expected, list] of triggerLatenciesByExpected)
      (byExpected[expected] as ExpectedTally).triggerLatencyMs = percentiles(list);
    return {
      runId,
      callbacks: run.callbacks,
      latencyMs: percentiles(all),
      triggerLatencyMs: percentiles(allFromTrigger),
      triggered: Object.fromEntries(run.triggered),
      withoutTrigger,
      byStatus: Object.fromEntries(run.byStatus),
      byExpected,
      unmatched: run.unmatched,
      signatures: Object.fromEntries(run.signatures),
      latencyHistogram: latencyHistogram(all),
      deliveredTimeline: run.deliveredTimeline.series(),
      intakeTimeline: run.intake.series(),
      windowMs,
    };
  }

  intakeSummary(): SinkIntake {
    return {
      callbacks: this.total,
      peakPerSecond: this.peak.peak,
      answerMs: {
        p50: this.answers.percentile(50),
        p99: this.answers.percentile(99),
        max: this.answers.count === 0 ? null : this.answers.maxMs,
      },
      timeline: this.intake.series(),
    };
  }
}

/** Buckets a distribution plot shows, at most. */
const HISTOGRAM_BUCKETS = 40;

/**
 * Latencies in at most 40 buckets for the distribution plot: linear when they span less than a
 * factor of 4 (a narrow peak stays visible), log-scale otherwise (a long tail stays readable).
 */
export function latencyHistogram(latencies: readonly number[]): RunTally["latencyHistogram"] {
  if (latencies.length === 0) return { upperMs: [], counts: [], log: false };
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const latency of latencies) {
    if (latency < min) min = latency;
    if (latency > max) max = latency;
  }
  const low = Math.max(0, Math.floor(min));
  const high = Math.max(low + 1, Math.ceil(max));
  const log = low > 0 && high / low >= 4;
  const upperMs: number[] = [];
  for (let i = 1; i <= HISTOGRAM_BUCKETS; i++) {
    const upper = log
      ? low * (high / low) ** (i / HISTOGRAM_BUCKETS)
      : low + ((high - low) * i) / HISTOGRAM_BUCKETS;
    upperMs.push(Math.round(upper * 100) / 100);
  }
  const counts = upperMs.map(() => 0);
  for (const latency of latencies) {
    let index = upperMs.findIndex((upper) => latency <= upper);
    if (index < 0) index = counts.length - 1;
    counts[index] = (counts[index] ?? 0) + 1;
  }
  return { upperMs, counts, log };
}
