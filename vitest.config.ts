import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import LongFilesFirstSequencer from "./vitest.sequencer.ts";

export default defineConfig({
  test: {
    // The project's own tests. Contract specs (*.spec.ts) are the product: `certify` runs them.
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "load/dist/**"],
    // The watchdog names a file that runs too long and ends a run over its budget (see its header):
    // a worker stuck in a synchronous loop defeats testTimeout and hookTimeout, which run inside it.
    reporters: ["default", "./vitest.closing-reporter.ts", "./vitest.watchdog-reporter.ts"],
    // One worker more than the machine has cores (three on two): most files wait on child
    // processes, containers, sockets and timers (the mutation self-test's children, a container's
    // start, a callback's retries), and a third file uses the CPU they leave idle. npm test on a
    // 2-core machine: 3 min with two workers, 2 min 24 s with three.
    maxWorkers: availableParallelism() + 1,
    // The certifications the tests start run their spec files in one worker thread (H2H_WORKERS,
    // inherited by the child processes): with every core already busy with other test files, a
    // second thread per run only adds the CPU of its start-up (about 40 s of npm test's on 2 cores).
    // npm run certify and bench:certify keep their default, one per core.
    env: { H2H_WORKERS: "1" },
    // A worker runs file after file without a fresh module graph each time: importing zod, undici
    // and the contract again for each of some 70 files was a sixth of the run's CPU. No test keeps
    // state in a shared module; the few that set a variable of process.env put it back.
    isolate: false,
    // The files that take tens of seconds start first, whatever Vitest cached (see its header).
    sequence: { sequencer: LongFilesFirstSequencer },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
