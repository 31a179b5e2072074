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
  it("passes a retry late by no more than the measured stall, within its declared delay, and says so", () => {
    // Retry 3 is declared after 0.30 s: 0.25 s over the tolerance, the machine stalled 0.28 s.
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([100, 200, 300 + 500, 400]),
      policy,
      observerStallMs: 10,
      machineStallMs: [0, 0, 280, 0],
    });
    expect(outcome.ok, outcome.detail).toBe(true);
    expect(outcome.detail).toContain(
      "the machine's measured CPU stall gave up to 0.28 s more room to be late",
    );
  });

  it("gives a stall longer than the declared delay only the declared delay: 1.3 s late after 0.3 s fails", () => {
    // PSI "some" reads ~100 % on any busy machine: 1.5 s over a 1.6 s gap says nothing of the target.
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([100, 200, 300 + 1_300, 400]),
      policy,
      observerStallMs: 10,
      machineStallMs: [0, 0, 1_500, 0],
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain(
      "retry 3 after 1.60 s, the policy says 0.30 s ± 0.25 s (+ 0.01 s, the sink's own stalls meanwhile)" +
        " (the stalls' room to be late, 1.51 s measured meanwhile, is capped at the declared 0.30 s)",
    );
  });

  it("fails retries 12x and 10x later than a 5 s / 15 s policy with the machine 97 % stalled", () => {
    const gaps = [60_000, 150_000];
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter(gaps),
      policy: { attempts: 3, delaysMs: [5_000, 15_000], toleranceMs: 2_000 },
      machineStallMs: gaps.map((gap) => 0.97 * gap),
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain("retry 1 after 60.00 s, the policy says 5.00 s ± 2.00 s");
    expect(outcome.detail).toContain("retry 2 after 150.00 s, the policy says 15.00 s ± 2.00 s");
  });

  it("fails a retry 3x later than declared on a local target with the machine 97 % stalled", () => {
    const gaps = [15_000, 45_000];
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter(gaps),
      policy: { attempts: 3, delaysMs: [5_000, 15_000], toleranceMs: 2_000 },
      observerStallMs: 20,
      machineStallMs: gaps.map((gap) => 0.97 * gap),
      targetOnThisHost: true,
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain(
      "retry 1 after 15.00 s, the policy says 5.00 s ± 2.00 s (+ 0.02 s, the sink's own stalls meanwhile)" +
        " (the stalls' room to be late, 14.57 s measured meanwhile, is capped at the declared 5.00 s)",
    );
    expect(outcome.detail).toContain("retry 2 after 45.00 s, the policy says 15.00 s");
  });

  it("passes the same policy's retries late by as much as the stall, up to the declared delay", () => {
    // 4 s and 12 s over the tolerance, the machine stalled 4.5 s and 13 s: a loaded local target.
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([5_000 + 6_000, 15_000 + 14_000]),
      policy: { attempts: 3, delaysMs: [5_000, 15_000], toleranceMs: 2_000 },
      machineStallMs: [4_500, 13_000],
    });
    expect(outcome.ok, outcome.detail).toBe(true);
    expect(outcome.detail).toContain("gave up to 13.00 s more room to be late");
  });

  it("gives a target on another host no room for this machine's stall, and says so", () => {
    const run = (targetOnThisHost: boolean) =>
      callbacksRetryPolicy.run({
        attemptsAtMs: attemptsAfter([5_000 + 6_000, 15_000]),
        policy: { attempts: 3, delaysMs: [5_000, 15_000], toleranceMs: 2_000 },
        machineStallMs: [4_500, 10_000],
        targetOnThisHost,
      });
    expect(run(true).ok, run(true).detail).toBe(true);
    const remote = run(false);
    expect(remote.ok).toBe(false);
    expect(remote.detail).toContain("retry 1 after 11.00 s, the policy says 5.00 s ± 2.00 s");
    expect(remote.detail).not.toContain("CPU stall");
    const onTime = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([5_000, 15_000]),
      policy: { attempts: 3, delaysMs: [5_000, 15_000], toleranceMs: 2_000 },
      machineStallMs: [4_500, 10_000],
      targetOnThisHost: false,
    });
    expect(onTime.ok, onTime.detail).toBe(true);
    expect(onTime.detail).toContain(
      "the target is on another host: this machine's CPU stall gave it no room",
    );
  });

  it("gives the sink's own stalls their whole room, even when they are longer than the declared delay", () => {
    // Seen on a loaded machine: the sink was held up 1 s over retries declared after 0.1-0.4 s.
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([540, 200, 320, 440]),
      policy,
      observerStallMs: 1_000,
      machineStallMs: [460, 0, 0, 0],
    });
    expect(outcome.ok, outcome.detail).toBe(true);
    // Past tolerance plus the sink's stalls, it fails still: the capped machine room adds nothing.
    const late = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([100 + 1_300, 200, 300, 400]),
      policy,
      observerStallMs: 1_000,
      machineStallMs: [1_460, 0, 0, 0],
    });
    expect(late.ok).toBe(false);
    expect(late.detail).toContain(
      "retry 1 after 1.40 s, the policy says 0.10 s ± 0.25 s (+ 1.00 s, the sink's own stalls meanwhile)",
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

  it("fails a retry later than tolerance plus the declared delay, whatever stall was measured", () => {
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([100, 200, 300 + 1_300, 400]),
      policy,
      machineStallMs: [0, 0, 1_000, 0],
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain(
      "retry 3 after 1.60 s, the policy says 0.30 s ± 0.25 s (the stalls' room to be late, 1.00 s measured meanwhile, is capped at the declared 0.30 s)",
    );
  });

  it("fails a retry later than tolerance plus a stall shorter than its delay, naming the room", () => {
    const outcome = callbacksRetryPolicy.run({
      attemptsAtMs: attemptsAfter([100, 200, 300 + 600, 400]),
      policy,
      machineStallMs: [0, 0, 200, 0],
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain(
      "retry 3 after 0.90 s, the policy says 0.30 s ± 0.25 s (+ 0.20 s late, the machine's measured CPU stall meanwhile)",
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

  it("fails a callback 3x the declared callbackMs late with the machine 97 % stalled: the room stops at callbackMs", () => {
    const outcome = callbacksArrives.run({ ...scenario(15_000, 0.97 * 15_000), callbackMs: 5_000 });
    expect(outcome.ok).toBe(false);
    expect(outcome.detail).toContain(
      "no callback within 5.00 s (+ 5.00 s: the suite's measured stall meanwhile was 14.55 s, but gives no more than the declared callbackMs)",
    );
  });

  it("counts the timeout from the trigger's answer: a target that acted at its end is not late", () => {
    // The confirmation took 1.5 s to be answered (latency): the order may have entered its status
    // only then, and its callback 6.3 s after the request was sent is 4.8 s after that.
    const outcome = callbacksArrives.run({ ...scenario(6_300, 0), triggeredByMs: 2_500 });
    expect(outcome.ok, outcome.detail).toBe(true);
    expect(outcome.detail).toContain(
      "the first 6.30 s after the trigger (the trigger's answer came 1.50 s after it was sent: the timeout counts from then)",
    );
    const late = callbacksArrives.run({ ...scenario(6_600, 0), triggeredByMs: 2_500 });
    expect(late.ok).toBe(false);
    expect(late.detail).toContain(
      "no callback within 5.00 s of entering succeeded (counted from the trigger's answer, 1.50 s after it was sent) (1 arrived later)",
    );
  });

  it("passes one late by less than the stall and callbackMs, saying the cap held", () => {
    const outcome = callbacksArrives.run({ ...scenario(9_000, 8_700), callbackMs: 5_000 });
    expect(outcome.ok, outcome.detail).toBe(true);
    expect(outcome.detail).toContain(
      "4.00 s past the timeout, within the 5.00 s the measured stall gave (of 8.70 s measured: never more than the declared callbackMs)",
    );
  });
});
