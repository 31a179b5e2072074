import { describe, expect, it } from "vitest";
import { CHECK_REGISTRY, confirmsLateInLifetime } from "../../contract/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { runMasker } from "../../run-setup/index.ts";
import { CheckCollector, collectorRequirementsOf } from "./check-collector.ts";
import type { SpecTest } from "./spec-tasks.ts";

/** A test of the lifecycle spec that threw before it recorded a verdict (no meta). */
function thrownTest(check: string): SpecTest {
  const file = {
    type: "suite",
    name: "certify/specs/lifecycle.spec.ts",
    filepath: "/x/lifecycle.spec.ts",
    tasks: [],
  };
  const suite = {
    type: "suite",
    name: "lifecycle (late in the declared lifetime)",
    suite: file,
    file,
    tasks: [],
  };
  return {
    type: "test",
    id: "t-1",
    name: `${check} › mobile commerce`,
    mode: "run",
    suite,
    file,
    meta: {},
    result: { state: "fail", errors: [{ name: "Error", message: "the sink did not answer" }], duration: 5 },
  } as unknown as SpecTest;
}

function recordOf(profile: typeof REFERENCE_PROFILE) {
  const collector = new CheckCollector(runMasker({}), () => {}, collectorRequirementsOf(profile));
  collector.onTest(thrownTest(confirmsLateInLifetime.name));
  const [record] = collector.records;
  if (!record) throw new Error("no record");
  return record;
}

describe("a check that threw before its verdict", () => {
  it("is judged on its basis for the profile: a lifetime the profile declares makes it required", () => {
    // The reference profile's file gives callbackTriggers.expired.unconfirmedForSeconds.
    expect(CHECK_REGISTRY.get(confirmsLateInLifetime.name)?.source?.kind).toBe("advisory");
    const record = recordOf(REFERENCE_PROFILE);
    expect(record.status).toBe("failed");
    expect(record.required).toBe(true);
    expect(record.ruleSource).toMatchObject({
      kind: "declared",
      keys: ["callbackTriggers.expired.unconfirmedForSeconds"],
    });
  });

  it("stays advisory for a profile whose file does not declare the lifetime", () => {
    // As a file without the key reads: its default stands in.
    const profile = {
      ...REFERENCE_PROFILE,
      declaredKeys: (REFERENCE_PROFILE.declaredKeys ?? []).filter(
        (key) => !key.startsWith("callbackTriggers.expired"),
      ),
    };
    const record = recordOf(profile);
    expect(record.required).toBe(false);
    expect(record.ruleSource?.kind).toBe("advisory");
  });
});
