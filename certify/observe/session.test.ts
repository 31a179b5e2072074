/**
 * A long observe session: what it saw is spilled to the run folder as each exchange completes,
 * so memory does not grow with the traffic; read back in the order the exchanges began; and a
 * spill the disk refuses leaves the session not judged, never judged on part of its traffic.
 * The tmpfs part needs root: skipped, by name, where mounting is not permitted.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { readProfile } from "../../contract/index.ts";
import { SAMPLE_ORDER_RECORD, sampleSuccessEnvelope } from "../../fixtures/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import { mountTmpfs } from "../../fixtures/testing/index.ts";
import { judgeSession } from "./judge.ts";
import { type ObservedCallbackDelivery, type ObservedExchange, ObserveSession } from "./session.ts";

// A forced collection makes the heap figures what is held, not what is garbage not yet collected.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const BODY_BYTES = 2_500;

/** A completed exchange of some 5 KB of bodies, each distinct (no shared string). */
function exchangeOf(session: ObserveSession, i: number): ObservedExchange {
  const pad = (tag: string) => `${tag}${i}:`.padEnd(BODY_BYTES, String.fromCharCode(97 + (i % 26)));
  return {
    id: session.exchangeId(),
    startedAtMs: 1_700_000_000_000 + i,
    durationMs: 3,
    method: "POST",
    path: "/api/v1/payments",
    requestHeaders: { "content-type": "application/json", authorization: "Bearer k" },
    requestBody: { text: pad("q"), bytes: BODY_BYTES },
    response: {
      status: 200,
      headers: { "content-type": "application/json" },
      body: { text: pad("a"), bytes: BODY_BYTES },
    },
  };
}

