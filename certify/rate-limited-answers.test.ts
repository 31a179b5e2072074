/**
 * A 429 is never an answer. A rate limiter in front of a provider with a race bug answers 429,
 * without Retry-After, to the creations of a burst that share one merchantOrderID: with a profile
 * that pins no error, "exactly one accepted, the others refused (HTTP 429 …)" used to pass and
 * the run was CONFORMANT. A whole quick run (in this process, as `npm run certify` runs it): the
 * race is not evaluated, the run is not run (exit 2), and the console and every report name the
 * rate limiting.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { REPORT_FILES } from "./reports/index.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";

fileTimeout(120_000);

/** How long the first creation of a burst is held, so the rest of the burst meets it in flight. */
const HOLD_MS = 200;

/**
 * Passes everything on to `target`, except a creation whose merchantOrderID (per API key) is
 * already in flight: that one gets a 429 envelope with no Retry-After.
 */
async function burstLimiter(target: string) {
  const inFlight = new Set<string>();
  let limited = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let merchantOrderId: unknown;
      try {
        merchantOrderId = (JSON.parse(body.toString("utf8")) as { merchantOrderID?: unknown })
          .merchantOrderID;
      } catch {
        merchantOrderId = undefined;
      }
      const key =
        req.method === "POST" && typeof merchantOrderId === "string"
          ? `${req.headers.authorization ?? ""} ${merchantOrderId}`
          : undefined;
      if (key !== undefined && inFlight.has(key)) {
        limited += 1;
        res.writeHead(429, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            data: null,
            result: { status: "failed", codeError: "too_many_requests", "x-request-id": `limit-${limited}` },
          }),
        );
        return;
      }
      if (key !== undefined) inFlight.add(key);
      const forward = () => {
        const upstream = httpRequest(
          `${target}${req.url}`,
          { method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            answer.on("end", () => {
              if (key !== undefined) inFlight.delete(key);
            });
          },
        );
        upstream.on("error", () => {
          if (key !== undefined) inFlight.delete(key);
          res.destroy();
        });
        upstream.end(body);
      };
      if (key !== undefined) setTimeout(forward, HOLD_MS);
      else forward();
    });
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

/** The reference profile with no error pinned: any refusal would do for every rejection check. */
function unpinnedProfile(dir: string): string {
  const profile = JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8")) as Record<string, unknown>;
  const lifecycle = { ...(profile.lifecycle as Record<string, unknown>) };
  for (const key of ["otherKindConfirm", "otherMerchantConfirm", "secondConfirm"]) delete lifecycle[key];
  const path = join(dir, "unpinned-profile.json");
  writeFileSync(path, JSON.stringify({ ...profile, name: "unpinned", errors: {}, lifecycle }));
  return path;
}

describe("a rate limiter in front of a provider with a race bug", () => {
  it("answers 429 without Retry-After to a burst: the race is not evaluated and the run is not run, never exit 0", async () => {
    const provider = await startReferenceProvider({ port: 0, faults: ["racy-merchant-order-id"] });
    const limiter = await burstLimiter(provider.url);
    const dir = mkdtempSync(join(tmpdir(), "h2h-rate-limited-"));
    try {
      const { exitCode, output, report, reportDir } = await certifyInProcess(
        {
          H2H_BASE_URL: limiter.url,
          H2H_PROFILE: unpinnedProfile(dir),
          H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
          H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
          H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        },
        // The reports this test reads (the HAR it does not).
        { reports: ["json", "junit", "html"] },
      );
      expect(limiter.limited(), output).toBeGreaterThanOrEqual(4);
      expect(exitCode, output).toBe(2);
      expect(output).not.toContain("verdict: CONFORMANT");
      expect(output).toContain("verdict: NOT RUN");
      expect(output).toMatch(
        /rate limits: \d+ answer\(s\) 429 Too Many Requests, 0 waited out, \d+ not waited out/,
      );

      expect(report.verdict).toBe("not run");
      expect(report.errors.join("\n")).toMatch(/^rate limited: \d+ check\(s\) could not be evaluated/m);
      const races = report.checks.filter((c) => c.check === "behaviour.concurrent-creations-one-accepted");
      expect(races.length).toBeGreaterThan(0);
      for (const race of races) {
        expect(race.status, race.detail).toBe("not evaluated");
        expect(race.detail).toContain("rate limited: HTTP 429, no Retry-After");
        expect(race.blockedBy?.check).toBe("target.rate-limited");
      }
      // Not a refusal for any check: none passed or failed on a 429 answer.
      const on429 = new Set(report.exchanges.filter((e) => e.response.status === 429).map((e) => e.id));
      const judged429 = report.checks.filter(
        (c) => c.status !== "not evaluated" && c.subject !== undefined && on429.has(c.subject),
      );
      expect(judged429.map((c) => `${c.check}: ${c.detail}`)).toEqual([]);
      expect(report.rateLimitWaits).toEqual({
        requests: 0,
        waits: 0,
        waitedMs: 0,
        answered429: limiter.limited(),
        notWaitedOut: limiter.limited(),
      });
      expect(readFileSync(join(reportDir, REPORT_FILES.junit), "utf8")).toMatch(
        /<property name="h2h.rateLimits" value="rate limits: \d+ answer\(s\) 429/,
      );
      const html = readFileSync(join(reportDir, REPORT_FILES.html), "utf8");
      expect(html).toContain("not waited out");
      expect(html).not.toContain('class="verdict conformant"');
    } finally {
      await limiter.stop();
      await provider.stop();
    }
  });
});
