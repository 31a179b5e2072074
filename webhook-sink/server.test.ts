import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { Agent, request } from "undici";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { signCallbackBody } from "../contract/index.ts";
import { readTlsFiles } from "../contract/kit/index.ts";
import { REFERENCE_SIGNATURE } from "../fixtures/providers/reference/index.ts";
import {
  type CertificateFactory,
  certificateFactory,
  OPENSSL_MISSING,
} from "../fixtures/testing/certificates.ts";
import { commandArgs, fileTimeout, scaledMs } from "../fixtures/testing/index.ts";
import { SinkClient } from "./client.ts";
import { type RunningSink, type SinkOptions, startWebhookSink } from "./server.ts";
import { CallbackStore, LOG_FILE } from "./store.ts";

fileTimeout(30_000);

/** This process's environment without H2H_PROFILE (the reference profile): set but empty is refused. */
function withoutProfile(): NodeJS.ProcessEnv {
  const { H2H_PROFILE: _profile, ...env } = process.env;
  return env;
}

const SECRET = "test-callback-secret";
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((stop) => stop()));
});

const dataDir = () => mkdtempSync(join(tmpdir(), "h2h-sink-test-"));

async function sink(options: Partial<SinkOptions> = {}): Promise<{ sink: RunningSink; client: SinkClient }> {
  const dir = dataDir();
  const started = await startWebhookSink({
    dataDir: dir,
    secret: SECRET,
    signature: REFERENCE_SIGNATURE,
    sync: false,
    ...options,
  });
  dataDirs.set(started, dir);
  const client = new SinkClient(
    started.url,
    started.token,
    started.certificate ? { pinnedCertificate: started.certificate } : {},
  );
  cleanup.push(
    () => client.close(),
    () => started.stop(),
  );
  return { sink: started, client };
}

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const response = await request(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
  const text = await response.body.text();
  return { status: response.statusCode, text };
}

const callbackBody = (id: string, status = "succeeded") =>
  JSON.stringify({ id, status, amount: 1500, currency: "RUB" });

