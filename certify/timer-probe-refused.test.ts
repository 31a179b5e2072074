/**
 * A timer is read from an accepted confirmation only: when a target refuses the timer probe's
 * confirmations (here a forwarder answers 404 to every confirmation), the timer check is not
 * evaluated, naming the refusals, and never fails for a timer that was never shown.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout, type RunningForwarder, startForwarder } from "../fixtures/testing/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";

fileTimeout(120_000);

let provider: RunningReferenceProvider;
let forwarder: RunningForwarder;
let report: RunReport;
let output: string;

beforeAll(async () => {
  provider = await startReferenceProvider({ port: 0 });
  forwarder = await startForwarder({
    upstreamOf: () => provider.url,
    rewrite: (req) =>
      /-confirm\/h2h$/.test(req.url ?? "") ? undefined : { path: req.url ?? "/", headers: req.headers },
  });
  const run = await certifyInProcess(
    {
      H2H_BASE_URL: forwarder.url,
      H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
      H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
      H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
      H2H_PROFILE: REFERENCE_PROFILE_PATH,
      H2H_SEED: "3",
    },
    { specFiles: ["lifecycle.spec.ts"], only: ["semantics.timer-follows-clock"] },
  );
  report = run.report;
  output = run.output;
}, 110_000);
afterAll(async () => {
  await forwarder?.close();
  await provider?.stop();
});

describe("the timer probe behind a target that refuses its confirmations", () => {
  it("leaves semantics.timer-follows-clock not evaluated, naming the refusals, never failed", () => {
    const timer = report.checks.filter((c) => c.check === "semantics.timer-follows-clock");
    expect(timer.length, output).toBe(2);
    for (const record of timer) {
      expect(record.status, record.detail).toBe("not evaluated");
      expect(record.detail).toMatch(
        /confirmations were not all accepted \(.*HTTP 404.*\): no timers to compare/,
      );
    }
  });
});
