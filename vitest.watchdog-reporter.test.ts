/**
 * The watchdog in a real Vitest run: a test file whose worker is stuck in a synchronous loop (no
 * timer of its own can fire) is named with its running test, and the run ends with exit code 1
 * once its budget is spent, instead of running until CI kills it without a word.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL(".", import.meta.url));

function vitestIn(
  dir: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        join(root, "node_modules/vitest/vitest.mjs"),
        "run",
        "--root",
        dir,
        "--config",
        join(dir, "vitest.config.mjs"),
      ],
      { cwd: dir, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => resolve({ code, output }));
  });
}

/** Pids of the processes whose environment holds this NAME=value (Linux /proc). */
function processesWith(marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/environ`, "latin1").split("\0").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(process.platform !== "linux")("the watchdog reporter", () => {
  it("names a file stuck in a synchronous loop and its test, then ends the run with exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-watchdog-"));
    writeFileSync(
      join(dir, "vitest.config.mjs"),
      `export default { test: { include: ["*.test.mjs"], reporters: ["default", ${JSON.stringify(join(root, "vitest.watchdog-reporter.ts"))}] } };\n`,
    );
    writeFileSync(
      join(dir, "stuck.test.mjs"),
      // It waits first, so that Vitest has told the main process the test began: 5 s, well within
      // the run's 15 s budget, as a busy machine delays that message (1.5 s once was not enough).
      `import { it } from "vitest";\nit("spins forever", async () => { await new Promise((r) => setTimeout(r, 5000)); for (;;) {} });\n`,
    );
    const started = Date.now();
    const { code, output } = await vitestIn(dir, {
      H2H_TEST_SLOW_FILE_S: "1",
      // 15 s: long enough for the stuck test to have started and said so on a busy machine.
      H2H_TEST_BUDGET_MIN: "0.25",
      H2H_WATCHDOG_RUN: dir,
    });
    expect(code, output).toBe(1);
    expect(output).toMatch(/watchdog: stuck\.test\.mjs has run for \d+ s/);
    expect(output).toMatch(
      /over its budget of H2H_TEST_BUDGET_MIN=0\.25 min; ending it with exit code 1\. Still running:\n {2}stuck\.test\.mjs has run for \d+ s/,
    );
    expect(output).toMatch(/running for \d+ s: spins forever/);
    // No worker is left spinning after the run (it would hold a core until the machine stops).
    // Every process of that run carries its marker in its environment.
    expect(processesWith(`H2H_WATCHDOG_RUN=${dir}`)).toEqual([]);
    // The budget (6 s) ended it, not the test's own timeout: a stuck worker runs no timer of its own.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
