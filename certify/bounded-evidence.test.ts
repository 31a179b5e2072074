/**
 * Bounded evidence: a target answering 5 MB bodies is certified to a verdict with
 * parseable reports, each answer kept cut at the profile's limit with its real size, the size
 * check failing by name, and certify's peak RSS (GNU time, the largest of its processes) < 1 GB.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPORT_FILES } from "./reports/index.ts";
import type { RunReport } from "./run-model.ts";
import { type HostileTarget, startHostileTarget, writeHostileProfile } from "./testing/hostile-target.ts";
import { GNU_TIME, spawnCertify } from "./testing/spawn-certify.ts";

const BODY_BYTES = 5 * 1024 * 1024;
const ONE_GIB_IN_KIB = 1024 * 1024;

describe.skipIf(!existsSync(GNU_TIME))(`a target answering 5 MB bodies (peak RSS from ${GNU_TIME})`, () => {
  let target: HostileTarget;
  const body = Buffer.from(`{"codeError":"0","pad":"${"x".repeat(BODY_BYTES - 30)}"}`);
  beforeAll(async () => {
    target = await startHostileTarget((_request, _body, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": body.length });
      response.end(body);
    });
  });
  afterAll(() => target.stop());

  it("ends in a verdict with valid reports, cut evidence with the real size, and < 1 GB RSS", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-big-bodies-"));
    const reportDir = join(dir, "reports");
    const { exitCode, output, maxRssKiB } = await spawnCertify(
      {
        H2H_BASE_URL: target.url,
        H2H_API_KEY: "big-bodies-key",
        H2H_PROFILE: writeHostileProfile(dir, { limits: { maxBodyBytes: 64 * 1024 } }),
        H2H_REPORT_DIR: reportDir,
      },
      { measureRss: true },
    );
    expect(exitCode, output).toBe(1);
    expect(output).toContain("verdict: NOT CONFORMANT");
    const report = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
    JSON.parse(readFileSync(join(reportDir, REPORT_FILES.har), "utf8"));
    expect(readFileSync(join(reportDir, REPORT_FILES.junit), "utf8")).toMatch(/<testsuites /);
    expect(readFileSync(join(reportDir, REPORT_FILES.html), "utf8")).toMatch(/<\/html>\s*$/);
    expect(report.verdict).toBe("not conformant");
    expect(report.exchanges.length).toBeGreaterThan(10);
    for (const exchange of report.exchanges) {
      expect(exchange.response.truncated).toBe(true);
      expect(exchange.response.size).toEqual({ bytes: body.length, from: "content-length" });
      expect(Buffer.byteLength(exchange.response.body)).toBeLessThanOrEqual(64 * 1024);
    }
    const sizeFailures = report.checks.filter((c) => c.check === "envelope.within-size-limit");
    expect(sizeFailures.length).toBe(report.exchanges.length);
    expect(sizeFailures[0]?.status).toBe("failed");
    expect(sizeFailures[0]?.detail).toContain(
      `${body.length.toLocaleString("en-US")} bytes (Content-Length), over the limit of 65,536 bytes`,
    );
    expect(maxRssKiB, "GNU time printed no peak RSS").toBeDefined();
    expect(maxRssKiB as number).toBeLessThan(ONE_GIB_IN_KIB);
    console.log(`5 MB bodies: peak RSS ${Math.round((maxRssKiB as number) / 1024)} MiB`);
  }, 240_000);
});
