/**
 * issue 12: no false green and exit codes that mean what the README says: a blank variable, an
 * unwritable report directory and a busy sink port are refused before the first request (64,
 * naming the variable); a target that refuses the API key on every request is "not run" (2).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startReferenceProvider } from "../fixtures/reference-provider/index.ts";
import { REPORT_FILES } from "./reports/index.ts";
import type { RunReport } from "./run-model.ts";
import { startHostileTarget, writeHostileProfile } from "./testing/hostile-target.ts";
import { spawnCertify } from "./testing/spawn-certify.ts";

const reportDir = () => mkdtempSync(join(tmpdir(), "h2h-preflight-"));

describe("certify before the first request", () => {
  it.each(["H2H_BASE_URL", "H2H_API_KEY", "H2H_PROFILE", "H2H_REPORT_DIR"])(
    "refuses %s set but empty (exit 64, naming it) instead of certifying the bundled provider",
    async (name) => {
      const { exitCode, output } = await spawnCertify({ [name]: name === "H2H_PROFILE" ? "  " : "" });
      expect(exitCode, output).toBe(64);
      expect(output).toContain(`${name} is set but empty`);
      expect(output).not.toContain("CONFORMANT");
    },
    30_000,
  );

  it("refuses an unwritable report directory within 5 s, naming H2H_REPORT_DIR", async () => {
    // A regular file as the parent: unwritable even for root.
    const file = join(reportDir(), "a-file");
    writeFileSync(file, "");
    // The process start (tsx compiling) is measured apart: on a busy machine it alone can take seconds.
    const startup = await spawnCertify({}, { args: ["--help"] });
    const { exitCode, output, elapsedMs } = await spawnCertify({ H2H_REPORT_DIR: join(file, "reports") });
    expect(exitCode, output).toBe(64);
    expect(output).toMatch(/H2H_REPORT_DIR ".*a-file\/reports" is not writable \(ENOTDIR\)/);
    expect(output).not.toContain("certifying"); // refused before any server started
    expect(elapsedMs - startup.elapsedMs).toBeLessThan(5_000);
  }, 30_000);

  it("refuses a busy sink port, naming H2H_SINK_PORT", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { exitCode, output } = await spawnCertify({
        H2H_SINK_PORT: String(port),
        H2H_REPORT_DIR: reportDir(),
      });
      expect(exitCode, output).toBe(64);
      expect(output).toContain(
        `H2H_SINK_PORT ${port}: the webhook sink cannot listen there (the port is in use)`,
      );
      expect(output).not.toContain("EADDRINUSE\n    at");
    } finally {
      blocker.close();
    }
  }, 30_000);

  it("says 'invalid API key' and exits 2 (not judged) when the target answers 401", async () => {
    const provider = await startReferenceProvider({ port: 0 });
    const dir = reportDir();
    try {
      const { exitCode, output } = await spawnCertify({
        H2H_BASE_URL: provider.url,
        H2H_API_KEY: "not-a-key-the-target-knows",
        H2H_REPORT_DIR: dir,
      });
      expect(exitCode, output).toBe(2);
      expect(output).toContain("invalid API key");
      expect(output).not.toContain("cannot reach the target");
      const report = JSON.parse(readFileSync(join(dir, REPORT_FILES.json), "utf8")) as RunReport;
      expect(report.verdict).toBe("not run");
      expect(report.errors[0]).toMatch(/invalid API key: all \d+ request\(s\) were answered 401/);
    } finally {
      await provider.stop();
    }
  }, 60_000);
});

describe("a target that rate-limits the run", () => {
  it("ends with the 'rate limited' diagnosis (exit 2), not a hundred failures", async () => {
    const target = await startHostileTarget((_request, _body, response) => {
      response.writeHead(429, { "content-type": "application/json", "retry-after": "120" });
      response.end('{"codeError":"rate_limited"}');
    });
    const dir = reportDir();
    try {
      const { exitCode, output } = await spawnCertify({
        H2H_BASE_URL: target.url,
        H2H_API_KEY: "rate-limited-key",
        H2H_PROFILE: writeHostileProfile(dir),
        H2H_REPORT_DIR: join(dir, "reports"),
      });
      expect(exitCode, output).toBe(2);
      expect(output).toContain(
        "rate limited: 1 of 1 request(s) were answered 429 Too Many Requests, Retry-After up to 120 s",
      );
      const report = JSON.parse(readFileSync(join(dir, "reports", REPORT_FILES.json), "utf8")) as RunReport;
      expect(report.verdict).toBe("not run");
      expect(report.checks.filter((c) => c.status === "failed").length).toBeLessThanOrEqual(1);
      expect(target.requests).toBe(1);
    } finally {
      await target.stop();
    }
  }, 60_000);
});
