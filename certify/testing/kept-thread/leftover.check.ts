/**
 * Run by kept-thread-pool.test.ts: a test that leaves a timer behind, which logs after the test
 * (and its run) ended, as a spec that timed out while waiting would.
 */
import { threadId } from "node:worker_threads";
import { test } from "vitest";

test("leaves a timer behind", () => {
  console.log(JSON.stringify({ threadId, what: "in the test" }));
  setTimeout(() => console.log(JSON.stringify({ threadId, what: "left over" })), 150);
});
