/**
 * A process that runs certifications for the mutation self-test, one after another:
 * `node --import ./selftest/mutant-preload.mjs --import ./scripts/tsx.mjs scripts/selftest/mutant-child.ts`,
 * jobs over the IPC channel. Each job starts the reference provider with the job's fault, here,
 * next to the run's webhook sink (so the sink's stall monitor also sees the provider's lateness),
 * and certifies it. One process serves many runs with one Vitest, so modules, transforms and
 * worker threads are paid for once per process, not once per run (they cost more CPU than a
 * targeted run itself). Prints nothing of its own: the parent reads each run's JSON report.
 */

import { type ReportKind, runCertification } from "../../certify/index.ts";
import { startReferenceProvider } from "../../fixtures/providers/reference/index.ts";
import { parseSettings } from "../../run-setup/index.ts";

export interface MutantJob {
  /** Faults to switch the reference provider into; none: the clean provider. */
  faults: string[];
  /** Where the run's reports go (H2H_REPORT_DIR). */
  reportDir: string;
  /** Only these spec files (paths from the project root); none: every spec file. */
  specFiles: string[];
  /** Which reports the run writes (the JSON, which the parent reads, always). */
  reports: readonly ReportKind[];
  /** Only the tests of these checks (`--only`); none: every test of the spec files. */
  only: string[];
}

/** How the run ended, and the CPU time the process spent on it (all its threads, ms). */
export type MutantReply = ({ exitCode: number } | { error: string }) & { cpuMs: number };

if (!process.send) {
  console.error("scripts/selftest/mutant-child.ts is started by the mutation self-test, with an IPC channel");
  process.exit(2);
}

async function certify(job: MutantJob): Promise<MutantReply> {
  const before = process.cpuUsage();
  const cpuMs = () => {
    const used = process.cpuUsage(before);
    return Math.round((used.user + used.system) / 1000);
  };
  const provider = await startReferenceProvider({ port: 0, faults: job.faults });
  try {
    const { report } = await runCertification({
      // A process of its own: its environment is read here, as the commands read theirs.
      settings: parseSettings(
        { ...process.env, H2H_BASE_URL: provider.url, H2H_REPORT_DIR: job.reportDir },
        { command: "certify" },
      ),
      print: () => {},
      reports: job.reports,
      targetInThisProcess: true,
      ...(job.only.length > 0 ? { probes: { only: job.only } } : {}),
      ...(job.specFiles.length > 0 ? { specFiles: job.specFiles } : {}),
    });
    await provider.stop();
    // The CLI's exit codes (scripts/commands/certify.ts): 0 conformant, 1 not conformant, 4 partial, else 2.
    const exitCode =
      report.verdict === "conformant"
        ? 0
        : report.verdict === "not conformant"
          ? 1
          : report.verdict === "partial"
            ? 4
            : 2;
    return { exitCode, cpuMs: cpuMs() };
  } catch (error) {
    await provider.stop();
    return { error: error instanceof Error ? (error.stack ?? error.message) : String(error), cpuMs: cpuMs() };
  }
}

let queue = Promise.resolve();
process.on("message", (job: MutantJob) => {
  queue = queue.then(async () => {
    process.send?.(await certify(job));
  });
});
// The parent closing the channel is the signal to end.
process.on("disconnect", () => {
  void queue.then(async () => {
    process.exit(0);
  });
});
