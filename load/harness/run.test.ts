/**
 * `npm run load` where it can be run: without k6 and Docker it must say so once, exit non-zero and
 * write nothing. With k6 on PATH or K6_BIN, a real smoke run against the reference provider must
 * pass with 100 % callback delivery and write every report; without k6 that test is skipped, by
 * name, with the reason.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dockerAvailable, findLocalK6 } from "./k6-runner.ts";
import { LOAD_FILES } from "./run.ts";

const script = fileURLToPath(new URL("../../scripts/load.ts", import.meta.url));

function load(args: string[], env: Record<string, string>) {
  return new Promise<{ exitCode: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
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
  }, 30_000);

  it("refuses a bad scenario and a K6_BIN that is not there, naming them", async () => {
    expect((await load(["--scenario", "marathon"], {})).output).toContain(
      "--scenario marathon: must be one of smoke, load, stress, spike, soak",
    );
    const missing = await load(["--scenario", "smoke"], { K6_BIN: "/nonexistent/k6" });
    expect(missing.exitCode).not.toBe(0);
    expect(missing.output).toContain("K6_BIN=/nonexistent/k6 is not an executable file");
  }, 30_000);

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
  it("runs a real k6 smoke scenario against the reference provider with 100 % callback delivery", async (ctx) => {
    if (!k6)
      return ctx.skip("k6 is not on PATH and K6_BIN is not set: a real k6 run cannot happen on this machine");
    const reportDir = mkdtempSync(join(tmpdir(), "h2h-load-k6-"));
    const { exitCode, output } = await load(["--scenario", "smoke", "--duration", "10s"], {
      H2H_REPORT_DIR: reportDir,
    });
    expect(exitCode, output).toBe(0);
    expect(output).toMatch(/got their final callback \(100\.00 %/);
    expect(readdirSync(join(reportDir, "load")).sort()).toEqual(Object.values(LOAD_FILES).sort());
  }, 180_000);
});
