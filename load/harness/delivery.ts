/**
 * What no load tool measures by itself: whether every confirmed order's callback still arrives
 * under load, and how late. Each order's callback URL carried the run id, when the order was made
 * and the final status expected of it; the sink recorded when each callback came.
 */
import { STATUS } from "../../contract/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";

export interface DeliveryReport {
  /** Orders the load run confirmed (k6's h2h_orders_confirmed). */
  confirmed: number;
  /** Distinct orders whose expected final-status callback arrived. */
  delivered: number;
  /** delivered / confirmed; 1 when nothing was confirmed. */
  ratio: number;
  /** Order made → final-status callback received, ms. */
  latencyMs: { p50: number | null; p95: number | null; p99: number | null; max: number | null };
  /** Callbacks for orders of this run that said another status than expected (informational). */
  unexpectedStatuses: Record<string, number>;
  /** Deliveries of an already delivered final status (duplicates). */
  duplicates: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

/** The distinct orders whose expected final status has arrived, among a run's callbacks. */
export function deliveredOrders(callbacks: readonly StoredCallback[]): Map<string, StoredCallback> {
  const delivered = new Map<string, StoredCallback>();
  for (const callback of callbacks) {
    if (callback.orderId === null || callback.expectedStatus === null) continue;
    if (callback.status !== callback.expectedStatus) continue;
    if (!delivered.has(callback.orderId)) delivered.set(callback.orderId, callback);
  }
  return delivered;
}

export function analyseDelivery(callbacks: readonly StoredCallback[], confirmed: number): DeliveryReport {
  const delivered = deliveredOrders(callbacks);
  const latencies = [...delivered.values()]
    .filter((c) => c.sentAtMs !== null)
    .map((c) => c.receivedAtMs - (c.sentAtMs as number))
    .sort((a, b) => a - b);
  const unexpectedStatuses: Record<string, number> = {};
  let duplicates = 0;
  const seenFinal = new Set<string>();
  for (const callback of callbacks) {
    if (callback.status === callback.expectedStatus && callback.orderId !== null) {
      if (seenFinal.has(callback.orderId)) duplicates += 1;
      seenFinal.add(callback.orderId);
    } else if (
      callback.status !== null &&
      !(
        callback.expectedStatus === STATUS.succeeded_by_appeal &&
        callback.status === STATUS.failed_by_terminal
      )
    ) {
      // failed_by_terminal before an appeal is expected; anything else is not.
      unexpectedStatuses[callback.status] = (unexpectedStatuses[callback.status] ?? 0) + 1;
    }
  }
  return {
    confirmed,
    delivered: delivered.size,
    ratio: confirmed === 0 ? 1 : Math.round((delivered.size / confirmed) * 10_000) / 10_000,
    latencyMs: {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? null,
    },
    unexpectedStatuses,
    duplicates,
  };
}
