/**
 * Judging a long session holds what a short one does: per check and endpoint, the failures with
 * their evidence up to a cap, a record counting the rest and one counting the passes. Every
 * result is still counted, and the reports list each listed failure's evidence.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readProfile } from "../../contract/index.ts";
import { createMasker } from "../../contract/kit/index.ts";
import { SAMPLE_ORDER_RECORD, sampleSuccessEnvelope } from "../../fixtures/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import { type CheckRecord, summarize } from "../engine/run-model.ts";
import { judgeSession } from "./judge.ts";
import { LISTED_IN_FULL, writeObserveReports } from "./report.ts";
import { type ObservedExchange, ObserveSession } from "./session.ts";
import { LISTED_PER_CHECK } from "./tally.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const text = (value: unknown) => {
  const t = JSON.stringify(value);
  return { text: t, bytes: Buffer.byteLength(t) };
};
const tail = (i: number) => String(i).padStart(12, "0");

/** N mobile-commerce creations, each answered with its own order; every fourth answer says text/plain. */
function sessionOf(n: number): ObserveSession {
  const session = new ObserveSession(65_536);
  for (let i = 0; i < n; i++) {
    const merchantOrderID = `m-${i}`;
    const exchange: ObservedExchange = {
      id: session.exchangeId(),
      startedAtMs: 1_700_000_000_000 + i * 10,
      durationMs: 5,
      method: "POST",
      path: "/api/v1/payin/mobile-commerce/h2h",
      requestHeaders: { "content-type": "application/json", authorization: "Bearer k" },
      requestBody: text({ amount: 1500, currency: "RUB", methodID: 101, merchantOrderID }),
      response: {
        status: 200,
        headers: { "content-type": i % 4 === 3 ? "text/plain" : "application/json" },
        body: text(
          sampleSuccessEnvelope(
            {
              ...SAMPLE_ORDER_RECORD,
              id: `c67ce84c-9198-4065-a3d5-${tail(i)}`,
              idTransactionMerchant: merchantOrderID,
            },
            `392c8b7c-dc98-4e9d-8238-${tail(i)}`,
          ),
        ),
      },
    };
    session.beginExchange(exchange);
  }
  return session;
}

const results = (checks: CheckRecord[]) => {
  const { totals } = summarize(checks);
  return totals.passed + totals.failed + totals.notEvaluated + totals.advisories + totals.skipped;
};

describe("judging a long observe session", async () => {
  const profile = await readProfile(REFERENCE_PROFILE_PATH);
  const judged = (n: number) =>
    judgeSession(sessionOf(n), { profile, signed: false, callbacksObserved: false, endedAtMs: 0 });

  it("keeps as many check records for 10,000 exchanges as for 1,000, and counts every result", () => {
    const short = judged(1_000);
    const long = judged(10_000);
    const all = (j: typeof short) => [...j.provider.checks, ...j.merchant.checks];
    // One record per result, as before, would be ten times as many.
    expect(all(long).length).toBe(all(short).length);
    expect(all(long).length).toBeLessThan(200);
    // Each exchange runs the same checks: ten times the exchanges, ten times the results, but for
    // the checks judged once over the whole session.
    const once = (j: typeof short) => all(j).filter((c) => c.endpoint === "(all endpoints)").length;
    expect(results(all(long)) - once(long)).toBe(10 * (results(all(short)) - once(short)));

    // The text/plain answers: every one counted, the first listed with their evidence, the rest counted.
    const contentType = long.provider.checks.filter((c) => c.check === "envelope.json-content-type");
    const failed = contentType.filter((c) => c.status === "failed");
    expect(failed.filter((c) => c.count === undefined).map((c) => c.exchanges[0])).toEqual(
      Array.from({ length: LISTED_PER_CHECK }, (_, k) => `x${4 * k + 4}`),
    );
    expect(failed.filter((c) => c.count !== undefined)).toEqual([
      expect.objectContaining({ count: 2_500 - LISTED_PER_CHECK, exchanges: [], required: true }),
    ]);
    expect(contentType.find((c) => c.status === "passed")).toMatchObject({
      count: 7_500,
      exchanges: ["x1"],
      case: "7500 passed",
    });
    expect(long.provider.failed).toBeGreaterThanOrEqual(2_500);
    expect(long.lines.provider).toMatch(
      /^\d+ violation\(s\) of envelope\.json-content-type(, [a-z.-]+)* in 10000 exchanges and 0 callbacks/,
    );
    expect(long.lines.merchant).toMatch(/^no violation in 10000 exchanges/);
  });

  it("writes reports that list each listed failure's evidence and count what they leave out", async () => {
    const session = sessionOf(3_000);
    const judgement = judgeSession(session, {
      profile,
      signed: false,
      callbacksObserved: false,
      endedAtMs: 0,
    });
    const dir = mkdtempSync(join(tmpdir(), "h2h-observe-judge-"));
    dirs.push(dir);
    const paths = await writeObserveReports(
      {
        judgement,
        session,
        profile,
        upstream: "http://127.0.0.1:1",
        reference: true,
        startedAt: new Date(0),
        finishedAt: new Date(1_000),
        stoppedBecause: "test",
        sinkRefusals: {},
      },
      dir,
      createMasker({ secrets: [] }),
    );
    const own = JSON.parse(readFileSync(paths.json, "utf8"));
    const listed = new Set<string>(own.exchanges.map((e: { id: string }) => e.id));
    // The first ones, and every exchange a listed check names, however late in the session.
    expect(listed.has("x1") && listed.has(`x${LISTED_IN_FULL}`)).toBe(true);
    for (const record of own.provider.checks as CheckRecord[])
      for (const id of record.exchanges) expect(listed.has(id), `${record.check} ${id}`).toBe(true);
    expect(own.counts.exchangesNotListed).toBe(3_000 - listed.size);
    expect(own.counts.exchangesNotListed).toBeGreaterThan(0);
    expect(own.provider.results.failed).toBe(judgement.provider.failed);
    // The usual set counts results, not records, and says what was left out.
    const run = JSON.parse(readFileSync(paths.json.replace("h2h-observe.json", "h2h-certify.json"), "utf8"));
    expect(run.totals.passed + run.totals.failed).toBeGreaterThan(3_000);
    expect(run.warnings.join("\n")).toContain(`${own.counts.exchangesNotListed} exchange(s)`);
  });
});
