/**
 * A sandbox clock the profile declares (`"sandboxClock": true`) that answers 404: the suite does
 * what its warning says and waits out the order's lifetime, at quick depth too, so the expiry
 * checks are judged, never skipped. A provider that accepts a confirmation after expiry is then
 * not conformant; a correct one is conformant with those checks evaluated.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { SANDBOX_CLOCK_ADVANCE_PATH } from "../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout, loadFactor, type RunningForwarder, startForwarder } from "../fixtures/testing/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";
import { type HostileTarget, startHostileTarget } from "./testing/hostile-target.ts";

fileTimeout(120_000);

/**
 * The orders' lifetime: short, so that waiting it out costs a few seconds, and stretched by the
 * load: on a busy machine the probes' few requests alone can outlast 3 s.
 */
const LOAD = loadFactor();
const LIFETIME_SECONDS = Math.ceil(3 * LOAD);

const CONFIRM_AFTER_EXPIRY = "behaviour.rejects-confirm-after-expiry";
const LATE_CHECKS = ["behaviour.confirms-late-in-lifetime", "semantics.timer-counts-down-lifetime"];

/** The spec file whose probes wait expiry out and hold the checks below (the lifecycle's). */
const EXPIRY_SPECS = ["lifecycle.spec.ts"];

/** Answers every request 404 `not_found`, as a target without the clock extension does. */
let noClock: HostileTarget;
const running: { stop(): Promise<unknown> }[] = [];

beforeAll(async () => {
  noClock = await startHostileTarget((_request, _body, response) => {
    response.writeHead(404, { "content-type": "application/json" });
    response.end(
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
  });
});
afterAll(async () => {
  for (const server of running) await server.stop();
  await noClock?.stop();
});

/** The reference provider (with `faults`) behind a forwarder whose clock path answers 404. */
async function providerWithoutClock(faults: string[], lifetimeSeconds = LIFETIME_SECONDS): Promise<string> {
  const provider: RunningReferenceProvider = await startReferenceProvider({
    port: 0,
    faults,
    lifetimeSeconds,
    processingDelayMs: 50,
  });
  running.push(provider);
  const forwarder: RunningForwarder = await startForwarder({
    upstreamOf: (req) =>
      (req.url ?? "").startsWith(SANDBOX_CLOCK_ADVANCE_PATH) ? noClock.url : provider.url,
  });
  running.push({ stop: () => forwarder.close() });
  return forwarder.url;
}

/**
 * Certifies with the profile's expiry at `lifetimeSeconds`, the lifecycle's spec file alone: the
 * others hold none of the checks this file is about.
 */
async function certify(
  baseUrl: string,
  lifetimeSeconds = LIFETIME_SECONDS,
  options: { only?: string[]; deadlineSeconds?: number } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), "h2h-expiry-"));
  const profile = JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8")) as Record<string, unknown>;
  (profile.callbackTriggers as Record<string, unknown>).expired = { unconfirmedForSeconds: lifetimeSeconds };
  const profilePath = join(dir, "profile.json");
  writeFileSync(profilePath, JSON.stringify(profile));
  return certifyInProcess(
    {
      H2H_BASE_URL: baseUrl,
      H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
      H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
      H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
      H2H_PROFILE: profilePath,
      H2H_SEED: "5",
    },
    { specFiles: EXPIRY_SPECS, ...options },
  );
}

/** The lifecycle records of orders that expire (their case names the expired state or the move past the lifetime). */
const expiryRecords = (report: RunReport) =>
  report.checks.filter(
    (c) =>
      c.endpoint.startsWith("lifecycle (") &&
      (c.case?.startsWith("expired:") || c.case?.endsWith("advance the clock past the lifetime")),
  );

