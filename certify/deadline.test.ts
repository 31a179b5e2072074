/**
 * A deadline, and partial reports: SIGTERM during a run (a CI job's timeout) and the
 * `--deadline` leave parseable reports of what ran, marked "incomplete" with the reason, exit 2,
 * and no temp folder behind.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { startReferenceProvider } from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { silencedOnStop, watchRunStop } from "./engine/deadline.ts";
import type { RunContext } from "./engine/run-context.ts";
import type { RunReport } from "./engine/run-model.ts";
import { runSpecsOnce } from "./engine/spec-runner.ts";
import type { SpecListener, SpecTest } from "./engine/spec-tasks.ts";
import { REPORT_FILES, REPORT_KINDS } from "./reports/index.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";
import { spawnCertify } from "./testing/spawn-certify.ts";

fileTimeout(120_000);

function readReports(reportDir: string): RunReport {
  for (const file of [REPORT_FILES.har, REPORT_FILES.json])
    JSON.parse(readFileSync(join(reportDir, file), "utf8"));
  expect(readFileSync(join(reportDir, REPORT_FILES.junit), "utf8")).toMatch(/<testsuites /);
  expect(readFileSync(join(reportDir, REPORT_FILES.html), "utf8")).toContain("INCOMPLETE");
  return JSON.parse(readFileSync(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
}

it("refuses a --deadline longer than a timer can wait (it would fire at once), exit 64", async () => {
  const run = await spawnCertify({}, { args: ["--deadline", "3000000"] });
  expect(run.exitCode).toBe(64);
  expect(run.output).toMatch(/--deadline 3000000: at most 2147483\.647 seconds/);
});

/**
 * A temp folder for certify alone (TMPDIR), so that what it leaves behind is seen apart from other
 * processes'. tsx's transform cache (tsx-<uid>) is linked in: in an empty TMPDIR the child would
 * transform every module anew: most of a second of CPU the test is not about.
 */
function certifyTmpDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const cache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
  if (existsSync(join(tmpdir(), cache))) symlinkSync(join(tmpdir(), cache), join(dir, cache));
  return dir;
}

