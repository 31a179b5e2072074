/**
 * Bounded evidence, whatever the bytes: certify against hostile loopback targets ends in a
 * verdict with parseable reports whose size is bounded in bytes as written, and a peak RSS (GNU
 * time, the largest of certify's processes) under 1 GiB:
 * - 5 MB answers (each kept cut at the profile's limit, with its real size), JSON and 0x01
 *   control bytes (each `\u0001` in the reports, six bytes for one);
 * - a gzip bomb of zeros (decoded only up to the limit), and JSON nested 10,000 deep
 *   (pretty-printed reports stay bounded);
 * - a provider that floods its own webhook URL: the excess is counted and reported, never
 *   stored, and the flood is no retry of the order (callbacks.retry-policy passes).
 * The four hostile answers come in turn in one run (one process, one peak RSS, under the
 * load of them all), each test judging its answers; the flood is a run of its own. Each run
 * prints its peak RSS: `npx vitest run --project suite certify/bounded-evidence.test.ts`.
 * Each runs only the spec files it needs (see SPEC), and the runs go side by side.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { REPORT_FILES } from "./reports/index.ts";
import { type HostileTarget, startHostileTarget, writeHostileProfile } from "./testing/hostile-target.ts";
import { GNU_TIME, spawnCertify } from "./testing/spawn-certify.ts";

fileTimeout(300_000);

const BODY_BYTES = 5 * 1024 * 1024;
const LIMIT = 64 * 1024;
const ONE_GIB_IN_KIB = 1024 * 1024;

/** A body as the JSON and HAR reports write it, quotes left out. */
const written = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

interface Answer {
  headers: Record<string, string | number>;
  body: Buffer;
}

/**
 * The contract spec files a run needs: enough answers that, kept whole, they would pass the RSS
 * bound many times over, and no more (the rest of the contract adds time, not proof).
 */
const SPEC = {
  /**
   * With auth-and-validation's, some 260 answers of the four hostile kinds in turn: a quarter
   * of them 5 MB of 0x01 (30 MB each as written, 1.9 GB in all), a quarter 100 MB decoded, a
   * quarter 10,000 levels pretty-printed (200 MB of indent).
   */
  derivedNegatives: "certify/specs/derived-negatives.spec.ts",
  authAndValidation: "certify/specs/auth-and-validation.spec.ts",
  /** The retry scenario, whose order's callback URL the flood aims at. */
  callbacks: "certify/specs/callbacks.spec.ts",
} as const;

/** Certifies a target that gives these answers in turn, with only `specFiles`. */
async function certifyHostile(answers: readonly Answer[], specFiles: readonly string[]) {
  let next = 0;
  const target: HostileTarget = await startHostileTarget((_request, _body, response) => {
    const answer = answers[next++ % answers.length] as Answer;
    response.writeHead(200, answer.headers);
    response.end(answer.body);
  });
  try {
    const dir = mkdtempSync(join(tmpdir(), "h2h-bounded-"));
    const reportDir = join(dir, "reports");
    const run = await spawnCertify(
      {
        H2H_BASE_URL: target.url,
        H2H_API_KEY: "bounded-evidence-key",
        // Runs side by side on a loaded machine: time enough for each answer (a hostile target
        // sends no callback, so the callback wait stays short).
        H2H_PROFILE: writeHostileProfile(dir, {
          limits: { maxBodyBytes: LIMIT },
          timeouts: { requestMs: 15_000, callbackMs: 1_000 },
        }),
        H2H_REPORT_DIR: reportDir,
      },
      { measureRss: true, specFiles },
    );
    const file = (kind: keyof typeof REPORT_FILES) => join(reportDir, REPORT_FILES[kind]);
    expect(existsSync(file("json")), `no report written:\n${run.output}`).toBe(true);
    const report = JSON.parse(readFileSync(file("json"), "utf8")) as RunReport;
    JSON.parse(readFileSync(file("har"), "utf8"));
    expect(readFileSync(file("junit"), "utf8")).toMatch(/<testsuites /);
    expect(readFileSync(file("html"), "utf8")).toMatch(/<\/html>\s*$/);
    const sizes = { json: statSync(file("json")).size, har: statSync(file("har")).size };
    return { ...run, report, sizes };
  } finally {
    await target.stop();
  }
}

/**
 * Not conformant (its answers are no envelopes and too large); or not run when the target also reset
 * a connection before answering: a transport fault, said as the run's only error, never a resend.
 */
