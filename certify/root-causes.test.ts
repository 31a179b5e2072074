import { expect, it } from "vitest";
import { resolveRootCauses } from "./root-causes.ts";
import type { CheckRecord } from "./run-model.ts";

const record = (over: Partial<CheckRecord>): CheckRecord => ({
  endpoint: "lifecycle (mobile commerce)",
  check: "callbacks.follow-lifecycle",
  rule: "",
  status: "passed",
  required: true,
  detail: "",
  durationMs: 0,
  exchanges: [],
  source: "lifecycle.spec.ts",
  ...over,
});

it("explains a check not evaluated by a failure on another endpoint it names, and only by one", () => {
  const clock = record({
    endpoint: "callbacks (mobile commerce)",
    check: "callbacks.sandbox-clock",
    status: "failed",
  });
  const waiting = record({
    status: "not evaluated",
    blockedBy: { check: "callbacks.sandbox-clock", reason: "the clock failed", endpoint: clock.endpoint },
  });
  expect(resolveRootCauses([clock, waiting], [], { informationalChecks: {} }).unexplained).toEqual([]);
  // Without that failure in the report, nothing explains it.
  expect(resolveRootCauses([waiting], [], { informationalChecks: {} }).unexplained).toHaveLength(1);
});
