/**
 * The worker thread of kept-thread-pool.ts: Vitest's own thread worker (vitest/worker), except that
 * the end of a run does not stop it listening. The next run's "start" finds it with its modules
 * (zod, undici, the contract) already loaded.
 */
import { parentPort } from "node:worker_threads";
import { init, runBaseTests, setupEnvironment } from "vitest/worker";

if (!parentPort)
  throw new Error("certify/engine/kept-thread-entry.mjs runs in a worker thread of kept-thread-pool.ts");
const port = parentPort;
/** The message listeners: the first is init's own; each run's "start" adds its RPC's. */
const listeners = [];

init({
  post: (response) => port.postMessage(response),
  on: (callback) => {
    listeners.push(callback);
    port.on("message", callback);
  },
  off: (callback) => {
    const at = listeners.indexOf(callback);
    if (at >= 0) listeners.splice(at, 1);
    port.off("message", callback);
  },
  // Vitest's thread worker stops listening here; this one keeps init's listener for the next
  // run's "start" and drops the ended run's RPC (else one more listener per run).
  teardown: () => {
    for (const callback of listeners.splice(1)) port.off("message", callback);
  },
  runTests: (state, traces) => runBaseTests("run", state, traces),
  collectTests: (state, traces) => runBaseTests("collect", state, traces),
  setup: setupEnvironment,
});
