import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { Reporter } from "vitest/node";
import { createVitest } from "vitest/node";
import { PROJECT_ROOT } from "../../run-setup/index.ts";
import { keptThreadPool } from "./kept-thread-pool.ts";

const CHECK_FILE = resolve(PROJECT_ROOT, "certify/testing/kept-thread/thread.check.ts");
const LEFTOVER_FILE = resolve(PROJECT_ROOT, "certify/testing/kept-thread/leftover.check.ts");

/** Three runs of a check file in one Vitest on a kept-thread pool: what it printed, threads started. */
async function runThreeTimes(env: Record<string, string>, file = CHECK_FILE, pauseMs = 0) {
  const lines: { threadId: number; evaluations: number; what?: string; run: number }[] = [];
  let run = 0;
  const collector: Reporter = {
    onUserConsoleLog: (log) => {
      lines.push({ ...JSON.parse(log.content), run });
    },
  };
  const pool = keptThreadPool();
  const vitest = await createVitest("test", {
    config: false,
    root: PROJECT_ROOT,
    watch: false,
    include: ["certify/testing/kept-thread/*.check.ts"],
    pool,
    isolate: false,
    maxWorkers: 1,
    env,
    reporters: [collector],
  });
  try {
    await vitest.standalone();
    for (run = 0; run < 3; run++) {
      await vitest.runTestFiles([file]);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    expect(vitest.state.getCountOfFailedTests()).toBe(0);
  } finally {
    await vitest.close();
    await pool.close();
  }
  return { lines, threadsStarted: pool.threadsStarted };
}

describe("the kept-thread pool", () => {
  it("runs run after run in one thread, whose modules stay loaded, and ends it on close", async () => {
    const { lines, threadsStarted } = await runThreeTimes({});
    expect(lines).toHaveLength(3);
    // One thread for the three runs, and the imported module evaluated once in it; the test file
    // itself runs anew each time (it printed three times).
    expect(new Set(lines.map((line) => line.threadId)).size).toBe(1);
    expect(lines.map((line) => line.evaluations)).toEqual([1, 1, 1]);
    expect(threadsStarted).toBe(1);
  });

  it("waits for a thread slow to answer stop instead of starting another (as on a busy machine)", async () => {
    const { lines, threadsStarted } = await runThreeTimes({ H2H_KEPT_THREAD_SLOW_STOP_MS: "300" });
    expect(lines.map((line) => line.evaluations)).toEqual([1, 1, 1]);
    expect(threadsStarted).toBe(1);
  });

  it("ends a thread its run left work in (a timer that logs later), so no run reports another's", async () => {
    const { lines, threadsStarted } = await runThreeTimes({}, LEFTOVER_FILE, 400);
    // Each run printed its own test's line, and nothing a run before it left behind.
    expect(lines.map((line) => [line.run, line.what])).toEqual([
      [0, "in the test"],
      [1, "in the test"],
      [2, "in the test"],
    ]);
    expect(threadsStarted).toBe(3);
  });
});