describe("webhook sink: public safety", () => {
  it("takes callbacks only at /callbacks/<token>; refuses and counts everything else", async () => {
    const { sink: s, client } = await sink();
    expect((await post(s.callbackUrl(), callbackBody("o-1"))).status).toBe(200);
    expect((await post(`${s.url}/callbacks/${"a".repeat(64)}`, callbackBody("fake"))).status).toBe(404);
    expect((await post(`${s.url}/callbacks`, callbackBody("fake"))).status).toBe(404);
    expect((await post(`${s.url}/anything`, callbackBody("fake"))).status).toBe(404);
    expect((await post(`${s.callbackUrl()}/refuse/x`, callbackBody("fake"))).status).toBe(404);
    expect((await request(s.callbackUrl(), { method: "GET" })).statusCode).toBe(405);
    const stats = await client.stats();
    expect(stats.stored).toBe(1);
    expect(stats.rejected).toEqual({
      "bad-token": 2,
      "unknown-path": 1,
      "bad-callback-path": 1,
      "callback-method": 1,
    });
    expect((await client.list()).map((c) => c.orderId)).toEqual(["o-1"]);
  });

  it("takes callbacks under the path of its public URL (a tunnel forwarding the whole path) and at the root", async () => {
    const { sink: s, client } = await sink({ publicUrl: "https://tunnel.example/abc/" });
    const advertised = s.callbackUrl({ runId: "r-1" });
    expect(advertised).toBe(`https://tunnel.example/abc/callbacks/${s.token}/run/r-1`);
    // What the tunnel hands the sink: the public URL's path and query, as sent.
    const forwarded = `${s.url}${new URL(advertised).pathname}/?q=1`;
    expect((await post(forwarded, callbackBody("forwarded"))).status).toBe(200);
    expect((await post(`${s.url}/callbacks/${s.token}/run/r-1`, callbackBody("stripped"))).status).toBe(200);
    // This sink's token under another path: the set-up's fault, counted as such.
    expect((await post(`${s.url}/xyz/callbacks/${s.token}`, callbackBody("elsewhere"))).status).toBe(404);
    expect((await post(`${s.url}/abc/anything`, callbackBody("fake"))).status).toBe(404);
    const stored = await client.list();
    expect(stored.map((c) => [c.orderId, c.runId, c.path])).toEqual([
      ["forwarded", "r-1", "/abc/callbacks/<token>/run/r-1/?q=1"],
      ["stripped", "r-1", "/callbacks/<token>/run/r-1"],
    ]);
    expect(s.stats().rejected).toEqual({ "callback-prefix": 1, "unknown-path": 1 });
  });

  it("refuses the query API without the token", async () => {
    const { sink: s } = await sink();
    const response = await request(`${s.url}/api/callbacks`, {
      headers: { authorization: "Bearer wrong-token-wrong-token" },
    });
    expect(response.statusCode).toBe(401);
    await response.body.dump();
    expect(s.stats().rejected["query-unauthorized"]).toBe(1);
  });

  it("refuses a body over the size limit without storing it", async () => {
    const { sink: s, client } = await sink({ maxBodyBytes: 1024 });
    expect((await post(s.callbackUrl(), JSON.stringify({ id: "big", pad: "x".repeat(5000) }))).status).toBe(
      413,
    );
    expect(await client.list()).toEqual([]);
    expect(s.stats().rejected["body-too-large"]).toBe(1);
  });

  it("answers a non-JSON body 400 and records it as such, byte for byte, under no order", async () => {
    const { sink: s, client } = await sink();
    const raw = "status=succeeded&id=o-9 \u00e9";
    const answer = await post(s.callbackUrl(), raw, { "content-type": "application/x-www-form-urlencoded" });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: "not-json", stored: 1 });
    const [stored] = await client.list();
    expect(stored).toMatchObject({
      json: null,
      orderId: null,
      contentType: "application/x-www-form-urlencoded",
      answeredWith: 400,
    });
    expect(stored?.bodyProblem).toMatch(/^the body is not JSON/);
    expect(Buffer.from(stored?.bodyBase64 ?? "", "base64").toString("utf8")).toBe(raw);
    expect(s.stats().rejected).toEqual({ "not-json": 1 });
  });
});

