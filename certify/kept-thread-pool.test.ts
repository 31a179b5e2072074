import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { Reporter } from "vitest/node";
import { createVitest } from "vitest/node";
import { keptThreadPool } from "./kept-thread-pool.ts";
import { PROJECT_ROOT } from "./settings.ts";

const CHECK_FILE = resolve(PROJECT_ROOT, "certify/testing/kept-thread/thread.check.ts");

/** Three runs of the check file in one Vitest on a kept-thread pool: what it printed, threads started. */
async function runThreeTimes(env: Record<string, string>) {
  const lines: { threadId: number; evaluations: number }[] = [];
  const collector: Reporter = {
    onUserConsoleLog: (log) => {
      lines.push(JSON.parse(log.content));
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
    for (let run = 0; run < 3; run++) await vitest.runTestFiles([CHECK_FILE]);
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
});
