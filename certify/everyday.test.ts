/**
 * The everyday sandbox (fixtures/providers/everyday), written from docs/api.md alone on Express 5 with its
 * defaults and everyday idioms (trim() on the key, `\s` in its regexes, a strict JSON parser), is
 * certified green through the profile its team wrote: with three seeds, one at thorough depth.
 * What its idioms do with the suite's normalisable probes is reported as advisories.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  CALLBACK_SECRET,
  MERCHANTS,
  type RunningProvider,
  startEverydayProvider,
} from "../fixtures/providers/everyday/index.ts";
import { scaledMs } from "../fixtures/testing/index.ts";
import { REPORT_FILES, REPORT_KINDS } from "./reports/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";

const PROFILE = fileURLToPath(new URL("../fixtures/profiles/everyday.json", import.meta.url));

let provider: RunningProvider;
beforeAll(async () => {
  provider = await startEverydayProvider({ port: 0 });
});
const quickRunner = sharedSpecRunner();
afterAll(async () => {
  await quickRunner.close();
  await provider?.close();
});

describe("the everyday sandbox, certified with its own profile", () => {
  it.concurrent.for([
    [1, "quick"],
    [2, "quick"],
    [3, "thorough"],
  ] as const)(
    "seed %i at %s depth: conformant, no secret in any report",
    { timeout: scaledMs(150_000) },
    async ([seed, depth], { expect }) => {
      const run = await certifyInProcess(
        {
          H2H_BASE_URL: provider.url,
          H2H_API_KEY: MERCHANTS.north.apiKey,
          H2H_API_KEY_2: MERCHANTS.south.apiKey,
          H2H_CALLBACK_SECRET: CALLBACK_SECRET,
          H2H_PROFILE: PROFILE,
          H2H_SEED: String(seed),
          H2H_DEPTH: depth,
        },
        { reports: REPORT_KINDS, ...(depth === "quick" ? { specRunner: quickRunner.run } : {}) },
      );
      expect(run.exitCode, run.output).toBe(0);
      const { report, reportDir: dir } = run;
      expect(report.verdict).toBe("conformant");
      expect(
        report.checks.filter((c) => c.required && c.status !== "passed" && c.status !== "skipped"),
      ).toEqual([]);
      // trim() reads the key with a no-break space as the key: reported, never required.
      const padded = report.checks.filter(
        (c) => c.check === "behaviour.rejects-near-miss-api-key" && /no-break space/.test(c.case ?? ""),
      );
      expect(padded.length).toBe(8);
      for (const probe of padded) expect(probe.required).toBe(false);
      for (const file of readdirSync(dir)) {
        const text = readFileSync(join(dir, file), "utf8");
        for (const secret of [MERCHANTS.north.apiKey, MERCHANTS.south.apiKey, CALLBACK_SECRET])
          expect(text.includes(secret), `${file} holds a secret`).toBe(false);
      }
      expect(readdirSync(dir)).toEqual(
        expect.arrayContaining(REPORT_KINDS.map((kind) => REPORT_FILES[kind])),
      );
    },
  );
});