describe("webhook sink: encoded bodies", () => {
  const signed = (body: Buffer, encoding: string) => ({
    "content-encoding": encoding,
    "x-signature": signCallbackBody(body, SECRET, REFERENCE_SIGNATURE),
  });

  it("reads gzip, deflate (zlib and raw) and br bodies; signatures and evidence stay on the bytes as sent", async () => {
    const { sink: s, client } = await sink();
    const sent = {
      gzip: gzipSync(callbackBody("o-gzip")),
      deflate: deflateSync(callbackBody("o-deflate")),
      "Deflate ": deflateRawSync(callbackBody("o-deflate-raw")),
      br: brotliCompressSync(callbackBody("o-br")),
      "gzip, br": brotliCompressSync(gzipSync(callbackBody("o-twice"))),
    };
    for (const [encoding, body] of Object.entries(sent))
      expect((await post(s.callbackUrl(), body, signed(body, encoding))).status, encoding).toBe(200);
    const stored = await client.list();
    expect(stored.map((c) => [c.orderId, c.status, c.contentEncoding, c.signature, c.bodyProblem])).toEqual([
      ["o-gzip", "succeeded", "gzip", "valid", null],
      ["o-deflate", "succeeded", "deflate", "valid", null],
      ["o-deflate-raw", "succeeded", "Deflate", "valid", null],
      ["o-br", "succeeded", "br", "valid", null],
      ["o-twice", "succeeded", "gzip, br", "valid", null],
    ]);
    expect(stored.map((c) => c.bodyBase64)).toEqual(Object.values(sent).map((b) => b.toString("base64")));
    // After a restart the log is read through the same decoding.
    const dir = dirOf(s);
    await s.stop();
    const again = await startWebhookSink({ dataDir: dir, sync: false });
    cleanup.push(() => again.stop());
    const replayed = new SinkClient(again.url, again.token);
    cleanup.push(() => replayed.close());
    expect((await replayed.list()).map((c) => [c.orderId, (c.json as { id?: string } | null)?.id])).toEqual(
      stored.map((c) => [c.orderId, c.orderId]),
    );
  });

  it("answers 415 to an unknown coding, 400 to a broken body, 413 to a bomb; records each under no order", async () => {
    const { sink: s, client } = await sink({ maxBodyBytes: 64 * 1024 });
    const body = callbackBody("o-1");
    const unknown = await request(s.callbackUrl(), {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "content-encoding": "compress" },
    });
    expect(unknown.statusCode).toBe(415);
    expect(unknown.headers["accept-encoding"]).toBe("gzip, deflate, br");
    await unknown.body.dump();
    const broken = gzipSync(body).subarray(0, 20);
    expect((await post(s.callbackUrl(), broken, { "content-encoding": "gzip" })).status).toBe(400);
    // 16 MiB of zeros in some 16 KiB: decoded only up to the body limit.
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect((await post(s.callbackUrl(), bomb, { "content-encoding": "gzip" })).status).toBe(413);
    const stored = await client.list();
    expect(stored.map((c) => [c.orderId, c.status, c.answeredWith, c.contentEncoding, c.json])).toEqual([
      [null, null, 415, "compress", null],
      [null, null, 400, "gzip", null],
      [null, null, 413, "gzip", null],
    ]);
    expect(stored.map((c) => c.bodyProblem)).toEqual([
      expect.stringContaining("Content-Encoding compress is not one the sink reads"),
      expect.stringContaining("does not decode as gzip"),
      expect.stringContaining("decodes to more than 65536 bytes"),
    ]);
    expect(s.stats().rejected).toEqual({
      "unsupported-encoding": 1,
      "undecodable-body": 1,
      "decoded-too-large": 1,
    });
  });

  it("files unreadable bodies apart: they never fill the bound of callbacks with no order id", async () => {
    const { sink: s, client } = await sink({ maxDeliveriesPerOrder: 3 });
    const garbled = gzipSync(callbackBody("o-1")).subarray(0, 30);
    for (let i = 0; i < 5; i++)
      expect((await post(s.callbackUrl(), garbled, { "content-encoding": "gzip" })).status).toBe(400);
    // A readable body with no order id is still taken.
    expect((await post(s.callbackUrl(), JSON.stringify({ status: "succeeded" }))).status).toBe(200);
    expect((await client.list()).map((c) => c.answeredWith)).toEqual([400, 400, 400, 200]);
    expect(s.stats().excess?.byBound.perOrder).toBe(2);
  });
});

describe("webhook sink: signatures", () => {
  it("records valid, invalid and missing signatures, verified on the raw bytes", async () => {
    const { sink: s, client } = await sink();
    const good = callbackBody("good");
    await post(s.callbackUrl(), good, { "x-signature": signCallbackBody(good, SECRET, REFERENCE_SIGNATURE) });
    const bad = callbackBody("bad");
    await post(s.callbackUrl(), bad, {
      "x-signature": signCallbackBody(bad, "another-secret", REFERENCE_SIGNATURE),
    });
    await post(s.callbackUrl(), callbackBody("unsigned"));
    const tampered = callbackBody("tampered");
    await post(s.callbackUrl(), tampered.replace("1500", "15000"), {
      "x-signature": signCallbackBody(tampered, SECRET, REFERENCE_SIGNATURE),
    });
    const verdicts = Object.fromEntries((await client.list()).map((c) => [c.orderId, c.signature]));
    expect(verdicts).toEqual({ good: "valid", bad: "invalid", unsigned: "missing", tampered: "invalid" });
  });

  it("does not judge signatures without a secret", async () => {
    const { sink: s, client } = await sink({ secret: undefined });
    await post(s.callbackUrl(), callbackBody("o"), { "x-signature": "sha256=00" });
    expect((await client.list())[0]?.signature).toBe("not-checked");
  });
});