function expectJudged(run: Awaited<ReturnType<typeof certifyHostile>>) {
  if (run.report.verdict === "not run") {
    expect(run.exitCode, run.output).toBe(2);
    expect(run.report.errors.length, run.output).toBeGreaterThan(0);
    for (const error of run.report.errors) expect(error, run.output).toMatch(/^transport faults: /);
    return;
  }
  expect(run.exitCode, run.output).toBe(1);
  expect(run.output).toContain("verdict: NOT CONFORMANT");
  expect(run.report.verdict).toBe("not conformant");
}

function expectBoundedRun(run: Awaited<ReturnType<typeof certifyHostile>>, label: string) {
  expect(run.maxRssKiB, "GNU time printed no peak RSS").toBeDefined();
  const rssMiB = Math.round((run.maxRssKiB as number) / 1024);
  console.log(
    `${label}: peak RSS ${rssMiB} MiB, JSON report ${(run.sizes.json / 2 ** 20).toFixed(1)} MiB, HAR ${(run.sizes.har / 2 ** 20).toFixed(1)} MiB, ${run.report.exchanges.length} exchanges`,
  );
  expect(run.maxRssKiB as number).toBeLessThan(ONE_GIB_IN_KIB);
  // Each exchange's bodies within the limit as written: the reports are bounded by their count.
  const perExchange = 2 * LIMIT + 16 * 1024;
  expect(run.sizes.har).toBeLessThan(run.report.exchanges.length * perExchange + 4 * 2 ** 20);
  for (const exchange of run.report.exchanges) {
    expect(written(exchange.response.body)).toBeLessThanOrEqual(LIMIT);
    expect(written(exchange.request.body)).toBeLessThanOrEqual(LIMIT);
  }
}

const JSON_5MB = Buffer.from(`{"codeError":"0","pad":"${"x".repeat(BODY_BYTES - 26)}"}`);
const CONTROLS_5MB = Buffer.alloc(BODY_BYTES, 0x01);
const DEPTH = 10_000;
const DEEP = Buffer.from(`${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`);

type HostileRun = Awaited<ReturnType<typeof certifyHostile>>;
let hostileRun: Promise<HostileRun> | undefined;

/**
 * The one run both hostile-body tests judge, started by the first to ask: 5 MB of JSON, 5 MB of
 * 0x01, a gzip bomb and JSON nested 10,000 deep, in turn.
 */
function hostileBodiesRun(): Promise<HostileRun> {
  if (hostileRun) return hostileRun;
  const fiveMb = { "content-type": "application/json", "content-length": BODY_BYTES };
  const bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024), { level: 9 });
  hostileRun = certifyHostile(
    [
      { headers: fiveMb, body: JSON_5MB },
      {
        headers: {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": bomb.length,
        },
        body: bomb,
      },
      { headers: fiveMb, body: CONTROLS_5MB },
      { headers: { "content-type": "application/json", "content-length": DEEP.length }, body: DEEP },
    ],
    [SPEC.derivedNegatives, SPEC.authAndValidation],
  );
  return hostileRun;
}

/** The run's exchanges by the answer they met (the headers are kept when a body is not). */
function byAnswer(run: HostileRun) {
  const all = run.report.exchanges;
  const length = (e: RunReport["exchanges"][number]) => e.response.headers["content-length"];
  const bombs = all.filter((e) => e.response.headers["content-encoding"] === "gzip");
  const rest = all.filter((e) => !bombs.includes(e));
  const fiveMb = rest.filter((e) => length(e) === String(BODY_BYTES));
  const nested = rest.filter((e) => length(e) === String(DEEP.length));
  // Every exchange met one of the four answers.
  expect(bombs.length + fiveMb.length + nested.length).toBe(all.length);
  return { bombs, fiveMb, nested };
}

/**
 * 64 KiB of single control bytes is 384 KiB as written: each answer is cut at the limit as
 * written, or (past the run's bound) kept without its body; both are counted.
 */
