/**
 * The worker thread of kept-thread-pool.ts: Vitest's own thread worker (vitest/worker), except that
 * the end of a run does not stop it listening. The next run's "start" finds it with its modules
 * (zod, undici, the contract) already loaded.
 */
import { parentPort } from "node:worker_threads";
import { init, runBaseTests, setupEnvironment } from "vitest/worker";

if (!parentPort)
  throw new Error("certify/kept-thread-entry.mjs runs in a worker thread of kept-thread-pool.ts");
const port = parentPort;

init({
  post: (response) => port.postMessage(response),
  on: (callback) => port.on("message", callback),
  off: (callback) => port.off("message", callback),
  // Vitest's thread worker stops listening here; this one waits for the next run.
  teardown: () => {},
  runTests: (state, traces) => runBaseTests("run", state, traces),
  collectTests: (state, traces) => runBaseTests("collect", state, traces),
  setup: setupEnvironment,
});
