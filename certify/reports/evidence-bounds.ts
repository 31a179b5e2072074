/**
 * What the evidence bounds left out of a run's reports, counted and said: answers cut at the body
 * limit as written in JSON, bodies dropped past the run's bound, and callbacks the webhook sink
 * refused past its bounds (a flood), which were never stored.
 */
import type { RecordedEvidence } from "../../contract/index.ts";
import type { SinkExcess } from "../../webhook-sink/index.ts";
import { type CallbackEvidence, callbackBodiesCut } from "./callback-evidence.ts";

export interface EvidenceBounds {
  exchanges?: {
    /** Bodies cut at the per-body limit, in bytes as written in JSON. */
    bodiesCut: number;
    /** Exchanges kept without their bodies: the run's bodies had reached their bound. */
    bodiesDropped: number;
    bytesDropped: number;
    runLimitBytes: number;
  };
  callbacks?: {
    bodiesCut: number;
    bodiesDropped: number;
    /** Callbacks the sink refused (503) past its bounds: counted, never stored, never judged. */
    refusedBySink?: SinkExcess;
  };
}

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** The bounds' effect on this run, and one warning line for each kind of cut; undefined bounds when none. */
export function evidenceBoundsOf(
  recorded: RecordedEvidence,
  callbacks: readonly CallbackEvidence[],
  sinkExcess: SinkExcess | undefined,
): { bounds?: EvidenceBounds; warnings: string[] } {
  const warnings: string[] = [];
  const bounds: EvidenceBounds = {};
  const cutAtLimit = (cut: { runBound?: true } | undefined) =>
    cut !== undefined && cut.runBound === undefined;
  const bodiesCut = recorded.exchanges.filter(
    (e) => cutAtLimit(e.response.evidenceCut) || cutAtLimit(e.request.evidenceCut),
  ).length;
  if (bodiesCut > 0 || recorded.bodiesDropped > 0) {
    bounds.exchanges = {
      bodiesCut,
      bodiesDropped: recorded.bodiesDropped,
      bytesDropped: recorded.bytesDropped,
      runLimitBytes: recorded.limitBytes,
    };
    if (bodiesCut > 0)
      warnings.push(
        `evidence bounded: ${bodiesCut} exchange(s) kept with bodies cut at the body limit as written in JSON (escapes counted)`,
      );
    if (recorded.bodiesDropped > 0)
      warnings.push(
        `evidence bounded: ${recorded.bodiesDropped} exchange(s) kept without their bodies (${mib(recorded.bytesDropped)}): the run's bodies had reached ${mib(recorded.limitBytes)}`,
      );
  }
  const cut = callbackBodiesCut(callbacks);
  if (cut.cut > 0 || cut.dropped > 0 || sinkExcess) {
    bounds.callbacks = {
      bodiesCut: cut.cut,
      bodiesDropped: cut.dropped,
      ...(sinkExcess ? { refusedBySink: sinkExcess } : {}),
    };
    if (cut.cut > 0 || cut.dropped > 0)
      warnings.push(
        `evidence bounded: ${cut.cut} callback bod(ies) cut at the body limit, ${cut.dropped} dropped past the run's bound`,
      );
  }
  if (sinkExcess) {
    const { limits, byBound } = sinkExcess;
    warnings.push(
      `webhook sink full: ${sinkExcess.callbacks} callback(s) (${mib(sinkExcess.bytes)} of bodies) refused with 503 and not stored, so not judged ` +
        `(${byBound.perOrder} past ${limits.maxDeliveriesPerOrder} deliveries of one order, ${byBound.callbacks} past ${limits.maxCallbacks} callbacks, ${byBound.bytes} past ${mib(limits.maxStoredBytes)} of bodies)`,
    );
  }
  return { ...(bounds.exchanges || bounds.callbacks ? { bounds } : {}), warnings };
}
