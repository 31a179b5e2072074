/**
 * No false green and exit codes that mean what the README says: a blank variable, an
 * unwritable report directory and a busy sink port are refused before the first request (64,
 * naming the variable); a target that refuses the API key on every request is "not run" (2).
 * The refusals are the command's, so they run in a child process as a user runs it; the runs that
 * are judged run in this process, their exit code the verdict's as the command's is.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startReferenceProvider } from "../fixtures/providers/reference/index.ts";
import { fileTimeout, scaledMs } from "../fixtures/testing/index.ts";
import { REPORT_FILES } from "./reports/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";
import { startHostileTarget, writeHostileProfile } from "./testing/hostile-target.ts";
import { spawnCertify } from "./testing/spawn-certify.ts";

fileTimeout(120_000);

const reportDir = () => mkdtempSync(join(tmpdir(), "h2h-preflight-"));

// The runs that are judged (not refused by the command) run in this process, on one Vitest.
const specRunner = sharedSpecRunner();
afterAll(() => specRunner.close());

/** certify with this variable set but empty, once per file: a test that reads it shares the run. */
const blankRuns = new Map<string, ReturnType<typeof spawnCertify>>();
function certifyWithBlank(name: string) {
  let run = blankRuns.get(name);
  if (run === undefined) {
    run = spawnCertify({ [name]: name === "H2H_PROFILE" ? "  " : "" });
    blankRuns.set(name, run);
  }
  return run;
}

describe("certify before the first request", () => {
  it.each(["H2H_BASE_URL", "H2H_API_KEY", "H2H_PROFILE", "H2H_REPORT_DIR"])(
    "refuses %s set but empty (exit 64, naming it) instead of certifying the bundled provider",
    async (name) => {
      const { exitCode, output } = await certifyWithBlank(name);
      expect(exitCode, output).toBe(64);
      expect(output).toContain(`${name} is set but empty`);
      expect(output).not.toContain("CONFORMANT");
    },
  );

  it("refuses an unwritable report directory within 5 s, naming H2H_REPORT_DIR", async () => {
    // A regular file as the parent: unwritable even for root.
    const file = join(reportDir(), "a-file");
    writeFileSync(file, "");
    // The process start is measured apart (on a busy machine it alone can take seconds): by a run
    // refused as soon as its settings are read, the test above's (run here when this test runs alone).
    const startup = await certifyWithBlank("H2H_REPORT_DIR");
    const { exitCode, output, elapsedMs } = await spawnCertify({ H2H_REPORT_DIR: join(file, "reports") });
    expect(exitCode, output).toBe(64);
    expect(output).toMatch(/H2H_REPORT_DIR ".*a-file\/reports" is not writable \(ENOTDIR\)/);
    expect(output).not.toContain("certifying"); // refused before any server started
    expect(elapsedMs - startup.elapsedMs).toBeLessThan(scaledMs(5_000));
  });

  it.skipIf(process.platform !== "linux")(
    "refuses a report directory under /proc at once (a recursive mkdir there never returns)",
    async () => {
      const { exitCode, output } = await spawnCertify({ H2H_REPORT_DIR: "/proc/h2h-no-such-dir" });
      expect(exitCode, output).toBe(64);
      expect(output).toMatch(/H2H_REPORT_DIR "\/proc\/h2h-no-such-dir" is not writable/);
    },
  );

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
  });

  it("refuses a foreign target whose profile signs callbacks when H2H_CALLBACK_SECRET is not set, before any request", async () => {
    // A target that counts what reaches it: nothing may, when the run is refused.
    const target = await startHostileTarget((_request, _body, response) => response.end());
    try {
      const { exitCode, output } = await spawnCertify({
        H2H_BASE_URL: target.url,
        H2H_API_KEY: "acme-test-key-0001",
        H2H_PROFILE: join(process.cwd(), "fixtures/profiles/example-foreign.json"),
        H2H_REPORT_DIR: reportDir(),
      });
      expect(exitCode, output).toBe(64);
      expect(output).toMatch(
        /H2H_CALLBACK_SECRET is not set: the profile "acme-payments-sandbox" says the callbacks of http:\/\/127\.0\.0\.1:\d+ are signed \(hmac-sha256\)/,
      );
      expect(output).toContain('set callbacks.signature.scheme to "none" in the profile');
      expect(target.requests).toBe(0);
    } finally {
      await target.stop();
    }
  });

  it("says 'invalid API key' and exits 2 (not judged) when the target answers 401", async () => {
    const provider = await startReferenceProvider({ port: 0 });
    try {
      const { exitCode, output, report } = await certifyInProcess(
        { H2H_BASE_URL: provider.url, H2H_API_KEY: "not-a-key-the-target-knows" },
        { specRunner: specRunner.run },
      );
      expect(exitCode, output).toBe(2);
      expect(output).toContain("invalid API key");
      expect(output).not.toContain("cannot reach the target");
      expect(report.verdict).toBe("not run");
      expect(report.errors[0]).toMatch(/invalid API key: all \d+ request\(s\) were answered 401/);
    } finally {
      await provider.stop();
    }
  });
});

