import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The project's own tests. Contract specs (*.spec.ts) are the product: `certify` runs them.
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "load/dist/**"],
    // The watchdog names a file that runs too long and ends a run over its budget (see its header).
    reporters: ["default", "./vitest.closing-reporter.ts", "./vitest.watchdog-reporter.ts"],
    // Both cores (Vitest's default leaves one to itself): most files wait on child processes,
    // sockets and timers, so two side by side use the machine instead of queueing.
    maxWorkers: Math.min(2, availableParallelism()),
    // A worker runs file after file without a fresh module graph each time: importing zod, undici
    // and the contract again for each of some 70 files was a sixth of the run's CPU. No test keeps
    // state in a shared module; the few that set a variable of process.env put it back.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
