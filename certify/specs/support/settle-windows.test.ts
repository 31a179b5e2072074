import { describe, expect, it } from "vitest";
import type { Profile } from "../../../contract/index.ts";
import { REFERENCE_PROFILE } from "../../../fixtures/profiles/index.ts";
import { duplicateWindowMs, extraAttemptWindowMs, UNDECLARED_SETTLE_MS } from "./settle-windows.ts";

const withPolicy = (retryPolicy: Profile["callbacks"]["retryPolicy"]): Profile => ({
  ...REFERENCE_PROFILE,
  callbacks: { ...REFERENCE_PROFILE.callbacks, retryPolicy },
});

describe("settle windows", () => {
  it("come from the profile's retry policy: a duplicate by its first delay, an extra attempt by its longest", () => {
    const profile = withPolicy({ attempts: 4, delaysMs: [100, 900, 300], toleranceMs: 250 });
    expect(duplicateWindowMs(profile)).toBe(350);
    expect(extraAttemptWindowMs(profile)).toBe(1150);
  });

  it("are half a second when the profile declares no retry policy (or one without delays)", () => {
    expect(duplicateWindowMs(withPolicy(undefined))).toBe(UNDECLARED_SETTLE_MS);
    expect(extraAttemptWindowMs(withPolicy(undefined))).toBe(UNDECLARED_SETTLE_MS);
    const noDelays = withPolicy({ attempts: 1, delaysMs: [], toleranceMs: 250 });
    expect(duplicateWindowMs(noDelays)).toBe(UNDECLARED_SETTLE_MS);
    expect(extraAttemptWindowMs(noDelays)).toBe(UNDECLARED_SETTLE_MS);
  });
});
