/**
 * Evidence a provider accepts, as a user sees it: a certification (in this process, as
 * `npm run certify` runs it: same reports, same console lines) against targets that fail in
 * ways a person must be able to read.
 *
 * - every answer a non-JSON 502 page: one root-cause failure per endpoint, the rest "not
 *   evaluated, because …", the console's totals the reports', run-wide failures printed;
 * - callbacks: every one in the JSON report and the HAR with its raw body, and a failing one's
 *   headers and body in the HTML; a callback before its trigger fails a check of its own; a
 *   sandbox clock that does not answer is a visible warning, and the suite waits instead.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { SANDBOX_CLOCK_ADVANCE_PATH } from "../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout, loadFactor } from "../fixtures/testing/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { REPORT_FILES, REPORT_KINDS } from "./reports/index.ts";
import {
  certifyInProcess,
  type InProcessOptions,
  type InProcessRun,
  sharedSpecRunner,
} from "./testing/certify-in-process.ts";

fileTimeout(120_000);

/** One Vitest for the file's runs: its start-up would otherwise be paid by each. */
const specRunner = sharedSpecRunner();

/** Certifies at quick depth, seed 11, writing every report. */
function certify(
  env: Record<string, string>,
  options: Pick<InProcessOptions, "only" | "specFiles"> = {},
): Promise<InProcessRun> {
  return certifyInProcess(
    { H2H_SEED: "11", ...env },
    { ...options, specRunner: specRunner.run, reports: REPORT_KINDS },
  );
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

/** A copy of the reference profile, changed, in a directory of its own. */
function profileWith(dir: string, change: (profile: Record<string, unknown>) => void): string {
  const profile = JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8")) as Record<string, unknown>;
  change(profile);
  const path = join(dir, "profile.json");
  writeFileSync(path, JSON.stringify(profile, null, 2));
  return path;
}

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await specRunner.close();
});

// The runs go one after another: their specs would queue on the one Vitest anyway, and a run's
// duration (asserted below) must not hold another's.
describe("one cause per failure", () => {
  it("a target whose every answer is a non-JSON 502 page shows one root-cause failure per endpoint", async () => {
    const page =
      "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>";
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(502, { "content-type": "text/html" }).end(page);
    });
    servers.push(server);
    const baseUrl = await listen(server);
    const dir = mkdtempSync(join(tmpdir(), "h2h-evidence-"));
    const { exitCode, output, reportDir } = await certify({
      H2H_BASE_URL: baseUrl,
      H2H_API_KEY: "merchant-key-0001",
      H2H_CALLBACK_SECRET: "gateway-callback-secret",
      H2H_PROFILE: profileWith(dir, (p) => {
        p.name = "gateway-down";
      }),
    });
    expect(exitCode, output).toBe(1);
    const report = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
    expect(report.verdict).toBe("not conformant");
    expect(report.errors).toEqual([]);

    // Every endpoint: exactly one failure, the cause; everything else waits on it.
    expect(report.summary.length).toBeGreaterThanOrEqual(6);
    for (const entry of report.summary) {
      const failed = report.checks.filter((c) => c.endpoint === entry.endpoint && c.status === "failed");
      expect(
        failed.map((c) => `${c.check}: ${c.detail}`),
        `${entry.endpoint} should fail once`,
      ).toHaveLength(1);
      const [root] = failed;
      if (entry.endpoint === "(all endpoints)") {
        expect(root?.check).toBe("behaviour.no-server-error");
      } else {
        expect(root?.check).toBe("envelope.shape");
        expect(root?.detail).toMatch(/not JSON \(HTTP 502/);
        expect(root?.detail).toMatch(/the cause of \d+ check\(s\) not evaluated/);
        expect(entry.notEvaluated).toBeGreaterThan(0);
      }
    }
    const waiting = report.checks.filter((c) => c.status === "not evaluated");
    for (const check of waiting) {
      expect(check.detail).toMatch(/^not evaluated, because /);
      expect(check.blockedBy?.check).toBeDefined();
    }

    // The console's totals are the reports', and the run-wide failure is printed.
    const { totals } = report;
    expect(output).toMatch(
      new RegExp(
        `total\\s+${totals.passed}\\s+${totals.failed}\\s+${totals.notEvaluated}\\s+${totals.skipped}\\b`,
      ),
    );
    expect(output).toContain("failures by rule:");
    expect(output).toMatch(/✗ behaviour\.no-server-error: 1 failure\(s\), \(all endpoints\)/);
    expect(output).toMatch(/✗ envelope\.shape: \d+ failure\(s\), \d+ endpoints/);

    // JUnit agrees: one failure per endpoint; the rest skipped with the reason.
    const junit = readFileSync(join(reportDir, REPORT_FILES.junit), "utf8");
    expect(junit).toContain(`failures="${totals.failedRequired}"`);
    expect(junit).toContain('<skipped message="not evaluated, because the answer is not JSON');
    // The HTML opens with the failures by rule.
    const html = readFileSync(join(reportDir, REPORT_FILES.html), "utf8");
    expect(html.indexOf("Failures by rule")).toBeLessThan(html.indexOf("Conformance by endpoint"));
  });
});

