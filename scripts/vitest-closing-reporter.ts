/**
 * Closes `npm test` with what a reader (and CI) needs at the end: every skipped test by name with
 * the reason it gives, and one plain line "tests: N passed, N failed, N skipped".
 */
import type { Reporter, TestModule } from "vitest/node";

export default class ClosingReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const skipped: string[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === "passed") counts.passed += 1;
        else if (result.state === "failed") counts.failed += 1;
        else if (result.state === "skipped") {
          counts.skipped += 1;
          skipped.push(`skipped: ${test.fullName} — ${result.note ?? "no reason given"}`);
        }
      }
    }
    const lines = [
      "",
      ...skipped,
      `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  }
}
