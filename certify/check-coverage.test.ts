/**
 * The self-test covers every check: each registered check is named by at least one
 * fault of the reference provider's catalogue, so that the mutation self-test shows it fails on a
 * bad provider; a check no fault can catch is exempt only with its reason. The mutation self-test
 * (mutation.test.ts) then requires each fault to be killed by the checks it names.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHECK_REGISTRY } from "../contract/index.ts";
import { CHECK_COVERAGE_EXEMPTIONS, FAULTS } from "../fixtures/providers/reference/index.ts";
import { PROJECT_ROOT } from "../run-setup/index.ts";

const named = new Set([...FAULTS.values()].flatMap((fault) => fault.detectedBy));

describe("check coverage of the fault catalogue", () => {
  it("names every registered check in at least one fault, or exempts it with a reason", () => {
    // The receiver checks have the reference receiver's catalogue (certify/receiver-run.test.ts), the
    // merchant checks the example merchant's faulty variants (certify/observe/observe.test.ts).
    const uncovered = [...CHECK_REGISTRY.values()]
      .filter((check) => check.group !== "receiver" && check.group !== "merchant")
      .map((check) => check.name)
      .filter((check) => !named.has(check) && CHECK_COVERAGE_EXEMPTIONS[check] === undefined);
    expect(
      uncovered,
      "checks no fault names: add a fault that they catch, or an exemption with the reason",
    ).toEqual([]);
  });

  it("exempts only checks that exist, that no fault names, each with a reason", () => {
    for (const [check, reason] of Object.entries(CHECK_COVERAGE_EXEMPTIONS)) {
      expect(CHECK_REGISTRY.has(check), check).toBe(true);
      expect(named.has(check), `${check} is named by a fault: drop its exemption`).toBe(false);
      expect(reason.length, check).toBeGreaterThan(20);
    }
  });

  it("gives each fault only one probe sees a spec file that exists", () => {
    const probed = [...FAULTS.values()].filter((fault) => fault.probe !== undefined);
    // Generated inputs, derived negatives, methods, the lifecycle, races and exact callbacks each have one.
    expect(new Set(probed.map((fault) => fault.probe)).size).toBeGreaterThanOrEqual(4);
    for (const fault of probed)
      expect(existsSync(join(PROJECT_ROOT, "certify/specs", fault.probe as string)), fault.name).toBe(true);
  });
});
