/**
 * Run by kept-thread-pool.test.ts (not by npm test, which runs *.test.ts): prints the thread it ran
 * in and how often that thread evaluated the module it imports.
 */
import { threadId } from "node:worker_threads";
import { test } from "vitest";
import { evaluations } from "./module-state.ts";

test("prints its thread", () => {
  console.log(JSON.stringify({ threadId, evaluations: evaluations.count }));
});