// Side by side: each mostly waits (a certify process to start, a run on a slow provider).
describe.concurrent("a run that is stopped", () => {
  it("by SIGTERM mid-run: parseable reports marked incomplete, exit 2, temp folders removed", async () => {
    const reportDir = join(mkdtempSync(join(tmpdir(), "h2h-sigterm-")), "reports");
    const runTmp = certifyTmpDir("h2h-sigterm-tmp-");
    let signalled = false;
    const { exitCode, output } = await spawnCertify(
      { H2H_REPORT_DIR: reportDir, TMPDIR: runTmp },
      {
        onOutput: (text, pid) => {
          // Once the first spec file has reported (checks ran), the CI job times out.
          if (!signalled && /\.spec\.ts: \d+ passed/.test(text)) {
            signalled = true;
            process.kill(pid, "SIGTERM");
          }
        },
      },
    );
    expect(signalled, output).toBe(true);
    expect(exitCode, output).toBe(2);
    expect(output).toContain("verdict: INCOMPLETE");
    const report = readReports(reportDir);
    expect(report.verdict).toBe("incomplete");
    expect(report.errors[0]).toBe("stopped by SIGTERM before the run was complete");
    expect(report.checks.length).toBeGreaterThan(0);
    expect(report.exchanges.length).toBeGreaterThan(0);
    expect(readdirSync(runTmp).filter((name) => name.startsWith("h2h-"))).toEqual([]);
  });

  it("by SIGTERM then SIGINT (a double signal): the reports of what ran, temp folders removed, exit 2", async () => {
    const reportDir = join(mkdtempSync(join(tmpdir(), "h2h-double-signal-")), "reports");
    const runTmp = certifyTmpDir("h2h-double-signal-tmp-");
    let signalled = false;
    const { exitCode, output } = await spawnCertify(
      { H2H_REPORT_DIR: reportDir, TMPDIR: runTmp },
      {
        onOutput: (text, pid) => {
          if (!signalled && /\.spec\.ts: \d+ passed/.test(text)) {
            signalled = true;
            process.kill(pid, "SIGTERM");
            setTimeout(() => process.kill(pid, "SIGINT"), 50);
          }
        },
      },
    );
    expect(signalled, output).toBe(true);
    expect(exitCode, output).toBe(2);
    const report = readReports(reportDir);
    expect(report.errors).toEqual(["stopped by SIGTERM before the run was complete"]);
    expect(report.checks.length).toBeGreaterThan(0);
    expect(readdirSync(runTmp).filter((name) => name.startsWith("h2h-"))).toEqual([]);
  });

  it("by SIGINT while Vitest starts: no spec runs after the reports, nothing after their list, exit 2", async () => {
    // Ctrl-C as soon as the run says it is certifying: Vitest is still starting. Vitest's own signal
    // handler used to exit 130 there, or the specs ran on against the provider the run had already
    // stopped, printing failures after the verdict and exiting 1.
    const reportDir = join(mkdtempSync(join(tmpdir(), "h2h-sigint-early-")), "reports");
    let signalled = false;
    const { exitCode, output } = await spawnCertify(
      { H2H_REPORT_DIR: reportDir },
      {
        onOutput: (text, pid) => {
          if (!signalled && text.includes("h2h-certify: certifying")) {
            signalled = true;
            process.kill(pid, "SIGINT");
          }
        },
      },
    );
    expect(signalled, output).toBe(true);
    expect(exitCode, output).toBe(2);
    expect(output).toContain("error: stopped by SIGINT before the run was complete");
    // The stop is the one cause: not also "no contract spec ran".
    expect(output.match(/^error: /gm), output).toHaveLength(1);
    expect(output).not.toContain("no contract spec ran");
    // The list of reports is the last thing printed.
    expect(output.trimEnd().split("\n").at(-1), output).toMatch(/h2h-certify\.har$/);
    expect(output).not.toMatch(/ECONNREFUSED|spec\.ts: \d+ passed/);
    const report = readReports(reportDir);
    expect(report.verdict).toBe("incomplete");
    expect(report.checks.filter((check) => check.status === "failed")).toEqual([]);
  });

  it("by --deadline: reports marked incomplete with the deadline as the reason, exit 2", async () => {
    // A provider whose status changes take 3 s: its callback checks cannot be done within 4 s, however
    // fast the machine (the bundled provider's whole run now takes about that long).
    await using slow = await startReferenceProvider({ port: 0, processingDelayMs: 3_000 });
    // In this process: the deadline's judging, not the process, is tested. Its specs run as the
    // command runs them, in a Vitest thread of their own, which the stop cancels.
    const { exitCode, output, reportDir } = await certifyInProcess(
      { H2H_BASE_URL: slow.url },
      { deadlineSeconds: 4, reports: REPORT_KINDS },
    );
    expect(exitCode, output).toBe(2);
    const report = readReports(reportDir);
    expect(report.verdict).toBe("incomplete");
    expect(report.errors).toEqual(["the run's deadline of 4 s passed before it was complete"]);
  });
});

