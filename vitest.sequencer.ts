/**
 * The order npm test's files start in: the ones that take tens of seconds first, longest first,
 * then the rest in Vitest's own order. With three workers and ~75 files, a run ends when its
 * last long file does, so a long file started late adds most of its length to the wall time.
 *
 * Vitest orders by the durations it cached from the last run, which is not enough here:
 * - a fresh clone (every CI run) has no cache, and Vitest keeps the glob's order: the mutation
 *   self-test (~65 s) started two minutes in and ended the run (.ci/run: Vitest 145 s);
 * - a run without Docker caches the container tests as skipped, a few milliseconds, so the next
 *   run with Docker starts them last (npm test: 2 min 38 s, the container tests ending it).
 * Without this list, from a fresh clone Vitest starts the largest files first and the small mutation
 * self-test late: its phase took 1.19-1.21 × (files' total / 3 workers), with the list 1.03 ×.
 *
 * The list holds the files that took 4 s or more in npm test on a 2-core machine. A file missing
 * from it only starts where Vitest would have started it; a stale name is caught by its test.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Longest first: seconds measured in two npm test runs on 2 cores, for the reader. */
export const LONG_FILES_FIRST: readonly string[] = [
  "selftest/mutation.test.ts", // 61-70 s
  "certify/container-runs.test.ts", // 54-64 s (skipped without Docker)
  "certify/receiver-run.test.ts", // 40-100 s (17 receiver certifications, two at a time)
  "certify/cleanroom.test.ts", // 39 s
  "certify/evidence.test.ts", // 27-29 s
  "certify/openapi-prism.test.ts", // 28 s
  "certify/grounded-verdict.test.ts", // 20 s
  "certify/bounded-evidence.test.ts", // 20-21 s
  "certify/certify.test.ts", // 14-20 s
  "certify/probes.test.ts", // 14-16 s
  "vitest.watchdog-reporter.test.ts", // 16 s
  "certify/preflight.test.ts", // 12-15 s
  "certify/secrets-in-every-spelling.test.ts", // 12-15 s
  "certify/deadline.test.ts", // 8-15 s
  "certify/compare.test.ts", // 14 s
  "load/harness/k6-container.test.ts", // 12 s (skipped without Docker)
  "certify/contract-project.test.ts", // 13 s
  "certify/mtls.test.ts", // 12 s
  "certify/clean-terminal.test.ts", // 8-11 s
  "provider/reference/server.test.ts", // 6 s
  "provider/reference/fuzz.test.ts", // 5 s
  "sink/server.test.ts", // 4-5 s
];

export default class LongFilesFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const vitestOrder = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const path = relative(file.project.config.root, file.moduleId).replaceAll("\\", "/");
      const index = LONG_FILES_FIRST.indexOf(path);
      return index === -1 ? LONG_FILES_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the files not listed keep Vitest's order among themselves.
    return vitestOrder.sort((a, b) => rank(a) - rank(b));
  }
}