function expectEveryBodyCut(
  run: Awaited<ReturnType<typeof certifyHostile>>,
  exchanges: RunReport["exchanges"] = run.report.exchanges,
) {
  const droppedOf = (list: RunReport["exchanges"]) => list.filter((e) => e.response.evidenceCut?.runBound);
  const cutOf = (list: RunReport["exchanges"]) =>
    list.filter((e) => e.response.evidenceCut && !e.response.evidenceCut.runBound);
  const [cut, dropped] = [cutOf(exchanges), droppedOf(exchanges)];
  expect(cut.length).toBeGreaterThan(10);
  for (const exchange of cut)
    expect(exchange.response.evidenceCut).toEqual({ serialisedBytes: 6 * LIMIT, limitBytes: LIMIT });
  for (const exchange of dropped) expect(exchange.response.body).toBe("");
  expect(cut.length + dropped.length).toBe(exchanges.length);
  // The run counts every cut, these and any other answer's.
  const all = run.report.exchanges;
  expect(run.report.evidenceBounds?.exchanges).toMatchObject({
    bodiesCut: cutOf(all).length,
    bodiesDropped: droppedOf(all).length,
  });
}

/**
 * The reference provider behind a loopback proxy that, before it answers the creation of an order
 * whose callback URL the sink refuses (the retry scenario's), floods that URL: 100 callbacks of
 * orders that do not exist, then `floodSize` with no order id at all.
 */
async function floodingProxy(provider: RunningReferenceProvider, floodSize: number) {
  let flooded = 0;
  let started = false;
  const flood = async (url: string) => {
    const send = async (body: string) => {
      const response = await request(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
      await response.body.dump();
      flooded += 1;
    };
    // Orders that do not exist, each delivered once: stored (within the sink's bounds), never attempts.
    for (let i = 0; i < 100; i++) await send(JSON.stringify({ id: `flood-${i}`, status: "succeeded" }));
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < floodSize; i = next++) await send(FLOOD_BODY);
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  };
  const target = await startHostileTarget((incoming, body, response) => {
    void (async () => {
      const webHook = (() => {
        try {
          return (JSON.parse(body) as { metadata?: { webHook?: unknown } }).metadata?.webHook;
        } catch {
          return undefined;
        }
      })();
      if (typeof webHook === "string" && webHook.includes("/refuse/") && !started) {
        started = true;
        await flood(webHook);
      }
      const forwarded = await request(`${provider.url}${incoming.url}`, {
        method: "POST",
        body,
        headers: Object.fromEntries(
          Object.entries(incoming.headers).filter(
            (entry): entry is [string, string] => typeof entry[1] === "string" && entry[0] !== "host",
          ),
        ),
      });
      const answer = Buffer.from(await forwarded.body.arrayBuffer());
      response.writeHead(forwarded.statusCode, {
        "content-type": String(forwarded.headers["content-type"] ?? "application/json"),
      });
      response.end(answer);
    })().catch(() => response.destroy());
  });
  return { target, flooded: () => flooded };
}

/** A flood callback: no order id, 8 KB. */
const FLOOD_BODY = JSON.stringify({ status: "succeeded", pad: "f".repeat(8 * 1024) });

