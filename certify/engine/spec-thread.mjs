/**
 * The thread a certification's Vitest runs in (spec-runner.ts, runSpecsOnce). Vitest's logger
 * exits its process on SIGINT and SIGTERM; signals reach only a process's main thread, so here it
 * keeps its handlers and certify keeps its own: a stop comes as a message, and the run is cancelled
 * with Vitest's own cancelCurrentRun, its partial results sent back by the reporter.
 * Plain JavaScript: the run's TypeScript is loaded by Vitest (the reporter, by path).
 */
import { parentPort, workerData } from "node:worker_threads";
import { createVitest } from "vitest/node";

if (!parentPort) throw new Error("certify/engine/spec-thread.mjs runs in a worker thread of spec-runner.ts");
const port = parentPort;
/** @type {{ reason: string, at: number } | undefined} */
let stop;
/** @type {import("vitest/node").Vitest | undefined} */
let vitest;
port.on("message", (message) => {
  if (message?.type !== "stop" || stop) return;
  stop = message;
  void vitest?.cancelCurrentRun(message.reason);
});

const reporter = [
  workerData.reporterPath,
  {
    ...workerData.reporting,
    post: (/** @type {unknown} */ message) => port.postMessage(message),
    stoppedAtMs: () => stop?.at,
  },
];
try {
  vitest = await createVitest("test", { ...workerData.options, reporters: [reporter] });
  // Stopped while Vitest was being created: nothing runs.
  if (!stop) {
    await vitest.start().catch((/** @type {{ code?: string }} */ error) => {
      // No spec file matched: the run then says that no contract spec ran.
      if (error?.code !== "VITEST_FILES_NOT_FOUND") throw error;
    });
  }
} catch (error) {
  port.postMessage({ type: "error", message: String(error?.stack ?? error) });
} finally {
  port.postMessage({ type: "finished" });
  await vitest?.close();
  port.close();
}
