/**
 * Says what `npm test` is doing when it takes long, and ends a run that would otherwise be killed
 * without a word. Vitest prints a file only when it ends, so a file that never ends (a worker stuck
 * in a loop, a child process nobody waits out) leaves a CI log that just stops. This reporter runs
 * in Vitest's main process, whose timers keep working whatever a worker does:
 *
 * - every minute after a file has run for `H2H_TEST_SLOW_FILE_S` (default 240 s) it prints the file,
 *   how long it has run, and the tests of it that started and have not ended;
 * - once the whole run has taken `H2H_TEST_BUDGET_MIN` minutes (default 60, inside CI's 90), it
 *   prints the same for every file still running and ends the run with exit code 1, so that CI is
 *   red with the name of what hung instead of timed out with nothing. Vitest's workers and what they
 *   started are killed first: a worker stuck in a loop would outlive the run, spinning.
 *
 * Vitest has no means of its own for this: testTimeout and hookTimeout are timers in the worker, which
 * a synchronous loop never lets fire; teardownTimeout and the hanging-process reporter act only once
 * the run has ended; and a SIGTERM to Vitest leaves the spinning worker behind.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Reporter, TestCase, TestModule } from "vitest/node";

/**
 * Every process below `root` (Linux /proc; none found elsewhere). A worker stuck in a loop outlives
 * Vitest's exit, and the processes it started outlive it, so they are ended by pid.
 */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  for (const name of entries) {
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(root);
  return found;
}

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    process.stderr.write(
      `watchdog: ${name}=${JSON.stringify(raw)} is not a positive number; using ${fallback}\n`,
    );
    return fallback;
  }
  return value;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

export default class WatchdogReporter implements Reporter {
  private readonly slowFileMs = positiveNumber("H2H_TEST_SLOW_FILE_S", 240) * 1000;
  private readonly budgetMs = positiveNumber("H2H_TEST_BUDGET_MIN", 60) * 60_000;
  private readonly files = new Map<string, { started: number; lastSaid: number }>();
  private readonly tests = new Map<string, { file: string; name: string; started: number }>();
  private runStarted = Date.now();
  private timer: NodeJS.Timeout | undefined;

  onTestRunStart(): void {
    this.runStarted = Date.now();
    // Often enough to keep to the budget within a few percent, and to test it with a short one.
    const every = Math.max(250, Math.min(10_000, this.slowFileMs / 4, this.budgetMs / 20));
    this.timer = setInterval(() => this.look(), every);
    this.timer.unref();
  }

  onTestModuleStart(module: TestModule): void {
    this.files.set(module.moduleId, { started: Date.now(), lastSaid: 0 });
  }

  onTestModuleEnd(module: TestModule): void {
    this.files.delete(module.moduleId);
    for (const [id, test] of this.tests) if (test.file === module.moduleId) this.tests.delete(id);
  }

  onTestCaseReady(test: TestCase): void {
    this.tests.set(test.id, { file: test.module.moduleId, name: test.fullName, started: Date.now() });
  }

  onTestCaseResult(test: TestCase): void {
    this.tests.delete(test.id);
  }

  onTestRunEnd(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private describe(file: string, started: number, now: number): string {
    const running = [...this.tests.values()]
      .filter((test) => test.file === file)
      .map((test) => `\n    running for ${seconds(now - test.started)}: ${test.name}`);
    const relative = file.startsWith(process.cwd()) ? file.slice(process.cwd().length + 1) : file;
    return `${relative} has run for ${seconds(now - started)}${running.join("") || " (no test of it reported as started: its imports, a hook, or a worker stuck before it could say)"}`;
  }

  private look(): void {
    const now = Date.now();
    if (now - this.runStarted >= this.budgetMs) {
      const still = [...this.files].map(([file, { started }]) => `  ${this.describe(file, started, now)}`);
      process.stdout.write(
        `\nwatchdog: the run has taken ${seconds(now - this.runStarted)}, over its budget of ` +
          `H2H_TEST_BUDGET_MIN=${this.budgetMs / 60_000} min; ending it with exit code 1. Still running:\n` +
          `${still.join("\n") || "  no file (Vitest itself is stuck between files)"}\n`,
      );
      for (const pid of descendantsOf(process.pid)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      process.exit(1);
    }
    for (const [file, state] of this.files) {
      if (now - state.started < this.slowFileMs || now - state.lastSaid < 60_000) continue;
      state.lastSaid = now;
      process.stdout.write(`\nwatchdog: ${this.describe(file, state.started, now)}\n`);
    }
  }
}
