/**
 * Time measured, not assumed. Behind 0–1500 ms of answer latency (every request well inside the
 * profile's requestMs), the correct reference provider was NOT CONFORMANT in 2 runs of 3:
 * `semantics.timer-follows-clock` compared timers read at different moments as if read at once.
 * A quick certify of the lifecycle's spec file (the timer checks, and the lifecycle probes that run
 * beside them) behind a seeded jitter proxy is conformant, every check of it passed; a provider
 * whose timer stands still is still caught behind the same latency.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileTimeout, type RunningForwarder, startJitterProxy } from "../fixtures/testing/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../provider/reference/index.ts";
import { certifyInProcess, type InProcessRun } from "./testing/certify-in-process.ts";

fileTimeout(300_000);

/** The latency of the report that found the false red: each answer held 0 to this many ms. */
const JITTER_MS = 1500;
const TIMER = "semantics.timer-follows-clock";
/** The spec file that holds the timer checks, and the lifecycle probes that run beside them. */
const LIFECYCLE_SPEC = "lifecycle.spec.ts";

const running: { stop(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const server of running.reverse()) await server.stop();
});

/** The reference provider (with `faults`) behind answers held 0–1500 ms, drawn from `seed`. */
async function jittered(faults: string[], seed: number): Promise<RunningForwarder> {
  const provider: RunningReferenceProvider = await startReferenceProvider({ port: 0, faults });
  running.push(provider);
  const proxy = await startJitterProxy(provider.url, JITTER_MS, seed);
  running.push({ stop: () => proxy.close() });
  return proxy;
}

function certify(baseUrl: string, only: string[] = []): Promise<InProcessRun> {
  return certifyInProcess(
    {
      H2H_BASE_URL: baseUrl,
      H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
      H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
      H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
      H2H_SEED: "24",
    },
    { specFiles: [LIFECYCLE_SPEC], only },
  );
}

// Both runs side by side, each on a Vitest of its own: they mostly wait on held answers, and one
// Vitest runs one run at a time (queued, they took 38 s of a loaded npm test instead of 22 s).
let good: { proxy: RunningForwarder; run: Promise<InProcessRun> };
let frozen: { proxy: RunningForwarder; run: Promise<InProcessRun> };
beforeAll(async () => {
  const [goodProxy, frozenProxy] = await Promise.all([jittered([], 1), jittered(["timer-frozen"], 2)]);
  good = { proxy: goodProxy, run: certify(goodProxy.url) };
  frozen = { proxy: frozenProxy, run: certify(frozenProxy.url, [TIMER]) };
  // Neither left unhandled while the other is awaited.
  good.run.catch(() => {});
  frozen.run.catch(() => {});
});

describe("behind 0–1500 ms of answer latency", () => {
  it("the reference provider is conformant, its timers judged against the measured reads", async () => {
    const { proxy } = good;
    const { exitCode, output, report } = await good.run;
    expect(exitCode, output).toBe(0);
    expect(report.verdict).toBe("conformant");
    // The whole file ran and nothing in it failed, required or not.
    expect(report.checks.length).toBeGreaterThan(100);
    expect(
      report.checks.filter((c) => c.status !== "passed").map((c) => `${c.check} ${c.case}: ${c.detail}`),
    ).toEqual([]);
    const timers = report.checks.filter((c) => c.check === TIMER);
    expect(timers.length).toBe(2);
    for (const record of timers) {
      expect(record.status, record.detail).toBe("passed");
      expect(record.detail).toMatch(/expected -?\d+\.\d{3} s to \d+\.\d{3} s ± 1/);
    }
    // The latency was there: answers were held, up to near the maximum.
    expect(proxy.delays().count).toBeGreaterThan(50);
    expect(proxy.delays().maxMs).toBeGreaterThan(JITTER_MS / 2);
  });

  it("a timer that stands still is still caught", async () => {
    const { exitCode, output, report } = await frozen.run;
    expect(exitCode, output).toBe(1);
    expect(report.verdict).toBe("not conformant");
    const timers = report.checks.filter((c) => c.check === TIMER);
    expect(timers.length).toBe(2);
    for (const record of timers) {
      expect(record.status, record.detail).toBe("failed");
      expect(record.detail).toMatch(/lowered timer by 0\.000 s \(30 → 30\), expected \d+\.\d{3} s to/);
    }
  });
});
