/**
 * Certifications one after another in one process, their specs in one kept Vitest worker (as the
 * mutation self-test runs them): each run's records follow its own profile, never the run's before.
 * The spec files are evaluated anew each run, the support modules and the contract are not.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";

fileTimeout(180_000);

const CHECK = "envelope.failure-data";
const specRunner = sharedSpecRunner();
let provider: RunningReferenceProvider;

beforeAll(async () => {
  provider = await startReferenceProvider({ port: 0 });
});
afterAll(async () => {
  await specRunner.close();
  await provider?.stop();
});

/** The reference profile, its file with or without gaps.failureData (which makes the check declared). */
function profileFile(declaresFailureData: boolean): string {
  const profile = JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8")) as {
    gaps: Record<string, unknown>;
  };
  if (!declaresFailureData) delete profile.gaps.failureData;
  const path = join(mkdtempSync(join(tmpdir(), "h2h-sequence-")), "profile.json");
  writeFileSync(path, JSON.stringify(profile));
  return path;
}

async function certify(declaresFailureData: boolean) {
  const { report, output } = await certifyInProcess(
    {
      H2H_BASE_URL: provider.url,
      H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
      H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
      H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
      H2H_PROFILE: profileFile(declaresFailureData),
      H2H_SEED: "5",
    },
    { specRunner: specRunner.run, specFiles: ["auth-and-validation.spec.ts"], only: [CHECK] },
  );
  const records = report.checks.filter((c) => c.check === CHECK);
  expect(records.length, output).toBeGreaterThan(0);
  return records;
}

describe("certifications in sequence, one kept spec worker", () => {
  it("each run's rule basis is its own profile's, in either order", async () => {
    for (const declares of [true, false, true]) {
      const records = await certify(declares);
      const kinds = new Set(records.map((c) => c.ruleSource?.kind));
      expect([...kinds], `declares gaps.failureData: ${declares}`).toEqual([
        declares ? "declared" : "advisory",
      ]);
    }
  });
});