describe("a target that rate-limits the run", () => {
  it("ends with the 'rate limited' diagnosis (exit 2), not a hundred failures, and does not wait for Retry-After: 3600", async () => {
    const target = await startHostileTarget((_request, _body, response) => {
      response.writeHead(429, { "content-type": "application/json", "retry-after": "3600" });
      response.end('{"codeError":"rate_limited"}');
    });
    try {
      const { exitCode, output, report } = await certifyInProcess(
        {
          H2H_BASE_URL: target.url,
          H2H_API_KEY: "rate-limited-key",
          H2H_PROFILE: writeHostileProfile(reportDir()),
        },
        { specRunner: specRunner.run },
      );
      expect(exitCode, output).toBe(2);
      expect(output).toContain(
        "rate limited: 1 of 1 request(s) were answered 429 Too Many Requests, Retry-After up to 3600 s",
      );
      expect(report.verdict).toBe("not run");
      expect(report.checks.filter((c) => c.status === "failed").length).toBeLessThanOrEqual(1);
      expect(target.requests).toBe(1);
    } finally {
      await target.stop();
    }
  });
});

/**
 * A proxy in front of the reference provider that answers 429 with `Retry-After: 1` to the first
 * request of each kind (path, with order ids taken out), and passes everything else on.
 */
async function rateLimitingProxy(target: string) {
  const seen = new Set<string>();
  let limited = 0;
  const server = createHttpServer((req, res) => {
    const kind = `${req.method} ${(req.url ?? "").replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, ":id")}`;
    if (!seen.has(kind)) {
      seen.add(kind);
      limited += 1;
      req.resume();
      res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
      res.end('{"codeError":"rate_limited"}');
      return;
    }
    const upstream = httpRequest(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    limited: () => limited,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("a target that asks to retry after a short while", () => {
  it("waits out Retry-After: 1 on the first request of each kind, is CONFORMANT, and the report shows the waits", async () => {
    const provider = await startReferenceProvider({ port: 0 });
    const proxy = await rateLimitingProxy(provider.url);
    try {
      // A whole run: the waits of every endpoint, and a verdict on the whole contract.
      const {
        exitCode,
        output,
        report,
        reportDir: dir,
      } = await certifyInProcess(
        { H2H_BASE_URL: proxy.url },
        { reports: ["html", "har"], specRunner: specRunner.run },
      );
      expect(exitCode, output).toBe(0);
      expect(output).toContain("verdict: CONFORMANT");
      expect(proxy.limited()).toBeGreaterThanOrEqual(4); // the four endpoints at least
      expect(output).toMatch(
        /rate limits: \d+ request\(s\) were answered 429 Too Many Requests and sent again after waiting out Retry-After/,
      );
      expect(report.verdict).toBe("conformant");
      const waited = report.exchanges.filter((e) => e.rateLimited !== undefined);
      expect(waited.length).toBe(proxy.limited());
      for (const exchange of waited) {
        expect(exchange.response.status).not.toBe(429);
        expect(exchange.rateLimited).toEqual([
          { status: 429, startedAt: expect.any(String), retryAfter: "1", waitedMs: 1000 },
        ]);
      }
      expect(report.rateLimitWaits).toEqual({
        requests: proxy.limited(),
        waits: proxy.limited(),
        waitedMs: proxy.limited() * 1000,
        answered429: proxy.limited(),
        notWaitedOut: 0,
      });
      expect(readFileSync(join(dir, REPORT_FILES.html), "utf8")).toContain("rate limits: ");
      const har = JSON.parse(readFileSync(join(dir, REPORT_FILES.har), "utf8")) as {
        log: { entries: { _rateLimited?: unknown[]; comment: string }[] };
      };
      const harWaited = har.log.entries.filter((e) => e._rateLimited !== undefined);
      expect(harWaited).toHaveLength(proxy.limited());
      expect(harWaited[0]?.comment).toMatch(
        /sent again after 1 429 answer\(s\), waited 1000 ms \(Retry-After 1\)/,
      );
    } finally {
      await proxy.stop();
      await provider.stop();
    }
  });
});
