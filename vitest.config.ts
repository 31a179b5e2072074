import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { contractProject } from "./certify/vitest.ts";
import { scaledMs } from "./fixtures/testing/load-allowance.ts";

export default defineConfig({
  test: {
    // hanging-process names what keeps Vitest from exiting; CI's `timeout` ends a run that hangs.
    reporters: ["default", "hanging-process", "./scripts/vitest-closing-reporter.ts"],
    teardownTimeout: scaledMs(20_000),
    // Three workers more than the machine has cores: many files wait on child processes,
    // containers, sockets and timers, and the others use the CPU they leave idle (docs/ci.md).
    // The `suite` project takes it from here, so --maxWorkers still sets it.
    maxWorkers: availableParallelism() + 3,
    projects: [
      {
        test: {
          // The project's own tests (npm test runs this project alone: `--project suite`).
          name: "suite",
          include: ["**/*.test.ts"],
          // The package's test packs and installs it: `npm run test:package`, after npm test in CI.
          exclude: ["node_modules/**", "load/dist/**", "dist/**", "scripts/package/**"],
          // The certifications the tests start run their spec files in one worker thread
          // (H2H_WORKERS, inherited by the child processes): with every core already busy with
          // other test files, a second thread per run only adds the CPU of its start-up.
          // npm run certify and bench:certify keep their default, one per core.
          env: { H2H_WORKERS: "1" },
          // GitHub's workflow parser imports its JSON schema without `with { type: "json" }`, which
          // Node refuses; inlined, Vite reads it (.github/workflow-runner.ts).
          server: { deps: { inline: ["@actions/workflow-parser"] } },
          // A worker runs file after file without a fresh module graph each time: importing zod,
          // undici and the contract again for each of some 70 files was a sixth of the run's CPU.
          // No test keeps state in a shared module; the few that set a variable of process.env
          // put it back.
          isolate: false,
          // Stretched by the load measured at the start (fixtures/testing/load-allowance.ts): a
          // busy machine makes the tests slower, not wrong. Tests that set their own timeout
          // scale it the same way.
          testTimeout: scaledMs(20_000),
          hookTimeout: scaledMs(20_000),
        },
      },
      {
        test: {
          // The packed tarball installed in an empty folder and run there (npm run test:package).
          name: "package",
          include: ["scripts/package/**/*.test.ts"],
          testTimeout: scaledMs(600_000),
          hookTimeout: scaledMs(600_000),
        },
      },
      // The contract specs, the product, as a provider's own Vitest CI runs them:
      // `npx vitest run --project contract` with the H2H_* settings (docs/commands.md); the
      // installed package gives the same project as `h2h-certify/vitest`.
      contractProject(),
    ],
  },
});
