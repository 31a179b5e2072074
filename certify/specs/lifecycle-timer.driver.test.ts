import { describe, expect, it } from "vitest";
import { type Exchange, lifecycleConventionsOf } from "../../contract/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import type { LifecycleContext } from "./lifecycle-context.driver.ts";
import { lateRun, lateWaitMs, measuredAge } from "./lifecycle-timer.driver.ts";
import { Limiter } from "./support/probes.ts";
import type { SpecTarget } from "./support/target.ts";

const LIFETIME_SECONDS = 2;
const LATE_SECONDS = 1.2;
/** Longer than the late part less half the lifetime: an order counted from the request is then too young. */
const CREATION_ANSWER_MS = 600;

function answered(startedAtMs: number, status: number, data: unknown): Exchange {
  const envelope =
    status === 200
      ? { data, result: { codeError: "none", message: null, status: "success", "x-request-id": "r-1" } }
      : {
          data: null,
          result: {
            codeError: "invalid_order_state",
            message: "expired",
            status: "error",
            "x-request-id": "r-1",
          },
        };
  const body = JSON.stringify(envelope);
  return {
    startedAt: new Date(startedAtMs).toISOString(),
    durationMs: Date.now() - startedAtMs,
    request: { method: "POST", url: "http://127.0.0.1/x", headers: {}, body: "{}" },
    response: { status, headers: { "content-type": "application/json" }, body, json: envelope },
  };
}

/**
 * A target whose orders expire at half their lifetime, made when their creation is answered
 * (a busy target answers late), with no callbacks.
 */
function slowCreationTarget() {
  const createdAt = new Map<string, number>();
  const ages: number[] = [];
  const client = {
    async createOrder() {
      const sent = Date.now();
      await new Promise((resolve) => setTimeout(resolve, CREATION_ANSWER_MS));
      const id = `o-${createdAt.size + 1}`;
      createdAt.set(id, Date.now());
      return answered(sent, 200, { id, status: "pending" });
    },
    async confirmOrder(_kind: string, id: string) {
      const sent = Date.now();
      const age = sent - (createdAt.get(id) ?? sent);
      ages.push(age);
      return answered(sent, age < (LIFETIME_SECONDS * 1000) / 2 ? 200 : 409, { id, status: "succeeded" });
    },
  };
  const target = {
    profile: REFERENCE_PROFILE,
    runId: "run-1",
    client: () => client,
    sink: () => ({
      callbackUrl: (tag: string) => `http://127.0.0.1:9/cb?runId=${tag}`,
      client: { waitFor: async () => [], list: async () => [] },
    }),
  } as unknown as SpecTarget;
  const lc: LifecycleContext = {
    target,
    profile: REFERENCE_PROFILE,
    conventions: { ...lifecycleConventionsOf(REFERENCE_PROFILE), callbackStatuses: [] },
    lifetimeSeconds: LIFETIME_SECONDS,
    inFlight: new Limiter(1),
    clock: { works: false },
  };
  return { lc, ages };
}

describe("the late confirmation without a clock", () => {
  it("waits from the creation's answer: an order answered late is still that old when confirmed", async () => {
    const { lc, ages } = slowCreationTarget();
    const run = await lateRun(lc, "mobile_commerce", LATE_SECONDS);
    // Counted from the request, the order was 0.6 s old and a target expiring at half its
    // lifetime (1 s) took the code: the check passed a faulty target.
    expect(ages[0]).toBeGreaterThanOrEqual(LATE_SECONDS * 1000 - 2);
    expect(run.confirmation.response.status).toBe(409);
    expect(measuredAge(run).minElapsedSeconds).toBeGreaterThanOrEqual(LATE_SECONDS - 0.002);
  });

  it("counts the wait from when the creation was answered", () => {
    const creation = answered(Date.now(), 200, {});
    const sentMs = Date.parse(creation.startedAt);
    const slow = { ...creation, durationMs: 4_000 };
    expect(lateWaitMs(slow, 3, sentMs)).toBe(4_000 + 1 + 3_000);
    expect(lateWaitMs(slow, 3, sentMs + 10_000)).toBeLessThan(0);
  });
});