describe("webhook sink: queries", () => {
  it("filters by order id, status, run id and time", async () => {
    const { sink: s, client } = await sink();
    await post(s.callbackUrl({ runId: "run-a" }), callbackBody("o-1", "failed_by_terminal"));
    // Arrival times are in ms: keep a clear gap on both sides of the boundary.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const middle = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await post(s.callbackUrl({ runId: "run-a" }), callbackBody("o-1", "succeeded_by_appeal"));
    await post(s.callbackUrl({ runId: "run-b" }), callbackBody("o-2"));
    expect((await client.list({ orderId: "o-1" })).map((c) => c.status)).toEqual([
      "failed_by_terminal",
      "succeeded_by_appeal",
    ]);
    expect((await client.list({ runId: "run-b" })).map((c) => c.orderId)).toEqual(["o-2"]);
    expect((await client.list({ status: "succeeded_by_appeal" })).map((c) => c.runId)).toEqual(["run-a"]);
    expect((await client.list({ since: middle })).length).toBe(2);
    expect((await client.list({ until: middle })).length).toBe(1);
  });

  it("long-polls: a wait resolves when the callback arrives, not at its timeout", async () => {
    const { sink: s, client } = await sink();
    const started = Date.now();
    const waiting = client.waitFor({ orderId: "late", status: "expired" }, { timeoutMs: 5_000 });
    setTimeout(() => void post(s.callbackUrl(), callbackBody("late", "expired")), 150);
    const result = await waiting;
    expect(result.timedOut).toBe(false);
    expect(result.callbacks.map((c) => c.orderId)).toEqual(["late"]);
    // Sooner than the wait's timeout, however slow the machine: woken by the arrival.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("long-polls for a count, and says when it timed out", async () => {
    const { sink: s, client } = await sink();
    await post(s.callbackUrl(), callbackBody("o", "failed_by_terminal"));
    const timedOut = await client.waitFor({ orderId: "o" }, { timeoutMs: 200, minCount: 2 });
    expect(timedOut).toMatchObject({ timedOut: true });
    expect(timedOut.callbacks).toHaveLength(1);
    const waiting = client.waitFor({ orderId: "o" }, { timeoutMs: 5_000, minCount: 2 });
    await post(s.callbackUrl(), callbackBody("o", "succeeded_by_appeal"));
    expect((await waiting).callbacks.map((c) => c.status)).toEqual([
      "failed_by_terminal",
      "succeeded_by_appeal",
    ]);
  });
});