// Both groups' runs go side by side: each is mostly its own process's work.
describe.concurrent("bounded evidence", () => {
  describe.skipIf(!existsSync(GNU_TIME))(`hostile bodies (peak RSS from ${GNU_TIME})`, () => {
    it.concurrent("5 MB answers, JSON and 0x01 control bytes in turn: a verdict, cut evidence with the real size, each body within the limit as written (\\u0001 is six bytes)", async () => {
      expect(JSON_5MB.length).toBe(BODY_BYTES);
      const run = await hostileBodiesRun();
      const { fiveMb } = byAnswer(run);
      expectJudged(run);
      for (const exchange of fiveMb) {
        expect(exchange.response.truncated).toBe(true);
        expect(exchange.response.size).toEqual({ bytes: BODY_BYTES, from: "content-length" });
      }
      // One size check per 5 MB answer.
      const ids = new Set(fiveMb.map((e) => e.id));
      const sizeFailures = run.report.checks.filter(
        (c) => c.check === "envelope.within-size-limit" && c.exchanges.some((id) => ids.has(id)),
      );
      expect(sizeFailures.length).toBe(fiveMb.length);
      expect(sizeFailures[0]?.status).toBe("failed");
      expect(sizeFailures[0]?.detail).toContain(
        `${BODY_BYTES.toLocaleString("en-US")} bytes (Content-Length), over the limit of 65,536 bytes`,
      );
      // The 0x01 answers (those kept with a body start with one; those past the run's bound have none).
      const ofControls = fiveMb.filter((e) => !e.response.body.startsWith('{"codeError"'));
      expect(fiveMb.length - ofControls.length).toBeGreaterThan(10);
      expectEveryBodyCut(run, ofControls);
      expect(run.output).toMatch(/warning: evidence bounded: \d+ exchange\(s\) kept with bodies cut/);
      expectBoundedRun(run, "5 MB answers (JSON, 0x01), gzip bomb and JSON nested 10,000 deep");
    });

    it.concurrent("a gzip bomb of zeros and JSON nested 10,000 deep, in turn: the bomb decoded only up to the limit, both kept within it as written, the reports bounded", async () => {
      const run = await hostileBodiesRun();
      expectJudged(run);
      const { bombs, nested } = byAnswer(run);
      expect(nested.length).toBeGreaterThan(10);
      for (const exchange of bombs) {
        expect(exchange.response.truncated).toBe(true);
        expect(exchange.response.contentEncoding).toMatchObject({ codings: ["gzip"], decoded: true });
      }
      // The nested answers fit the limit as received: kept whole, never cut.
      for (const exchange of nested) expect(exchange.response.body).toBe(DEEP.toString());
      expectEveryBodyCut(run, bombs);
      expect(run.sizes.json).toBeLessThan(run.report.exchanges.length * 4 * LIMIT + 16 * 2 ** 20);
      expectBoundedRun(run, "5 MB answers (JSON, 0x01), gzip bomb and JSON nested 10,000 deep");
    });
  });

  describe.skipIf(!existsSync(GNU_TIME))(
    `a provider flooding its own webhook URL (peak RSS from ${GNU_TIME})`,
    () => {
      let provider: RunningReferenceProvider;
      beforeAll(async () => {
        provider = await startReferenceProvider({ port: 0 });
      });
      afterAll(() => provider.stop());

      it("keeps what the sink's bounds allow, counts and reports the rest, and judges no flood as a retry", async () => {
        const floodSize = 1_000;
        const proxy = await floodingProxy(provider, floodSize);
        try {
          const dir = mkdtempSync(join(tmpdir(), "h2h-flood-"));
          // The retry order's creation waits for the flood: time enough for it on a loaded machine.
          const profile = JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8")) as Record<string, unknown>;
          writeFileSync(
            join(dir, "profile.json"),
            JSON.stringify({ ...profile, timeouts: { requestMs: 60_000, callbackMs: 5_000 } }),
          );
          const run = await spawnCertify(
            {
              H2H_BASE_URL: proxy.target.url,
              H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
              H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
              H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
              H2H_REPORT_DIR: dir,
              H2H_SEED: "7",
              H2H_PROFILE: join(dir, "profile.json"),
            },
            { measureRss: true, specFiles: [SPEC.callbacks] },
          );
          const report = JSON.parse(readFileSync(join(dir, REPORT_FILES.json), "utf8")) as RunReport;
          JSON.parse(readFileSync(join(dir, REPORT_FILES.har), "utf8"));
          const jsonBytes = statSync(join(dir, REPORT_FILES.json)).size;
          const rssMiB = Math.round((run.maxRssKiB as number) / 1024);
          console.log(
            `webhook flood (${proxy.flooded()} callbacks sent): peak RSS ${rssMiB} MiB, JSON report ${(jsonBytes / 2 ** 20).toFixed(1)} MiB, ${report.callbacks.length} callbacks kept`,
          );
          expect(proxy.flooded(), run.output).toBe(100 + floodSize);
          const retry = report.checks.filter((c) => c.check === "callbacks.retry-policy");
          expect(retry.length, run.output).toBe(1);
          expect(retry[0]?.status, retry[0]?.detail).toBe("passed");
          // Callbacks with no order id are one order for the sink: 50 kept, the rest counted, never stored.
          const excess = floodSize - 50;
          expect(report.evidenceBounds?.callbacks?.refusedBySink, run.output).toMatchObject({
            callbacks: excess,
            bytes: excess * Buffer.byteLength(FLOOD_BODY),
            byBound: { perOrder: excess, callbacks: 0, bytes: 0 },
          });
          expect(report.callbacks.filter((c) => c.orderId === null)).toHaveLength(50);
          expect(report.callbacks.filter((c) => c.orderId?.startsWith("flood-"))).toHaveLength(100);
          const warning = `webhook sink full: ${excess} callback(s)`;
          expect(run.output).toContain(`warning: ${warning}`);
          expect(report.warnings.some((w) => w.startsWith(warning))).toBe(true);
          expect(run.exitCode, run.output).toBe(0);
          expect(run.maxRssKiB as number).toBeLessThan(ONE_GIB_IN_KIB);
          expect(jsonBytes).toBeLessThan(64 * 2 ** 20);
        } finally {
          await proxy.target.stop();
        }
      });
    },
  );
});
