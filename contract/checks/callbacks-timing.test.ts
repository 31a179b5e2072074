import { describe, expect, it } from "vitest";
import { type CallbackScenario, callbacksArrives, callbacksRetryPolicy } from "./callbacks.ts";

// The reference provider's declared policy: retries after 0.1, 0.2, 0.3 and 0.4 s, ± 0.25 s.
const policy = { attempts: 5, delaysMs: [100, 200, 300, 400], toleranceMs: 250 };
const attemptsAfter = (gaps: number[]) => {
  const at = [0];
  for (const gap of gaps) at.push((at.at(-1) as number) + gap);
  return at;
};

describe("callbacks.retry-policy on a loaded machine: the measured stall, and only it, excuses lateness", () => {
  it("passes a retry 1.3 s late while the machine was measured stalled 1.5 s over that interval", () => {
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([100, 200, 300 + 1_300, 400]),
      policy,
      observerStallMs: 10,
      machineStallMs: [0, 0, 1_500, 0],
    });
    expect(outcome.ok, outcome.detail).toBe(true);
    expect(outcome.detail).toContain(
      "the machine's measured CPU stall gave up to 1.50 s more room to be late",
    );
  });

  it("fails the same retry when the stall was measured over another interval", () => {
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([100, 200, 300 + 1_300, 400]),
      policy,
      observerStallMs: 10,
      machineStallMs: [1_500, 0, 0, 0],
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain("retry 3 after 1.60 s, the policy says 0.30 s ± 0.25 s");
  });

  it("fails a retry later than tolerance plus the measured stall, and says how much room the stall gave", () => {
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([100, 200, 300 + 1_300, 400]),
      policy,
      machineStallMs: [0, 0, 1_000, 0],
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain(
      "retry 3 after 1.60 s, the policy says 0.30 s ± 0.25 s (+ 1.00 s late, the machine's measured CPU stall meanwhile)",
    );
  });

  it("fails a target retrying with no backoff, however loaded the machine was", () => {
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: [0, 2, 4, 6, 8],
      policy: { attempts: 5, delaysMs: [500, 1_000, 2_000, 4_000], toleranceMs: 300 },
      observerStallMs: 10,
      machineStallMs: [1_500, 1_500, 1_500, 1_500],
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain("retry 1 after 0.00 s, the policy says 0.50 s ± 0.30 s");
    expect(outcome.detail).toContain("retry 4 after 0.00 s, the policy says 4.00 s");
  });

  it("fails a target retrying 3x slower than declared on a quiet machine", () => {
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([300, 600, 900, 1_200]),
      policy,
      observerStallMs: 10,
      machineStallMs: [0, 0, 0, 0],
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain("retry 2 after 0.60 s, the policy says 0.20 s");
    expect(outcome.detail).toContain("retry 4 after 1.20 s, the policy says 0.40 s");
  });

  it("fails a target retrying 3x slower than declared on a machine stalled less than that", () => {
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([300, 600, 900, 1_200]),
      policy,
      machineStallMs: [20, 40, 60, 80],
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain("retry 4 after 1.20 s");
  });
});

const scenario = (arrivedAfterMs: number, stallMs?: number): CallbackScenario => ({
  orderId: "o-1",
  statusEntered: "succeeded",
  callbacks: [
    {
      json: { id: "o-1", status: "succeeded" },
      receivedAtMs: 1_000 + arrivedAfterMs,
      signature: "valid",
      answeredWith: 200,
    },
  ],
  triggeredAtMs: 1_000,
  timeoutMs: 5_000,
  ...(stallMs !== undefined ? { stallMs } : {}),
  paths: { id: "id", status: "status" },
  order: { amount: 1, currency: "RUB", merchantOrderID: null },
  signed: false,
});

describe("callbacks.arrives on a loaded machine", () => {
  it("passes a callback 1.3 s past the timeout while the machine was measured stalled 1.5 s, and says so", () => {
    const outcome = callbacksArrives.run(scenario(6_300, 1_500));
    expect(outcome.ok, outcome.detail).toBe(true);
    expect(outcome.detail).toContain("1.30 s past the timeout, within the 1.50 s the measured stall gave");
  });

  it("fails it on a quiet machine", () => {
    const outcome = callbacksArrives.run(scenario(6_300, 0));
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain("no callback within 5.00 s of entering succeeded (1 arrived later)");
  });

  it("fails a callback later than the timeout plus the measured stall, naming the room it had", () => {
    const outcome = callbacksArrives.run(scenario(6_300, 1_000));
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain(
      "no callback within 5.00 s (+ 1.00 s, the suite's machine's measured stall meanwhile) of entering succeeded",
    );
  });
});