/** A proxy in front of a target that has no sandbox clock: the clock path answers 404. */
function withoutClock(targetUrl: string): Server {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if ((req.url ?? "").startsWith(SANDBOX_CLOCK_ADVANCE_PATH)) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          data: null,
          result: {
            codeError: "not_found",
            message: "no such path",
            status: "error",
            "x-request-id": randomUUID(),
          },
        }),
      );
      return;
    }
    const answer = await request(`${targetUrl}${req.url}`, {
      method: (req.method ?? "GET") as "POST",
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => name !== "host" && name !== "connection"),
      ) as Record<string, string>,
      body: chunks.length > 0 ? Buffer.concat(chunks) : null,
    });
    const body = Buffer.from(await answer.body.arrayBuffer());
    res.writeHead(answer.statusCode, { "content-type": String(answer.headers["content-type"] ?? "") });
    res.end(body);
  });
}

interface HarEntry {
  request: { method: string; url: string; postData?: { text: string }; headers: { name: string }[] };
  response: { status: number };
  comment: string;
}

describe("callbacks as evidence", () => {
  it("reports every callback with its raw body (JSON, HAR, HTML), fails one that comes before its trigger, and warns when the sandbox clock fails", async () => {
    // Signatures that do not verify; orders that expire after 4 s where the profile says 8; no clock.
    const provider = await startReferenceProvider({
      port: 0,
      faults: ["bad-callback-signature"],
      lifetimeSeconds: 4,
      processingDelayMs: 50,
      callbackRetryDelaysMs: [100, 200, 300, 400],
    });
    const proxy = withoutClock(provider.url);
    servers.push(proxy);
    try {
      const baseUrl = await listen(proxy);
      const dir = mkdtempSync(join(tmpdir(), "h2h-evidence-"));
      const { exitCode, output, reportDir } = await certify(
        {
          H2H_BASE_URL: baseUrl,
          H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
          H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
          H2H_PROFILE: profileWith(dir, (p) => {
            const triggers = p.callbackTriggers as Record<string, unknown>;
            triggers.expired = { unconfirmedForSeconds: 8 };
            p.sandboxClock = true;
            const callbacks = p.callbacks as Record<string, unknown>;
            callbacks.retryPolicy = { attempts: 5, delaysMs: [100, 200, 300, 400], toleranceMs: 250 };
          }),
        },
        // The callback scenarios and the lifecycle's expiry probes: every callback and warning asserted.
        { specFiles: ["callbacks.spec.ts", "lifecycle.spec.ts"] },
      );
      expect(exitCode, output).toBe(1);
      const report = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
      const record = (endpoint: string, check: string, label: string) =>
        report.checks.find((c) => c.endpoint === endpoint && c.check === check && c.case === label);

      // Every callback, as received: method, URL (token masked), headers, raw body, verdict, answer.
      expect(report.callbacks.length).toBeGreaterThanOrEqual(12);
      for (const callback of report.callbacks) {
        expect(callback.method).toBe("POST");
        expect(callback.url).toMatch(/\/callbacks\/<token>\/run\//);
        expect(callback.headers["x-signature"]).toMatch(/^sha256=/);
        expect(JSON.parse(callback.body)).toMatchObject({
          id: expect.any(String),
          status: expect.any(String),
        });
        expect(callback.signature).toBe("invalid");
        // The scenarios acknowledge with 200, 201, 202 or 204; the retry one refuses with 503.
        expect([200, 201, 202, 204, 503]).toContain(callback.answeredWith);
      }
      const scenarioCallbacks = report.callbacks.filter((c) => c.trigger !== undefined);
      expect(scenarioCallbacks.length).toBeGreaterThanOrEqual(8);

      // The HAR holds every callback delivery, with its body, as an entry of its own.
      const har = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.har), "utf8")) as {
        log: { entries: HarEntry[] };
      };
      const harCallbacks = har.log.entries.filter((e) => e.comment.startsWith("callback "));
      expect(harCallbacks).toHaveLength(report.callbacks.length);
      expect(har.log.entries).toHaveLength(report.exchanges.length + report.callbacks.length);
      for (const [index, entry] of harCallbacks.entries()) {
        const callback = report.callbacks.find((c) => entry.comment.startsWith(`callback ${c.id} `));
        expect(callback, entry.comment).toBeDefined();
        expect(entry.request.postData?.text).toBe(callback?.body);
        expect(entry.response.status).toBe(callback?.answeredWith);
        expect(index).toBeGreaterThanOrEqual(0);
      }

      // A callback failure's HTML row shows the callback's headers and raw body.
      const signature = record("callbacks (mobile commerce)", "callbacks.signature-valid", "succeeded");
      expect(signature?.status).toBe("failed");
      const html = readFileSync(join(reportDir, REPORT_FILES.html), "utf8");
      const row = html.slice(html.indexOf(`<tr id="check-${report.checks.indexOf(signature as never)}">`));
      // The row ends where the next check's begins (its findings are a table of their own).
      const rowHtml = row.slice(0, row.indexOf('<tr id="check-', 1));
      expect(rowHtml).toContain("Callback as received");
      expect(rowHtml).toMatch(/x-signature: sha256=[0-9a-f]{64}/);
      expect(rowHtml).toContain("&quot;status&quot;:&quot;succeeded&quot;");

      // The expired callbacks came 4 s after creation, the profile's lifetime is 8 s: before their trigger.
      for (const kind of ["mobile commerce", "quasi-ecom"]) {
        const early = record(`callbacks (${kind})`, "callbacks.not-before-trigger", "expired");
        expect(early?.status, early?.detail).toBe("failed");
        expect(early?.detail).toMatch(/arrived before the trigger; the first \d+\.\d\d s before the trigger/);
        expect(record(`callbacks (${kind})`, "callbacks.not-before-trigger", "succeeded")?.status).toBe(
          "passed",
        );
        // The clock did not answer: a warning and an informational failure, then the suite waited.
        const clock = record(`callbacks (${kind})`, "callbacks.sandbox-clock", "expired");
        expect(clock).toMatchObject({ status: "failed", required: false });
        expect(record(`callbacks (${kind})`, "callbacks.arrives", "expired")?.status).toBe("passed");
      }
      // Both the callback scenarios and the lifecycle's expiry probes say they wait instead. On a
      // loaded machine the late confirmation may come too near the lifetime to be judged: said too.
      const unjudged =
        /^\d+ check\(s\) could not be evaluated, first lifecycle \(late in the declared lifetime\)/;
      expect([...report.warnings].filter((w) => !unjudged.test(w)).sort()).toEqual([
        expect.stringMatching(
          /sandbox clock, but POST \/sandbox\/v1\/clock\/advance answered HTTP 404: .* wait out/,
        ),
        expect.stringMatching(
          /sandbox clock, but it failed \(HTTP 404 from \/sandbox\/v1\/clock\/advance\): the lifecycle's expiry probes wait out the order's lifetime \(8 s\)/,
        ),
      ]);
      expect(output).toMatch(/warning: the profile declares a sandbox clock, but POST/);
      expect(html).toContain('<div class="warnings"><b>Warnings:</b>');
    } finally {
      await provider.stop();
    }
  });
});

