/**
 * `npm run load` where it can be run: without k6 and Docker it must say so once, exit non-zero and
 * write nothing. With k6 on PATH or K6_BIN, real runs against the reference provider: a smoke run
 * sends at most 2 orders/s and passes with 100 % callback delivery in a small report folder; a
 * stress run prints a capacity; a run three times longer writes no more. Without k6 those tests
 * are skipped, by name, with the reason.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startReferenceProvider } from "../../fixtures/providers/reference/index.ts";
import { commandArgs, fileTimeout } from "../../fixtures/testing/index.ts";
import { failingChecks, type K6Summary } from "../lib/summary.ts";
import { SCENARIO_NAMES } from "../scenarios/index.ts";
import { dockerAvailable, findLocalK6 } from "./k6-runner.ts";
import { loadSeriesOf, parseK6Timeline } from "./k6-timeline.ts";
import { LOAD_FILES } from "./run.ts";

fileTimeout(400_000);

function load(args: string[], env: Record<string, string>) {
  return new Promise<{ exitCode: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [...commandArgs("load"), ...args], {
      // Set-but-empty H2H_* variables are refused (exit 64): the outer ones are dropped instead.
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("H2H_"))),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (exitCode) => resolve({ exitCode, output }));
  });
}

describe("npm run load", () => {
  it("without k6 or Docker: one clear message, exit 3, nothing written", async () => {
    const reportDir = join(mkdtempSync(join(tmpdir(), "h2h-load-test-")), "reports");
    const { exitCode, output } = await load(["--scenario", "smoke"], {
      PATH: "/nonexistent",
      K6_BIN: "",
      DOCKER_HOST: "unix:///nonexistent/docker.sock",
      H2H_REPORT_DIR: reportDir,
    });
    expect(exitCode).toBe(3);
    expect(output.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^error: k6 not found on PATH, K6_BIN is not set, and no Docker engine answers: install k6/,
      ),
    ]);
    expect(existsSync(reportDir)).toBe(false);
  });

  it("refuses a bad scenario, a smoke above 2 orders/s and a K6_BIN that is not there, naming them", async () => {
    expect((await load(["--scenario", "marathon"], {})).output).toContain(
      `--scenario marathon: must be one of ${SCENARIO_NAMES.join(", ")}`,
    );
    const tooFast = await load(["--scenario", "smoke", "--rate", "5"], { K6_BIN: process.execPath });
    expect(tooFast.exitCode).toBe(64);
    expect(tooFast.output).toContain(
      '--rate "5": smoke sends at most 2 orders/s; use the load scenario for more',
    );
    const missing = await load(["--scenario", "smoke"], { K6_BIN: "/nonexistent/k6" });
    expect(missing.exitCode).not.toBe(0);
    expect(missing.output).toContain("K6_BIN=/nonexistent/k6 is not an executable file");
  });

  it("finds no Docker engine behind a socket that is not there", async () => {
    expect(await dockerAvailable({ DOCKER_HOST: "unix:///nonexistent/docker.sock" })).toBe(false);
    expect(findLocalK6({ PATH: "/nonexistent" })).toBeUndefined();
  });

  const k6 = (() => {
    try {
      return findLocalK6();
    } catch {
      return undefined;
    }
  })();
  const noK6 = "k6 is not on PATH and K6_BIN is not set: a real k6 run cannot happen on this machine";
  const folderBytes = (dir: string, except: string[] = []) =>
    readdirSync(dir)
      .filter((name) => !except.includes(name))
      .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);

  it("runs a real k6 smoke: at most 2 orders/s, 100 % callback delivery, a report folder under 2 MB besides k6's dashboard", async (ctx) => {
    if (!k6) return ctx.skip(noK6);
    const reportDir = mkdtempSync(join(tmpdir(), "h2h-load-k6-"));
    const { exitCode, output } = await load(["--scenario", "smoke", "--duration", "10s"], {
      H2H_REPORT_DIR: reportDir,
    });
    expect(exitCode, output).toBe(0);
    // The wait window is the profile's callback timeout; what matters is that every callback came.
    expect(output).toMatch(/got their final callback within \d+s of its trigger \(100\.00 %\)/);
    const folder = join(reportDir, "load");
    expect(readdirSync(folder).sort()).toEqual(Object.values(LOAD_FILES).sort());
    const report = JSON.parse(readFileSync(join(folder, LOAD_FILES.reportJson), "utf8")) as {
      iterations: number;
      delivery: { ratio: number; confirmed: number };
      series: { endpoints: Record<string, { perSecond: number[] }> };
    };
    expect(report.delivery).toMatchObject({ ratio: 1, confirmed: report.iterations });
    // 1.5 orders/s for 10 s; never above 2 orders/s in any period.
    expect(report.iterations).toBeLessThanOrEqual(20);
    for (const [endpoint, series] of Object.entries(report.series.endpoints))
      if (endpoint.startsWith("create"))
        expect(Math.max(...series.perSecond), endpoint).toBeLessThanOrEqual(2);
    expect(folderBytes(folder, [LOAD_FILES.dashboard])).toBeLessThan(2 * 1024 * 1024);

    // The parsers on this fresh real output: every endpoint's requests over the periods add up to k6's count.
    const summary = JSON.parse(readFileSync(join(folder, LOAD_FILES.summary), "utf8")) as K6Summary;
    const series = loadSeriesOf(parseK6Timeline(readFileSync(join(folder, LOAD_FILES.timeline))));
    expect(failingChecks(summary)).toEqual([]);
    for (const [endpoint, values] of Object.entries(series.endpoints)) {
      const total = values.perSecond.reduce((sum, v, i) => sum + (v * (series.durationMs[i] ?? 0)) / 1000, 0);
      expect(Math.round(total), endpoint).toBe(
        // Every request of this smoke was answered: the expected_response submetric counts them all.
        summary.metrics[`http_req_duration{name:${endpoint},expected_response:true}`]?.values.count,
      );
    }
  });

  // callbackMs counts from the request that triggers the callback: a payer's think time is not the provider's.
  it("times callbacks from their trigger: a 5 s think time passes, a provider 6 s late after confirming fails", async (ctx) => {
    if (!k6) return ctx.skip(noK6);
    const thinking = await load(["--scenario", "smoke", "--think", "5", "--duration", "6s"], {
      H2H_REPORT_DIR: mkdtempSync(join(tmpdir(), "h2h-load-k6-")),
    });
    expect(thinking.exitCode, thinking.output).toBe(0);
    expect(thinking.output).toMatch(/trigger → callback p50 \d+ ms.*; order → callback p50 (\d+) ms/);
    const orderP50 = Number(/order → callback p50 (\d+) ms/.exec(thinking.output)?.[1]);
    expect(orderP50).toBeGreaterThan(5_000);

    const late = await startReferenceProvider({ processingDelayMs: 6_000 });
    try {
      const run = await load(["--scenario", "smoke", "--think", "0", "--duration", "4s"], {
        H2H_BASE_URL: late.url,
        H2H_REPORT_DIR: mkdtempSync(join(tmpdir(), "h2h-load-k6-")),
      });
      expect(run.exitCode, run.output).toBe(1);
      expect(run.output).toMatch(/succeeded: 0 of \d+ on time, \d+ late, 0 missing/);
      expect(Number(/trigger → callback p50 (\d+) ms/.exec(run.output)?.[1])).toBeGreaterThanOrEqual(6_000);
    } finally {
      await late.stop();
    }
  });

  it("runs a real k6 stress and prints the capacity", async (ctx) => {
    if (!k6) return ctx.skip(noK6);
    const reportDir = mkdtempSync(join(tmpdir(), "h2h-load-k6-"));
    const { output } = await load(["--scenario", "stress", "--duration", "30s", "--rate", "10"], {
      H2H_REPORT_DIR: reportDir,
    });
    expect(output).toMatch(/^capacity: (≥ |< )?\d+ orders\/s/m);
  });

  it("writes no more for a run three times longer: no per-sample stream, a fixed number of periods", async (ctx) => {
    if (!k6) return ctx.skip(noK6);
    const written: number[] = [];
    for (const duration of ["20s", "60s"]) {
      const reportDir = mkdtempSync(join(tmpdir(), "h2h-load-k6-"));
      const { exitCode, output } = await load(["--scenario", "soak", "--duration", duration, "--rate", "5"], {
        H2H_REPORT_DIR: reportDir,
        H2H_TIMELINE_POINTS: "10",
      });
      expect(exitCode, output).toBe(0);
      const line = /^load: wrote ([\d.]+) KiB/m.exec(output);
      expect(line, output).not.toBeNull();
      written.push(Number(line?.[1]) * 1024);
    }
    const [short, long] = written as [number, number];
    expect(long).toBeLessThan(short * 1.15);
    expect(long).toBeLessThan(5 * 1024 * 1024);
  });
});
