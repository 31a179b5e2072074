/**
 * A short API key (four digits, this year's) is masked only where it stands whole: the reference
 * provider, behind a forwarder that takes the short key for its merchant's own, is certified as
 * it is, and no date, run id or other value holding those digits is masked by accident. The
 * console warns, naming the variable and the key's length.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  REFERENCE_API_KEYS,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout, type RunningForwarder, startForwarder } from "../fixtures/testing/index.ts";
import { certifyInProcess, type InProcessRun } from "./testing/certify-in-process.ts";

fileTimeout(180_000);

/** This year: the digits that dates, run ids and startedAt all hold. */
const SHORT_KEY = String(new Date().getUTCFullYear());

let provider: RunningReferenceProvider;
let forwarder: RunningForwarder;
let run: InProcessRun;

beforeAll(async () => {
  provider = await startReferenceProvider({ port: 0 });
  forwarder = await startForwarder({
    upstreamOf: () => provider.url,
    // The short key is merchant 1's: any other key (near misses too) goes on unchanged.
    rewrite: (req) => ({
      path: req.url ?? "/",
      headers:
        req.headers.authorization === `Bearer ${SHORT_KEY}`
          ? { ...req.headers, authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}` }
          : req.headers,
    }),
  });
  run = await certifyInProcess(
    { H2H_BASE_URL: forwarder.url, H2H_API_KEY: SHORT_KEY, H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2 },
    { specFiles: ["auth-and-validation.spec.ts"], reports: ["json", "junit", "html", "har"] },
  );
});

afterAll(async () => {
  await forwarder?.close();
  await provider?.stop();
});

describe("a secret shorter than 8 characters", () => {
  it("is certified as it is, with a warning naming the variable and the key's length", () => {
    expect(run.report.verdict, run.output).toBe("conformant");
    expect(run.output).toMatch(/warning: H2H_API_KEY is 4 character\(s\) long, shorter than 8/);
    expect(run.report.warnings.join("\n")).toMatch(/H2H_API_KEY is 4 character\(s\) long/);
  });

  it("leaves the dates and ids that hold its digits alone", () => {
    expect(run.report.startedAt.startsWith(`${SHORT_KEY}-`), run.report.startedAt).toBe(true);
    expect(run.report.runId).toContain(`run-${SHORT_KEY}`);
    // Every date the target answered with (dateCreated, dateUpdated, the sandbox clock's now).
    const dates = run.report.exchanges.flatMap(
      (e) => e.response.body.match(/\d{4}-\d\d-\d\dT[\d:.]+Z/g) ?? [],
    );
    expect(dates.length, "no dates in the answers").toBeGreaterThan(0);
    for (const date of dates) expect(date.startsWith(`${SHORT_KEY}-`), date).toBe(true);
  });

  it("is masked in every request's Authorization header, and no report holds it as a token", () => {
    const sent = run.report.exchanges.map(
      (e) => e.request.headers.authorization ?? e.request.headers.Authorization,
    );
    expect(sent.filter((value) => value === "Bearer ***").length).toBeGreaterThan(0);
    for (const name of readdirSync(run.reportDir)) {
      const text = readFileSync(join(run.reportDir, name), "utf8");
      expect(text, name).not.toContain(`Bearer ${SHORT_KEY}`);
      expect(text, name).not.toContain(`"${SHORT_KEY}"`);
      // A date masked by accident reads `***-12-06`.
      expect(text, name).not.toMatch(/\*\*\*-\d\d-\d\d/);
    }
  });
});
