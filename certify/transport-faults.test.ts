/**
 * Transport faults are errors of their exchange, never failures of the contract, and a POST the
 * target may have processed is never sent twice. A raw-TCP proxy in front of the reference
 * provider passes every POST on and, for some, drops the provider's answer and closes the
 * connection: the provider processed them (an order made, a confirmation taken). The run must
 * say so as transport faults (not run, JUnit `errors`), and no POST reaches the provider twice.
 */
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout, type RawTarget, startRawTarget } from "../fixtures/testing/index.ts";
import { REPORT_FILES } from "./reports/index.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";

fileTimeout(180_000);

/** Sends a request the proxy read on to `upstream`; resolves with its answer as raw HTTP/1.1. */
function forward(
  upstream: string,
  request: { method: string; path: string; headers: Record<string, string>; body: string },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      `${upstream}${request.path}`,
      { method: request.method, headers: { ...request.headers, connection: "close" } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          resolve(
            [
              `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}`,
              `content-type: ${answer.headers["content-type"] ?? "application/json"}`,
              `content-length: ${Buffer.byteLength(body)}`,
              "",
              body,
            ].join("\r\n"),
          );
        });
      },
    );
    out.on("error", reject);
    out.end(request.body);
  });
}

describe("a target that processes a POST, then closes the connection without answering", () => {
  it("never gets a POST twice; the lost answers are transport faults (errors), the run not run", async () => {
    const provider = await startReferenceProvider({ port: 0 });
    let posts = 0;
    /** The requests whose answer the proxy dropped, by their place among the proxy's requests. */
    const dropped: number[] = [];
    // Every 6th POST after the first is processed by the provider, then its answer dropped.
    const proxy: RawTarget = await startRawTarget(async (request) => {
      posts += 1;
      const index = proxy.requests.indexOf(request);
      const answer = await forward(provider.url, request);
      if (posts > 1 && posts % 6 === 0) {
        dropped.push(index);
        return { close: true };
      }
      return { write: answer };
    });
    try {
      const { exitCode, output, report, reportDir } = await certifyInProcess(
        {
          H2H_BASE_URL: proxy.url,
          H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
          H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
          H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        },
        { specFiles: ["mobile-commerce.spec.ts", "quasi-ecom.spec.ts"], reports: ["json", "junit"] },
      );
      // Counted where the provider is: no POST whose answer was dropped arrived again (the specs
      // repeat a request on purpose only after its answer came).
      const keyOf = (r: RawTarget["requests"][number]) =>
        `${r.path} ${r.headers.authorization ?? ""} ${r.body}`;
      const again = dropped.flatMap((index) => {
        const key = keyOf(proxy.requests[index] as RawTarget["requests"][number]);
        return proxy.requests.slice(index + 1).some((r) => keyOf(r) === key) ? [key] : [];
      });
      expect(dropped.length, output).toBeGreaterThanOrEqual(2);
      expect(again, output).toEqual([]);
      expect(report.exchanges.filter((e) => e.reconnected !== undefined)).toEqual([]);

      expect(exitCode, output).toBe(2);
      expect(report.verdict).toBe("not run");
      expect(output).not.toContain("reconnected:");
      expect(report.errors.join("\n")).toMatch(/^transport faults: \d+ check\(s\) could not be evaluated/m);
      const faulted = report.checks.filter((c) => c.blockedBy?.check === "target.transport-fault");
      expect(faulted.length).toBeGreaterThan(0);
      for (const check of faulted) {
        expect(check.status).toBe("not evaluated");
        expect(check.detail).toContain("transport fault (no answer)");
        expect(check.detail).toContain("not sent again: the target may have processed it");
      }
      // No required failure is a transport failure.
      const failedOnTransport = report.checks.filter(
        (c) => c.status === "failed" && /UND_ERR_SOCKET|ECONNRESET|other side closed/.test(c.detail),
      );
      expect(failedOnTransport.map((c) => `${c.check}: ${c.detail}`)).toEqual([]);
      const junit = readFileSync(join(reportDir, REPORT_FILES.junit), "utf8");
      const top = /<testsuites [^>]*failures="(\d+)" errors="(\d+)"/.exec(junit);
      expect(Number(top?.[2])).toBe(faulted.length);
      expect(Number(top?.[1])).toBe(report.totals.failedRequired);
      expect(junit).toContain('type="transport"');
    } finally {
      await proxy.stop();
      await provider.stop();
    }
  });
});

describe("a proxy that answers 502 to a confirmation it never passed on", () => {
  it("does not take the next confirmation for a second one", async () => {
    const provider = await startReferenceProvider({ port: 0 });
    const confirmedOnce = new Set<string>();
    const proxy: RawTarget = await startRawTarget(async (request) => {
      const confirmOf = /^\/api\/v1\/orders\/([^/]+)\/[a-z-]+confirm/.exec(request.path)?.[1];
      if (confirmOf !== undefined && !confirmedOnce.has(confirmOf)) {
        confirmedOnce.add(confirmOf);
        const page = "<html><body>502 Bad Gateway</body></html>";
        return {
          write: `HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\ncontent-length: ${page.length}\r\n\r\n${page}`,
        };
      }
      return { write: await forward(provider.url, request) };
    });
    try {
      const { output, report } = await certifyInProcess(
        {
          H2H_BASE_URL: proxy.url,
          H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
          H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
          H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        },
        { specFiles: ["mobile-commerce.spec.ts"] },
      );
      const twice = report.checks.filter((c) => c.check === "behaviour.rejects-confirming-twice");
      expect(twice.length, output).toBeGreaterThan(0);
      for (const check of twice) {
        expect(check.status, check.detail).toBe("not evaluated");
        expect(check.detail).toMatch(
          /the first confirmation was not accepted \(HTTP 502\)|the answer is not JSON \(HTTP 502/,
        );
      }
      expect(report.verdict).not.toBe("conformant");
    } finally {
      await proxy.stop();
      await provider.stop();
    }
  });
});
