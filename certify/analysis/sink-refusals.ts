/**
 * What the webhook sink refused during a run, said in the report. A refusal the run caused (the
 * sink could not store a callback, or a callback for this sink came under another path than the
 * public URL it advertised) is a fault of the run: the checks that waited for those callbacks say
 * "no callback", which must not be taken for the provider's. The rest (a body too large, a bad
 * path after the token, a body the sink could not read) is named for the reader.
 */
import { RUN_FAULT_REFUSALS, type SinkStats } from "../../webhook-sink/index.ts";

const WHY: Record<string, string> = {
  "not-stored": "the sink could not write them to its disk (the console named its path and the error)",
  "callback-prefix":
    "they came under another path than H2H_SINK_PUBLIC_URL's; make the tunnel forward the path as given, or strip it",
  "internal-error": "the sink failed on them",
};

const listed = (counts: [string, number][]) => counts.map(([reason, n]) => `${n} ${reason}`).join(", ");

/** One error line when the run's sink refused callbacks for its own reasons, one warning for the others. */
export function sinkRefusalsOf(rejected: SinkStats["rejected"]): { error?: string; warning?: string } {
  const runFaults: [string, number][] = [];
  const others: [string, number][] = [];
  for (const [reason, count] of Object.entries(rejected)) {
    if (count <= 0) continue;
    ((RUN_FAULT_REFUSALS as readonly string[]).includes(reason) ? runFaults : others).push([reason, count]);
  }
  const total = (counts: [string, number][]) => counts.reduce((sum, [, n]) => sum + n, 0);
  return {
    ...(runFaults.length > 0
      ? {
          error: `the webhook sink refused ${total(runFaults)} callback(s) for reasons of this run, not of the provider (${listed(runFaults)}): checks that waited for a callback cannot be judged. ${runFaults
            .map(([reason]) => `${reason}: ${WHY[reason] ?? ""}`)
            .join("; ")}`,
        }
      : {}),
    ...(others.length > 0
      ? {
          warning: `the webhook sink refused ${total(others)} request(s) it could not take as callbacks (${listed(others)})`,
        }
      : {}),
  };
}
