/**
 * `npm run certify` as a user runs it (a child process): green against the bundled reference
 * provider with every report written and no secret anywhere; a bad profile refused before any
 * request, naming the key (exit 64). In this process, as the CLI runs them but without a child's
 * start-up: one clear failure, fast, against a target that is not there; the cross-merchant checks
 * skipped by name without a second key.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_CARD } from "../fixtures/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { commandArgs, fileTimeout } from "../fixtures/testing/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { REPORT_FILES } from "./reports/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";

fileTimeout(60_000);

function certify(env: Record<string, string>): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, commandArgs("certify"), {
      // Set-but-empty H2H_* variables are refused (exit 64): the outer ones are dropped instead.
      env: {
        ...Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !name.startsWith("H2H_") || name === "H2H_WORKERS"),
        ),
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

const FORBIDDEN = [
  TEST_CARD.number,
  `"cvc":"${TEST_CARD.cvc}"`,
  `\\"cvc\\":\\"${TEST_CARD.cvc}\\"`,
  REFERENCE_API_KEYS.merchant1,
  REFERENCE_API_KEYS.merchant2,
  REFERENCE_CALLBACK_SECRET,
];

describe("npm run certify", () => {
  const specRunner = sharedSpecRunner();
  afterAll(() => specRunner.close());

  it("is green against the reference provider, writes JUnit, JSON, HTML and HAR, and leaks no secret", async () => {
    const reportDir = mkdtempSync(join(tmpdir(), "h2h-certify-test-"));
    // Spec files side by side in two threads, as a user's default run has them (at least two):
    // npm test gives the other runs one thread (H2H_WORKERS=1 in vitest.config.ts) to save CPU.
    const { exitCode, output } = await certify({ H2H_REPORT_DIR: reportDir, H2H_WORKERS: "2" });
    expect(exitCode, output).toBe(0);
    expect(output).toContain("verdict: CONFORMANT");
    expect(readdirSync(reportDir).sort()).toEqual(Object.values(REPORT_FILES).sort());

    const report = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
    expect(report.verdict).toBe("conformant");
    expect(report.totals.failed).toBe(0);
    const endpoints = report.summary.map((s) => s.endpoint);
    for (const endpoint of [
      "createMobileCommerceOrder",
      "confirmMobileCommerceOrder",
      "createQuasiEcomOrder",
      "confirmQuasiEcomOrder",
    ]) {
      expect(endpoints).toContain(endpoint);
    }
    // Every callback status, for both order kinds, was checked.
    for (const kind of ["mobile commerce", "quasi-ecom"]) {
      for (const status of ["succeeded", "expired", "failed_by_terminal", "succeeded_by_appeal"]) {
        expect(
          report.checks.some(
            (c) =>
              c.endpoint === `callbacks (${kind})` &&
              c.check === "callbacks.arrives" &&
              c.case === status &&
              c.status === "passed",
          ),
        ).toBe(true);
      }
    }
    const har = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.har), "utf8")) as {
      log: { entries: unknown[] };
    };
    // Every exchange, and every callback delivery as an entry of its own.
    expect(report.callbacks.length).toBeGreaterThan(0);
    expect(har.log.entries.length).toBe(report.exchanges.length + report.callbacks.length);
    expect(report.exchanges.some((e) => e.request.body.includes("requisites"))).toBe(true);
    const junit = readFileSync(join(reportDir, REPORT_FILES.junit), "utf8");
    expect(junit).toMatch(/<testsuites [^>]*tests="\d+" failures="0"/);
    expect(readFileSync(join(reportDir, REPORT_FILES.html), "utf8")).toContain("CONFORMANT");

    // The masked card is there (so the check below is not vacuous), the full one nowhere.
    expect(
      report.exchanges.some((e) => e.request.body.includes(`************${TEST_CARD.number.slice(-4)}`)),
    ).toBe(true);
    for (const [name, text] of [
      ...readdirSync(reportDir).map((f) => [f, readFileSync(join(reportDir, f), "utf8")]),
      ["console", output],
    ]) {
      for (const secret of FORBIDDEN)
        expect(text?.includes(secret), `${name} holds ${secret.slice(0, 6)}…`).toBe(false);
    }
  });

  it("fails fast with one clear message naming the URL when the target is not there", async () => {
    const { exitCode, output, report, reportDir } = await certifyInProcess(
      { H2H_BASE_URL: "http://127.0.0.1:1" },
      { specRunner: specRunner.run, reports: ["json", "junit"] },
    );
    expect(exitCode).toBe(2);
    expect(output).toMatch(/cannot reach the target: http:\/\/127\.0\.0\.1:1\/\S+: ECONNREFUSED/);
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
    expect(report.verdict).toBe("not run");
    expect(report.checks.map((c) => [c.check, c.status])).toEqual([["target.reachable", "failed"]]);
    expect(report.errors[0]).toMatch(/127\.0\.0\.1:1.*ECONNREFUSED/);
    expect(readFileSync(join(reportDir, REPORT_FILES.junit), "utf8")).toContain("ECONNREFUSED");
  });

  it("skips the cross-merchant checks by name, with the reason, when there is no second key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-certify-test-"));
    const profile = JSON.parse(
      readFileSync(fileURLToPath(new URL("../fixtures/profiles/reference.json", import.meta.url)), "utf8"),
    );
    // Another name: the target is then treated as foreign, so no reference key is filled in.
    profile.name = "reference-as-foreign";
    writeFileSync(join(dir, "profile.json"), JSON.stringify(profile));
    const provider = await startReferenceProvider({ port: 0 });
    try {
      // A whole run: what else is skipped is under test too.
      const { exitCode, output, report, reportDir } = await certifyInProcess(
        {
          H2H_BASE_URL: provider.url,
          H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
          H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
          H2H_PROFILE: join(dir, "profile.json"),
        },
        { specRunner: specRunner.run, reports: ["json", "junit"] },
      );
      expect(exitCode, output).toBe(0);
      // Skipped for the missing key: the cross-merchant checks, and the lifecycle's moves by the other
      // merchant with the proofs after them.
      const skipped = report.checks.filter(
        (c) => c.status === "skipped" && c.reason?.match(/H2H_API_KEY_2 is not set/),
      );
      expect([...new Set(skipped.map((c) => c.check))].sort()).toEqual([
        "behaviour.accepts-merchant-order-id-of-other-merchant",
        "behaviour.refusal-changes-nothing",
        "behaviour.rejects-other-merchants-order",
        "callbacks.follow-lifecycle",
        "semantics.refusal-keeps-timer",
      ]);
      // Nothing else is skipped but a constraint no request can break alone (derived negatives).
      const others = report.checks.filter((c) => c.status === "skipped" && !skipped.includes(c));
      for (const check of others) expect(check.reason).toMatch(/no request breaks this constraint alone/);
      expect(readFileSync(join(reportDir, REPORT_FILES.junit), "utf8")).toContain(
        '<skipped message="H2H_API_KEY_2 is not set',
      );
      expect(output).toMatch(/skipped: behaviour\.rejects-other-merchants-order \(H2H_API_KEY_2 is not set/);
    } finally {
      await provider.stop();
    }
  });

  it("refuses a bad profile before sending anything, naming the bad key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-certify-test-"));
    const reference = JSON.parse(
      readFileSync(fileURLToPath(new URL("../fixtures/profiles/reference.json", import.meta.url)), "utf8"),
    );
    reference.methods.quasi_ecom.methodID = "201";
    reference.timeouts.requestMss = 5;
    const profile = join(dir, "bad.json");
    writeFileSync(profile, JSON.stringify(reference));
    const { exitCode, output } = await certify({
      H2H_PROFILE: profile,
      H2H_BASE_URL: "http://127.0.0.1:1",
      H2H_REPORT_DIR: dir,
    });
    expect(exitCode).toBe(64);
    expect(output).toContain(`invalid profile ${profile}`);
    expect(output).toContain('methods.quasi_ecom.methodID is the string "201": expected a number');
    expect(output).toContain('timeouts.requestMss is not a known key (did you mean "requestMs"?)');
    expect(output).not.toContain("cannot reach");
  });
});
