/**
 * How long this machine held a thread's requests to the target up: its own event loop's holds, and, for a
 * target on this host (which the same CPUs run), the time runnable work waited for a CPU. A request
 * the target did not answer in time gets that much longer, once (H2hClient's `heldUpMs`): a loaded
 * machine is not a slow target. One measure per thread, started by the first client that asks.
 */
import { MachineStallSampler, StallMonitor } from "../../contract/kit/index.ts";

/** How late a tick of the own loop's monitor may be before it counts: below it, no hold is seen. */
const LOOP_THRESHOLD_MS = 10;
let ownLoop: StallMonitor | undefined;
let machine: MachineStallSampler | undefined;

export function heldUpMeasure(targetOnThisHost: boolean): (sinceMs: number, untilMs: number) => number {
  ownLoop ??= new StallMonitor({ thresholdMs: LOOP_THRESHOLD_MS });
  if (targetOnThisHost) machine ??= new MachineStallSampler();
  const loop = ownLoop;
  const cpus = targetOnThisHost ? machine : undefined;
  // The larger, not the sum: a process held up by a busy machine is the same time counted twice.
  // The monitor adds its own resolution to any window (a hold shorter than it goes unseen): a loop
  // that held nothing up gives no room.
  return (sinceMs, untilMs) =>
    Math.max(
      Math.max(0, loop.heldUpMs(sinceMs, untilMs) - LOOP_THRESHOLD_MS),
      cpus?.stallMs(sinceMs, untilMs) ?? 0,
    );
}
