/** State of a module imported by a test file: how often this thread evaluated it. */
import { parentPort } from "node:worker_threads";

export const evaluations = { count: 0 };
evaluations.count += 1;

// A thread slow to answer Vitest's "stop" (as on a busy machine): Vitest does not wait for the
// answer before it starts the next run, so the pool must wait for the thread to come back.
const slowStopMs = Number(process.env.H2H_KEPT_THREAD_SLOW_STOP_MS ?? 0);
if (slowStopMs > 0)
  parentPort?.on("message", (message: { type?: string }) => {
    if (message?.type !== "stop") return;
    const until = Date.now() + slowStopMs;
    while (Date.now() < until); // busy, as a descheduled thread would be
  });