describe("runSpecsOnce (the spec host)", () => {
  const run = (runStop: ReturnType<typeof watchRunStop>, specFiles: string[]) =>
    runSpecsOnce({
      runContext: {} as RunContext,
      specFiles,
      reporting: { secrets: {}, requirements: { informationalChecks: {} } },
      print: () => {},
      runStop,
      testTimeout: 5_000,
      hookTimeout: 5_000,
    });

  it("returns no records when no spec file matches (the run then says no contract spec ran)", async () => {
    const runStop = watchRunStop(60_000);
    try {
      expect(await run(runStop, ["certify/specs/no-such-file.spec.ts"])).toEqual({
        records: [],
        runErrors: [],
        specFiles: [],
      });
    } finally {
      runStop.dispose();
    }
  });

  it("runs nothing when stopped before the specs start, and adds no signal handler of its own", async () => {
    const before = process.listenerCount("SIGINT");
    const runStop = watchRunStop(1);
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const result = await run(runStop, ["certify/specs/quasi-ecom.spec.ts"]);
      expect(result.records).toEqual([]);
      // watchRunStop's own handler, and no other.
      expect(process.listenerCount("SIGINT")).toBe(before + 1);
    } finally {
      runStop.dispose();
    }
    expect(process.listenerCount("SIGINT")).toBe(before);
  });
});

describe("watchRunStop (signals)", () => {
  it("counts one cancellation that arrives twice (the process group's, and npm run's forward) once", () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const runStop = watchRunStop(60_000);
    try {
      // A runner's cancel: SIGINT to the group, forwarded by npm; 7.5 s later SIGTERM, forwarded too.
      process.emit("SIGINT", "SIGINT");
      process.emit("SIGINT", "SIGINT");
      expect(runStop.reason).toBe("stopped by SIGINT before the run was complete");
      expect(write).not.toHaveBeenCalled();
      process.emit("SIGTERM", "SIGTERM");
      process.emit("SIGTERM", "SIGTERM");
      // The SIGTERM is the one absorbed signal: the reports are still being written, nothing exits.
      expect(write).toHaveBeenCalledTimes(1);
      expect(String(write.mock.calls[0]?.[0])).toMatch(/^SIGTERM: already stopping/);
      expect(exit).not.toHaveBeenCalled();
      // A third signal of its own still quits at once.
      process.emit("SIGINT", "SIGINT");
      expect(exit).toHaveBeenCalledWith(2);
    } finally {
      runStop.dispose();
      exit.mockRestore();
      write.mockRestore();
    }
  });
});

describe("silencedOnStop (the run's listeners once it is stopped)", () => {
  const STOP_AT = 1_000_000;
  const STATES = { passed: "pass", failed: "fail", skipped: "skip" } as const;
  /** A test that started at `startTime` and took `duration`, with this state. */
  const testCase = (state: keyof typeof STATES, startTime = STOP_AT - 500, duration = 100) =>
    ({ mode: "run", result: { state: STATES[state], startTime, duration } }) as unknown as SpecTest;
  function recorded(stopped: boolean, over: boolean, tests: SpecTest[]) {
    const heard: string[] = [];
    const listener: SpecListener = {
      onTest: (test) => {
        heard.push(`result ${test.result?.state}`);
      },
      onFileEnd: () => {
        heard.push("file end");
      },
    };
    const silenced = silencedOnStop(
      listener,
      () => (stopped ? STOP_AT : undefined),
      () => over,
    );
    for (const test of tests) silenced.onTest?.(test);
    silenced.onFileEnd?.({} as never);
    return heard;
  }
  const ended = (["passed", "failed", "skipped"] as const).map((state) => testCase(state));

  it("passes everything on while the run goes on", () => {
    expect(recorded(false, false, ended)).toEqual(["result pass", "result fail", "result skip", "file end"]);
  });

  it("keeps the results of tests that ended before the stop, and drops the winding down", () => {
    // What the cancel marks skipped, and the files it ends, are not the run's.
    expect(recorded(true, false, ended)).toEqual(["result pass", "result fail"]);
  });

  it("drops a failure that ended after the stop (it may be the stop's doing), keeps a pass", () => {
    const afterStop = [testCase("failed", STOP_AT - 50, 200), testCase("passed", STOP_AT - 50, 200)];
    expect(recorded(true, false, afterStop)).toEqual(["result pass"]);
  });

  it("drops everything once the run is over and its reports are being written", () => {
    expect(recorded(true, true, ended)).toEqual([]);
  });
});