// The three tests side by side, each on a Vitest of its own: each mostly waits for its orders to
// expire, and one Vitest runs one run at a time (a queue of two took 58 s of a loaded npm test;
// a Vitest's start-up is under 2 s of CPU).
describe.concurrent("a declared sandbox clock that answers 404, at quick depth", () => {
  it("a provider that accepts a confirmation after expiry is not conformant", async ({ expect }) => {
    // Only the check the fault breaks: the correct provider's run below shows the rest pass.
    const { exitCode, output, report } = await certify(
      await providerWithoutClock(["confirm-after-expiry-accepted"]),
      LIFETIME_SECONDS,
      { only: [CONFIRM_AFTER_EXPIRY] },
    );
    expect(exitCode, output).toBe(1);
    expect(report.verdict).toBe("not conformant");
    const afterExpiry = report.checks.filter((c) => c.check === CONFIRM_AFTER_EXPIRY);
    expect(afterExpiry.length).toBeGreaterThan(0);
    expect(afterExpiry.some((c) => c.status === "failed" && c.required)).toBe(true);
    expect(afterExpiry.filter((c) => c.status === "skipped")).toEqual([]);
  });

  it("a provider whose orders expire at half the lifetime is not conformant: the late confirmation, waited for, is refused", async ({
    expect,
  }) => {
    // Long enough that the wait (0.6 of it) ends well before the whole lifetime, on a loaded machine too.
    const lifetime = Math.ceil(6 * LOAD);
    const { exitCode, output, report } = await certify(
      await providerWithoutClock(["expires-at-half-lifetime"], lifetime),
      lifetime,
      { only: LATE_CHECKS },
    );
    expect(exitCode, output).toBe(1);
    const late = report.checks.filter((c) => c.check === LATE_CHECKS[0]);
    expect(late.map((c) => c.status)).toEqual(["failed", "failed"]);
    expect(late[0]?.detail).toMatch(
      /the order no longer took its confirmation before its declared lifetime ended/,
    );
  });

  it("a correct provider is conformant, its expiry checks judged after waiting out the lifetime", async ({
    expect,
  }) => {
    const { exitCode, output, report } = await certify(await providerWithoutClock([]), LIFETIME_SECONDS);
    expect(exitCode, output).toBe(0);
    expect(report.verdict).toBe("conformant");
    const expiry = expiryRecords(report);
    expect(expiry.length).toBeGreaterThan(8);
    expect(
      expiry.filter((c) => c.status !== "passed").map((c) => `${c.check} ${c.case}: ${c.detail}`),
    ).toEqual([]);
    expect(report.checks.filter((c) => c.check === CONFIRM_AFTER_EXPIRY).length).toBeGreaterThan(0);
    // Late in the lifetime, by waiting: judged, one order of each kind, each check.
    const late = report.checks.filter((c) => LATE_CHECKS.includes(c.check));
    expect(late.map((c) => `${c.check} ${c.status}`).sort()).toEqual(
      LATE_CHECKS.flatMap((check) => [`${check} passed`, `${check} passed`]).sort(),
    );
    expect(report.checks.filter((c) => /done at --depth thorough/.test(c.detail ?? ""))).toEqual([]);
    expect(output).toMatch(
      new RegExp(
        `warning: the profile declares a sandbox clock, but it failed \\(HTTP 404 .*\\): the lifecycle's expiry probes wait out the order's lifetime \\(${LIFETIME_SECONDS} s\\) instead`,
      ),
    );
  });

  it("a provider that fails a required check is not conformant, though its expiry could not be waited out", async ({
    expect,
  }) => {
    // As below, with a fault a check of the lifecycle proves: its failure stands beside what was not judged.
    const only = ["behaviour.rejects-confirm-after-expiry", "behaviour.rejects-wrong-code"];
    const lifetime = Math.ceil(30 * LOAD);
    const { exitCode, output, report } = await certify(
      await providerWithoutClock(["wrong-code-accepted"], lifetime),
      lifetime,
      { deadlineSeconds: Math.ceil(20 * LOAD), only },
    );
    expect(exitCode, output).toBe(1);
    expect(report.verdict).toBe("not conformant");
    expect(
      report.checks.some((c) => c.check === "behaviour.rejects-wrong-code" && c.status === "failed"),
    ).toBe(true);
    expect(report.checks.some((c) => c.status === "not evaluated")).toBe(true);
    expect(report.errors).toEqual([]);
    expect(report.warnings.some((w) => /could not be evaluated/.test(w))).toBe(true);
  });

  it("expiry that cannot be waited out before the deadline is not evaluated, never skipped: not run", async ({
    expect,
  }) => {
    // A 30 s lifetime and a 20 s deadline (both stretched by the load, so that what needs no
    // expiry is done before the deadline); only the lifecycle's checks, so nothing else waits.
    const only = ["behaviour.rejects-confirm-after-expiry", "callbacks.follow-lifecycle", ...LATE_CHECKS];
    const lifetime = Math.ceil(30 * LOAD);
    const { exitCode, output, report } = await certify(await providerWithoutClock([], lifetime), lifetime, {
      deadlineSeconds: Math.ceil(20 * LOAD),
      only,
    });
    expect(exitCode, output).toBe(2);
    expect(report.verdict).toBe("not run");
    expect(report.errors[0]).toMatch(/could not be evaluated/);
    const expiry = expiryRecords(report);
    expect(expiry.length).toBeGreaterThan(8);
    for (const record of expiry) {
      expect(record.status, `${record.check} ${record.case}`).toBe("not evaluated");
      expect(record.detail).toMatch(
        new RegExp(`waiting out the ${lifetime} s lifetime, and the run's deadline leaves \\d+ s`),
      );
    }
    // The late confirmation's wait does not fit either: not evaluated, saying why.
    const late = report.checks.filter((c) => LATE_CHECKS.includes(c.check));
    expect(late.length).toBe(4);
    for (const record of late) {
      expect(record.status, `${record.check} ${record.case}`).toBe("not evaluated");
      expect(record.detail).toMatch(/of its \d+ s lifetime, and the run's deadline leaves \d+ s/);
    }
    expect(report.checks.filter((c) => c.status === "skipped")).toEqual([]);
    // What needs no expiry was judged.
    expect(report.checks.filter((c) => c.status === "passed").length).toBeGreaterThan(10);
  });
});