describe("webhook sink: retry observation", () => {
  it("says how late it may have stamped arrivals: the longest stall of its process then", async () => {
    const { client } = await sink();
    const since = Date.now();
    const busyUntil = Date.now() + 120;
    while (Date.now() < busyUntil) {
      // Hold the sink's event loop, as a loaded machine would.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answer = await client.stalls(since, Date.now());
    expect(answer.covered).toBe(true);
    expect(answer.maxStallMs).toBeGreaterThanOrEqual(110);
    expect((await client.stalls(0, Date.now())).covered).toBe(false);
  });

  it("answers 503 to the first n deliveries of an order with /refuse/n, and records them", async () => {
    const { sink: s, client } = await sink();
    const url = s.callbackUrl({ refuse: 2 });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await post(url, callbackBody("r-1"))).status);
    answers.push((await post(url, callbackBody("r-2"))).status);
    expect(answers).toEqual([503, 503, 200, 503]);
    expect((await client.list({ orderId: "r-1" })).map((c) => [c.deliveryOfOrder, c.answeredWith])).toEqual([
      [1, 503],
      [2, 503],
      [3, 200],
    ]);
  });

  it("acknowledges with the 2xx /ack/<status> asks for, 204 with no body, after any refusals", async () => {
    const { sink: s, client } = await sink();
    for (const ack of [201, 202, 204]) {
      const answer = await post(s.callbackUrl({ ack, refuse: 1 }), callbackBody(`a-${ack}`));
      expect(answer.status).toBe(503);
      const again = await post(s.callbackUrl({ ack, refuse: 1 }), callbackBody(`a-${ack}`));
      expect(again.status).toBe(ack);
      if (ack === 204) expect(again.text).toBe("");
      else expect(JSON.parse(again.text)).toHaveProperty("stored");
    }
    expect((await client.list({ orderId: "a-204" })).map((c) => c.answeredWith)).toEqual([503, 204]);
    expect(s.callbackUrl({ ack: 200 })).toBe(s.callbackUrl());
    expect((await post(`${s.callbackUrl()}/ack/302`, callbackBody("bad-ack"))).status).toBe(404);
  });

  it("answers a refusal without waiting for the disk, and still records it; an acceptance waits", async () => {
    const { sink: s, client } = await sink();
    // A disk that finishes no write until the test lets it: what is answered before then did not
    // wait for it, however fast or slow the machine is.
    let diskDone = () => {};
    const disk = new Promise<void>((resolve) => {
      diskDone = resolve;
    });
    const append = CallbackStore.prototype.append;
    const slow = vi.spyOn(CallbackStore.prototype, "append").mockImplementation(async function (
      this: CallbackStore,
      ...args: Parameters<CallbackStore["append"]>
    ) {
      await disk;
      return append.apply(this, args);
    });
    try {
      const url = s.callbackUrl({ refuse: 1 });
      // The provider's retry timer starts from this answer: the disk is not in its interval.
      expect((await post(url, callbackBody("slow-1"))).status).toBe(503);
      let answered = false;
      const acceptance = post(url, callbackBody("slow-1")).finally(() => {
        answered = true;
      });
      await vi.waitFor(() => expect(slow).toHaveBeenCalledTimes(2), { timeout: scaledMs(5_000) });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answered, "an acceptance is answered only once it is on disk").toBe(false);
      diskDone();
      expect(await acceptance).toMatchObject({ status: 200 });
    } finally {
      diskDone();
      slow.mockRestore();
    }
    expect((await client.list({ orderId: "slow-1" })).map((c) => c.answeredWith)).toEqual([503, 200]);
  });

  it("records when the order was made and the status the sender expects, from /at and /expect", async () => {
    const { sink: s, client } = await sink();
    const url = s.callbackUrl({
      runId: "load-1",
      sentAtMs: 1_763_780_400_123,
      expectedStatus: "succeeded_by_appeal",
    });
    expect(url).toMatch(/\/run\/load-1\/at\/1763780400123\/expect\/succeeded_by_appeal$/);
    expect((await post(url, callbackBody("t-1"))).status).toBe(200);
    expect((await client.list({ runId: "load-1" }))[0]).toMatchObject({
      sentAtMs: 1_763_780_400_123,
      expectedStatus: "succeeded_by_appeal",
    });
    expect((await post(`${s.callbackUrl()}/at/soon`, callbackBody("t-2"))).status).toBe(404);
  });

  it("holds the answer past a timeout with /stall/n", async () => {
    const { sink: s } = await sink({ stallMs: 300 });
    const started = Date.now();
    const first = await post(s.callbackUrl({ stall: 1 }), callbackBody("s-1"));
    expect(first.status).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect((await post(s.callbackUrl({ stall: 1 }), callbackBody("s-1"))).status).toBe(200);
  });
});