describe("a sandbox clock the profile requires", () => {
  it("fails callbacks.sandbox-clock when it does not answer, and the expiry checks wait on it (no warning, no waiting)", async () => {
    // A lifetime the run's own work cannot reach even on a busy machine: a run that waited it out
    // is told apart by its duration.
    const lifetimeSeconds = Math.ceil(30 * loadFactor());
    const provider = await startReferenceProvider({ port: 0, processingDelayMs: 50, lifetimeSeconds });
    const proxy = withoutClock(provider.url);
    servers.push(proxy);
    try {
      const baseUrl = await listen(proxy);
      const dir = mkdtempSync(join(tmpdir(), "h2h-evidence-"));
      const only = ["callbacks.sandbox-clock", "callbacks.arrives", "callbacks.names-status"];
      const { exitCode, output, reportDir } = await certify(
        {
          H2H_BASE_URL: baseUrl,
          H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
          H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
          H2H_PROFILE: profileWith(dir, (p) => {
            p.sandboxClock = "required";
            (p.callbackTriggers as Record<string, unknown>).expired = {
              unconfirmedForSeconds: lifetimeSeconds,
            };
          }),
        },
        { only },
      );
      expect(exitCode, output).toBe(1);
      const report = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
      for (const kind of ["mobile commerce", "quasi-ecom"]) {
        const endpoint = `callbacks (${kind})`;
        const at = (check: string, label: string) =>
          report.checks.find((c) => c.endpoint === endpoint && c.check === check && c.case === label);
        expect(at("callbacks.sandbox-clock", "expired")).toMatchObject({ status: "failed", required: true });
        for (const check of ["callbacks.arrives", "callbacks.names-status"]) {
          expect(at(check, "expired")).toMatchObject({
            status: "not evaluated",
            blockedBy: { check: "callbacks.sandbox-clock", case: "expired" },
          });
          expect(at(check, "succeeded")?.status).toBe("passed");
        }
      }
      expect(report.warnings).toEqual([]);
      expect(report.errors).toEqual([]);
      // It did not wait out the lifetime (the run's own time).
      expect(report.durationMs).toBeLessThan(lifetimeSeconds * 1000);
    } finally {
      await provider.stop();
    }
  });
});
