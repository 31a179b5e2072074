/**
 * The clean-room sandbox, written from docs/api.md alone with conventions other than the reference
 * provider's on every open point, is certified green as its authors' profile describes it: with
 * three seeds, one at thorough depth. It has no sandbox clock: its orders' 5 s lifetime is waited
 * out at every depth, so the expiry pairs are judged at quick depth too. Its strings
 * have no length limit; the advisories show what it did with 10,000 characters.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  CALLBACK_SECRET,
  MERCHANTS,
  type RunningCleanroomProvider,
  startCleanroomProvider,
} from "../fixtures/providers/cleanroom/index.ts";
import { scaledMs } from "../fixtures/testing/index.ts";
import { REPORT_FILES, REPORT_KINDS } from "./reports/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";

const PROFILE = fileURLToPath(new URL("../fixtures/profiles/cleanroom.json", import.meta.url));
const [alpha, bravo] = MERCHANTS as [(typeof MERCHANTS)[0], (typeof MERCHANTS)[0]];

let provider: RunningCleanroomProvider;
beforeAll(async () => {
  provider = await startCleanroomProvider({ port: 0 });
});
// The two quick runs' specs, one after the other on one Vitest: its start-up is a good part of a
// run's CPU, and together they take about as long as the thorough run beside them.
const quickRunner = sharedSpecRunner();
afterAll(async () => {
  await quickRunner.close();
  await provider?.close();
});

describe("the clean-room sandbox, certified with its own profile", () => {
  // Side by side, in this process (a child per run paid its own start-up): each run mostly waits
  // out its orders' lifetime, and one Vitest runs one run at a time.
  it.concurrent.for([
    [1, "quick"],
    [2, "quick"],
    [3, "thorough"],
  ] as const)(
    "seed %i at %s depth: conformant, no secret in any report",
    { timeout: scaledMs(120_000) },
    async ([seed, depth], { expect }) => {
      const run = await certifyInProcess(
        {
          H2H_BASE_URL: provider.url,
          H2H_API_KEY: alpha.apiKey,
          H2H_API_KEY_2: bravo.apiKey,
          H2H_CALLBACK_SECRET: CALLBACK_SECRET,
          H2H_PROFILE: PROFILE,
          H2H_SEED: String(seed),
          H2H_DEPTH: depth,
        },
        // Every report a user gets, so that none of them may hold a secret.
        { reports: REPORT_KINDS, ...(depth === "quick" ? { specRunner: quickRunner.run } : {}) },
      );
      expect(run.exitCode, run.output).toBe(0);
      const { report, reportDir: dir } = run;
      expect(report.verdict).toBe("conformant");
      expect(
        report.checks.filter((c) => c.required && c.status !== "passed" && c.status !== "skipped"),
      ).toEqual([]);
      // No sandbox clock: expiry is waited out (5 s) at every depth, so the expiry pairs are judged.
      const lifecycle = report.checks.filter((c) => c.endpoint.startsWith("lifecycle ("));
      expect(lifecycle.filter((c) => c.status === "skipped").map((c) => `${c.case}: ${c.detail}`)).toEqual(
        [],
      );
      const expiry = lifecycle.filter((c) => c.case?.endsWith("advance the clock past the lifetime"));
      expect(expiry.length, "expiry pairs").toBeGreaterThan(4);
      expect(expiry.filter((c) => c.status !== "passed")).toEqual([]);
      // No length declared: 10,000 characters are sent, and what the target did is reported, not judged.
      const unlimited = report.checks.filter((c) => /maxLength none \(10000 characters\)/.test(c.case ?? ""));
      expect(unlimited.length, "advisories of the unlimited lengths").toBeGreaterThan(4);
      for (const advisory of unlimited) {
        expect(advisory.required).toBe(false);
        expect(advisory.detail).toMatch(/^accepted: HTTP 200/);
      }
      const written = readdirSync(dir);
      expect(written).toEqual(expect.arrayContaining(REPORT_KINDS.map((kind) => REPORT_FILES[kind])));
      for (const file of written) {
        const text = readFileSync(join(dir, file), "utf8");
        for (const secret of [alpha.apiKey, bravo.apiKey, CALLBACK_SECRET])
          expect(text.includes(secret), `${file} holds a secret`).toBe(false);
      }
    },
  );
});