describe("webhook sink: a load run's delivery", () => {
  it("takes trigger notes apart from callbacks and computes delivery from both, counting each order once", async () => {
    const { sink: s } = await sink();
    const t0 = Date.now() - 10_000;
    const note = (orderId: string, triggeredAtMs: number) =>
      post(
        s.callbackUrl({ runId: "L1", sentAtMs: t0, expectedStatus: "succeeded", orderId, triggeredAtMs }),
        "",
      );
    expect((await note("o-1", t0 + 5_000)).status).toBe(204);
    expect((await note("o-2", t0 + 5_000)).status).toBe(204);
    // Bad notes are refused by name: a note without its order time.
    expect(
      (await post(`${s.callbackUrl({ runId: "L1", orderId: "o-3", triggeredAtMs: t0 })}`, "")).status,
    ).toBe(400);
    const hook = s.callbackUrl({ runId: "L1", sentAtMs: t0, expectedStatus: "succeeded" });
    const signed = (id: string) => {
      const body = callbackBody(id);
      return post(hook, body, { "x-signature": signCallbackBody(body, SECRET, REFERENCE_SIGNATURE) });
    };
    expect((await signed("o-1")).status).toBe(200);
    expect((await signed("o-1")).status).toBe(200);
    const answer = await request(`${s.url}/api/delivery?runId=L1&windowMs=60000`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(answer.statusCode).toBe(200);
    const { tally, notes } = (await answer.body.json()) as {
      tally: { triggered: Record<string, number>; byExpected: Record<string, { delivered: number }> };
      notes: number;
    };
    expect(notes).toBe(2);
    expect(tally.triggered).toEqual({ succeeded: 2 });
    expect(tally.byExpected.succeeded?.delivered).toBe(1);
    // Notes are not callbacks: nothing stored for them.
    expect(s.stats().stored).toBe(2);
  });
});

describe("webhook sink: durability", () => {
  it("replays its log after a restart, skipping a torn last line", async () => {
    const dir = dataDir();
    const first = await startWebhookSink({ dataDir: dir, token: "t".repeat(32) });
    await post(first.callbackUrl(), callbackBody("kept-1"));
    await post(first.callbackUrl(), callbackBody("kept-2"));
    await first.stop();
    const torn = '{"seq":3,"receivedAt":"2026-';
    appendFileSync(join(dir, LOG_FILE), torn);
    const second = await startWebhookSink({ dataDir: dir, token: "t".repeat(32) });
    const client = new SinkClient(second.url, second.token);
    cleanup.push(
      () => client.close(),
      () => second.stop(),
    );
    await post(second.callbackUrl(), callbackBody("after-restart"));
    expect((await client.list()).map((c) => [c.seq, c.orderId])).toEqual([
      [1, "kept-1"],
      [2, "kept-2"],
      [3, "after-restart"],
    ]);
    // The torn line is fenced off: every line of the log but that one parses.
    const lines = readFileSync(join(dir, LOG_FILE), "utf8").trim().split("\n");
    expect(lines.filter((line) => line !== torn).map((l) => JSON.parse(l).orderId)).toEqual([
      "kept-1",
      "kept-2",
      "after-restart",
    ]);
  });

  it("loses no acknowledged callback when the sink process is killed with SIGKILL during a burst", async () => {
    const dir = dataDir();
    const token = "k".repeat(40);
    const startChild = () =>
      new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [...commandArgs("sink"), "--data-dir", dir, "--token", token], {
          stdio: ["ignore", "pipe", "pipe"],
          env: withoutProfile(),
        });
        let out = "";
        child.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /LISTENING (\S+)/.exec(out);
          if (match?.[1]) resolve({ child, url: match[1] });
        });
        child.once("exit", (code) => reject(new Error(`sink exited early (${code}): ${out}`)));
      });

    const { child, url } = await startChild();
    const agent = new Agent({ connections: 32 });
    const acknowledged: string[] = [];
    let sent = 0;
    let killed = false;
    const sender = async (worker: number) => {
      for (let i = 0; !killed || i < 0; i++) {
        const id = `w${worker}-${i}`;
        sent += 1;
        try {
          const response = await request(`${url}/callbacks/${token}`, {
            method: "POST",
            dispatcher: agent,
            body: callbackBody(id),
            headers: { "content-type": "application/json" },
          });
          await response.body.dump();
          if (response.statusCode === 200) acknowledged.push(id);
        } catch {
          return; // the sink is gone: this one was never acknowledged
        }
      }
    };
    const senders = Array.from({ length: 16 }, (_, worker) => sender(worker));
    // Killed mid-burst once enough were acknowledged, however slowly a loaded machine gets there.
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(100), {
      timeout: scaledMs(30_000),
      interval: 10,
    });
    child.kill("SIGKILL");
    killed = true;
    await Promise.all(senders);
    await agent.close();
    expect(acknowledged.length).toBeGreaterThan(100);

    const restarted = await startChild();
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          restarted.child.once("exit", () => resolve());
          restarted.child.kill("SIGTERM");
        }),
    );
    const client = new SinkClient(restarted.url, token);
    cleanup.push(() => client.close());
    const stored = new Set((await client.list()).map((c) => c.orderId));
    const missing = acknowledged.filter((id) => !stored.has(id));
    expect(
      missing,
      `${missing.length} of ${acknowledged.length} acknowledged callbacks lost (sent ${sent})`,
    ).toEqual([]);
  });
});

