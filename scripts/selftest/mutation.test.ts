/**
 * The suite checks itself (part of npm test): certify kills every fault of the catalogue by the
 * checks the fault names, and passes the clean provider. Each mutant runs only the spec files
 * holding the checks its fault names (`npm run mutants` runs them all, and three clean runs: here
 * one is enough, as certify.test.ts and contract-project.test.ts certify the clean provider too).
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPORT_FILES } from "../../certify/index.ts";
import { CHECK_REGISTRY } from "../../contract/index.ts";
import { FAULTS } from "../../fixtures/providers/reference/index.ts";
import { scaledMs } from "../../fixtures/testing/index.ts";
import {
  killRate,
  type MutantResult,
  progressLine,
  renderMutationTable,
  runMutationSuite,
} from "./mutation.ts";

describe("mutation self-test", () => {
  it("every fault names checks that exist", () => {
    for (const fault of FAULTS.values()) {
      expect(fault.detectedBy.length, fault.name).toBeGreaterThan(0);
      for (const check of fault.detectedBy)
        expect(CHECK_REGISTRY.has(check), `${fault.name} → ${check}`).toBe(true);
    }
  });

  it(
    "kills every fault by its named checks, with no false positive in a clean run",
    async () => {
      process.stderr.write(`mutation self-test: ${FAULTS.size} faults and a clean run\n`);
      const reportDir = mkdtempSync(join(tmpdir(), "h2h-mutants-test-"));
      const results = await runMutationSuite({
        cleanRuns: 1,
        targeted: true,
        // Three at a time on any machine: a targeted run mostly waits (on callbacks, lifetimes,
        // retries), about a fifth of its time on CPU. On 2 cores: 103 s with two, 67 s with three,
        // 66 s with four, whose extra child cost 14 s more CPU.
        concurrency: 3,
        reportDir,
        // The outcome is read from the JSON; the other reports are tested where they are made.
        reports: ["json"],
        // Straight to stderr: Vitest shows it as it comes, so a long self-test is never silent.
        onResult: (result, progress) => process.stderr.write(`  ${progressLine(result, progress)}\n`),
      });
      const table = renderMutationTable(results);
      const notAsExpected = (r: MutantResult) =>
        r.fault ? r.outcome !== "killed" : r.outcome !== "clean-pass";
      expect(
        results.filter(notAsExpected).map((r) => `${r.subject}: ${r.outcome} ${r.error ?? ""}`),
        table,
      ).toEqual([]);
      // Check coverage: every check a fault names ran in that fault's (targeted) run.
      expect(
        results.flatMap((r) => r.notRunChecks.map((check) => `${r.subject} → ${check}`)),
        table,
      ).toEqual([]);
      expect(killRate(results)).toEqual({ killed: FAULTS.size, total: FAULTS.size, percent: 100 });
      expect(results.filter((r) => r.fault === undefined)).toHaveLength(1);
      // Each run wrote the JSON report alone.
      for (const result of results) expect(readdirSync(result.reportDir)).toEqual([REPORT_FILES.json]);
    },
    scaledMs(15 * 60_000),
  );
});