function record(session: ObserveSession, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const exchange = exchangeOf(session, i);
    session.beginExchange(exchange);
    session.finishExchange(exchange);
  }
}

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const dirs: string[] = [];
const runDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "h2h-observe-spill-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("an observe session with a spill folder", () => {
  it("holds no more after 50,000 exchanges than after 5,000", () => {
    const N = 50_000;
    const session = new ObserveSession(65_536, runDir());
    record(session, 0, 100); // warm up: code compiled, buffers allocated
    const base = heapUsed();
    record(session, 100, N / 10);
    const atTenth = heapUsed() - base;
    record(session, N / 10, N);
    const atN = heapUsed() - base;
    const recordedBytes = (N - N / 10) * 2 * BODY_BYTES;
    console.log(
      `observe spill: heap growth ${(atTenth / 2 ** 20).toFixed(2)} MiB at ${N / 10} exchanges, ${(atN / 2 ** 20).toFixed(2)} MiB at ${N} (${(recordedBytes / 2 ** 20).toFixed(0)} MiB of bodies recorded in between)`,
    );
    expect(session.exchangeCount).toBe(N);
    // Held in memory, the 45,000 exchanges between would add their 214 MiB of bodies; spilled,
    // the heap's growth between the two is noise, far below even a twentieth of them.
    expect(atN - atTenth).toBeLessThan(recordedBytes / 20);
    expect(atN).toBeLessThan(16 * 2 ** 20);

    // Read back, all of them, in order, one at a time.
    let next = 0;
    for (const e of session.eachExchange()) {
      expect(e.id).toBe(`x${next + 1}`);
      next += 1;
    }
    expect(next).toBe(N);
  });

  it("reads exchanges back in the order they began, those in flight included", () => {
    const session = new ObserveSession(65_536, runDir());
    const [a, b, c] = [0, 1, 2].map((i) => exchangeOf(session, i)) as ObservedExchange[];
    for (const e of [a, b, c] as ObservedExchange[]) session.beginExchange(e);
    session.finishExchange(c as ObservedExchange);
    session.finishExchange(a as ObservedExchange);
    expect([...session.eachExchange()].map((e) => e.id)).toEqual(["x1", "x2", "x3"]);
    expect(session.exchangeCount).toBe(3);
  });

  it("judges a session alike spilled or held in memory, whatever order exchanges complete in", async () => {
    const profile = await readProfile(REFERENCE_PROFILE_PATH);
    const judged = (session: ObserveSession) => {
      const orderId = SAMPLE_ORDER_RECORD.id;
      const text = (value: unknown) => {
        const t = JSON.stringify(value);
        return { text: t, bytes: Buffer.byteLength(t) };
      };
      const exchanges: ObservedExchange[] = [0, 1, 2].map((i) => ({
        id: session.exchangeId(),
        startedAtMs: 1_700_000_000_000 + i * 1000,
        durationMs: 5,
        method: "POST",
        path:
          i === 2
            ? `/api/v1/orders/${orderId}/mobile-commerce-confirm/h2h`
            : "/api/v1/payin/mobile-commerce/h2h",
        requestHeaders: { "content-type": "application/json", authorization: "Bearer k" },
        requestBody: text({ amount: 100, currency: "RUB", methodID: 101, merchantOrderID: `m-${i}` }),
        response: {
          status: 200,
          headers: { "content-type": "application/json" },
          body: text(sampleSuccessEnvelope({ ...SAMPLE_ORDER_RECORD, idTransactionMerchant: `m-${i}` })),
        },
      }));
      for (const e of exchanges) session.beginExchange(e);
      for (const e of [...exchanges].reverse()) session.finishExchange(e);
      const deliveries: ObservedCallbackDelivery[] = ["success", "success"].map((status, i) => ({
        id: session.callbackId(),
        receivedAtMs: 1_700_000_005_000 + i,
        orderId,
        status,
        json: { id: orderId, status },
        headers: {},
        body: text({ id: orderId, status }),
        signature: "not-checked",
        key: null,
        answer: { status: i === 0 ? 500 : 200, body: text("ok"), durationMs: 2 },
      }));
      for (const d of deliveries) session.beginCallback(d);
      for (const d of [...deliveries].reverse()) session.finishCallback(d);
      const judgement = judgeSession(session, {
        profile,
        signed: false,
        callbacksObserved: true,
        endedAtMs: 1_700_000_010_000,
      });
      return JSON.parse(JSON.stringify(judgement, (key, value) => (key === "durationMs" ? 0 : value)));
    };
    const inMemory = judged(new ObserveSession(65_536));
    expect(inMemory.exchanges).toBe(3);
    expect(inMemory.callbacks).toBe(2);
    expect(judged(new ObserveSession(65_536, runDir()))).toEqual(inMemory);
  });

  it("is not judged, saying why, when the spill file cannot be written", async () => {
    const dir = runDir();
    const session = new ObserveSession(65_536, dir);
    // A folder where the spill file should be: every append fails (EISDIR), as on a broken disk.
    mkdirSync(join(dir, `observed-${process.pid}.jsonl`));
    record(session, 0, 3);
    session.flush();
    expect(session.spillFailure).toEqual({
      file: join(dir, `observed-${process.pid}.jsonl`),
      code: "EISDIR",
    });
    const judgement = judgeSession(session, {
      profile: await readProfile(REFERENCE_PROFILE_PATH),
      signed: false,
      callbacksObserved: true,
    });
    expect(judgement.provider.verdict).toBe("not judged");
    expect(judgement.merchant.verdict).toBe("not judged");
    expect(judgement.lines.provider).toMatch(
      /^not judged: the session's evidence could not be written to .*EISDIR/,
    );
  });
});

const tmpfs = mountTmpfs("1m", "h2h-observe-tmpfs-");
const skip = "skip" in tmpfs ? tmpfs.skip : undefined;

describe.skipIf(skip !== undefined)(
  `an observe session spilling to a tmpfs that fills${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    it("stops spilling at the full disk, keeps whole lines, and is not judged", async () => {
      const dir = "dir" in tmpfs ? tmpfs.dir : "";
      try {
        const session = new ObserveSession(65_536, dir);
        // 400 exchanges of some 5 KB: 2 MB, into 1 MB.
        expect(() => record(session, 0, 400)).not.toThrow();
        expect(session.spillFailure).toEqual({
          file: join(dir, `observed-${process.pid}.jsonl`),
          code: "ENOSPC",
        });
        const read = [...session.eachExchange()];
        expect(read.length).toBeGreaterThan(0);
        expect(read.length).toBeLessThan(400);
        expect(read.map((e) => e.id)).toEqual(read.map((_, i) => `x${i + 1}`));
        const judgement = judgeSession(session, {
          profile: await readProfile(REFERENCE_PROFILE_PATH),
          signed: false,
          callbacksObserved: true,
        });
        expect(judgement.provider.verdict).toBe("not judged");
        expect(judgement.lines.merchant).toContain("ENOSPC");
      } finally {
        try {
          execFileSync("umount", [dir]);
        } catch {
          // Left mounted: the folder is in TMPDIR and small.
        }
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