describe("webhook sink: hostile input", () => {
  it("answers a malformed percent-escape in a callback path with a counted 400, and keeps working", async () => {
    const { sink: s, client } = await sink();
    for (const bad of ["/run/%E0%A4%A", "/run/%zz", "/expect/%", "/run/ok/at/%FF%FE"]) {
      const answer = await post(`${s.callbackUrl()}${bad}`, callbackBody("bad"));
      expect(answer.status, bad).toBe(400);
      expect(JSON.parse(answer.text)).toEqual({ error: "bad-escape" });
    }
    expect(s.stats().rejected["bad-escape"]).toBe(4);
    expect((await post(s.callbackUrl({ runId: "still-up" }), callbackBody("ok"))).status).toBe(200);
    expect((await client.list()).map((c) => c.orderId)).toEqual(["ok"]);
  });

  it("answers a request target that is not a URL with a counted 400 (raw socket)", async () => {
    const { sink: s } = await sink();
    const { connect } = await import("node:net");
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(s.port, "127.0.0.1", () => {
        socket.write("POST http://[::1 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
      });
      let data = "";
      socket.on("data", (chunk) => {
        data += chunk.toString();
      });
      socket.on("end", () => resolve(data));
      socket.on("close", () => resolve(data));
      socket.on("error", reject);
      setTimeout(() => socket.end(), 500);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(s.stats().rejected["bad-request-target"]).toBe(1);
    expect((await post(s.callbackUrl(), callbackBody("after"))).status).toBe(200);
  });

  it("masks the token wherever it appears in a stored record: path, query (any spelling) and headers", async () => {
    const { sink: s, client } = await sink();
    const token = s.token;
    const encoded = [...token].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join("");
    const url = `${s.callbackUrl({ runId: "masked" })}?t=${token}&again=${token}&enc=${encoded}`;
    const answer = await post(url, callbackBody("m-1"), {
      "x-echo": `callback at /callbacks/${token}`,
      referer: `${s.url}/callbacks/${token}?x=${token}`,
    });
    expect(answer.status).toBe(200);
    const [stored] = await client.list({ runId: "masked" });
    const record = JSON.stringify(stored);
    expect(record).not.toContain(token);
    expect(record.toLowerCase()).not.toContain(encoded.toLowerCase());
    expect(stored?.path).toBe("/callbacks/<token>/run/masked?t=<token>&again=<token>&enc=<token>");
    expect(stored?.headers["x-echo"]).toBe("callback at /callbacks/<token>");
    const log = readFileSync(join(dirOf(s), LOG_FILE), "utf8");
    expect(log).not.toContain(token);
  });
});

/** The data directory a sink was started with (the tests start each in a fresh one). */
const dataDirs = new Map<RunningSink, string>();
function dirOf(s: RunningSink): string {
  return dataDirs.get(s) as string;
}

describe.skipIf(OPENSSL_MISSING !== undefined)(
  `webhook sink over HTTPS${OPENSSL_MISSING ? ` (skipped: ${OPENSSL_MISSING})` : ""}`,
  () => {
    let certs: CertificateFactory;
    beforeAll(() => {
      certs = certificateFactory();
      certs.ca("sink-ca");
      // Issued for a public name only: the loopback query client pins it instead of checking names.
      certs.cert("sink", "sink-ca", { san: "DNS:sink.example" });
      certs.cert("local-sink", "sink-ca", { san: "IP:127.0.0.1" });
    });

    it("serves callbacks over HTTPS, and its query client pins the certificate", async () => {
      const tls = readTlsFiles({ certFile: certs.file("sink", "pem"), keyFile: certs.file("sink", "key") });
      const { sink: s, client } = await sink({ tls: { cert: tls.cert as string, key: tls.key as string } });
      expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(s.callbackUrl()).toMatch(/^https:\/\//);
      const agent = new Agent({
        connect: { ca: readFileSync(certs.file("sink-ca", "pem")), servername: "sink.example" },
      });
      cleanup.push(() => agent.close());
      const body = callbackBody("tls-1");
      const answer = await request(s.callbackUrl(), {
        method: "POST",
        dispatcher: agent,
        body,
        headers: {
          "content-type": "application/json",
          "x-signature": signCallbackBody(body, SECRET, REFERENCE_SIGNATURE),
        },
      });
      await answer.body.dump();
      expect(answer.statusCode).toBe(200);
      expect((await client.list()).map((c) => [c.orderId, c.signature])).toEqual([["tls-1", "valid"]]);
      // A client that does not trust the sink's CA is refused by TLS, not served.
      await expect(request(s.callbackUrl(), { method: "POST", body })).rejects.toThrow();
    });

    it("a pinned client refuses a sink serving another certificate", async () => {
      const tls = readTlsFiles({ certFile: certs.file("sink", "pem"), keyFile: certs.file("sink", "key") });
      const { sink: s } = await sink({ tls: { cert: tls.cert as string, key: tls.key as string } });
      const impostor = new SinkClient(s.url, s.token, {
        pinnedCertificate: readFileSync(certs.file("local-sink", "pem"), "utf8"),
      });
      cleanup.push(() => impostor.close());
      await expect(impostor.list()).rejects.toThrow(/serves another certificate than it was started with/);
    });

    it("npm run sink -- --tls-cert --tls-key serves HTTPS; a bad file is a usage error naming the option", async () => {
      const run = (args: string[]) =>
        spawn(process.execPath, [...commandArgs("sink"), "--data-dir", dataDir(), ...args], {
          stdio: ["ignore", "pipe", "pipe"],
          env: withoutProfile(),
        });
      const child = run([
        "--tls-cert",
        certs.file("local-sink", "pem"),
        "--tls-key",
        certs.file("local-sink", "key"),
      ]);
      const listening = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /LISTENING (\S+)/.exec(out);
          if (match?.[1]) resolve(match[1]);
        });
        child.once("exit", (code) => reject(new Error(`sink exited early (${code}): ${out}`)));
      });
      cleanup.push(
        () =>
          new Promise<void>((resolve) => {
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      );
      expect(listening).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

      const bad = run([
        "--tls-cert",
        certs.file("local-sink", "pem"),
        "--tls-key",
        certs.file("sink", "key"),
      ]);
      let stderr = "";
      bad.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => bad.once("exit", resolve));
      expect(code).toBe(64);
      expect(stderr).toMatch(
        /^error: --tls-cert .*local-sink\.pem and --tls-key .*sink\.key do not belong together/,
      );
    });
  },
);
