/**
 * The sink keeps callbacks within bounds (count, body bytes, deliveries of one order): a flood is
 * refused past them, counted and never stored, and other orders' callbacks still find room. The
 * standalone sink spills instead: every callback stays on disk, the oldest leave memory.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { commandArgs, fileTimeout } from "../fixtures/testing/index.ts";
import { SinkClient } from "./client.ts";
import { type SinkOptions, startWebhookSink } from "./server.ts";
import { LOG_FILE } from "./store.ts";

fileTimeout(120_000);

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((stop) => stop()));
});

async function sink(options: Partial<SinkOptions>) {
  const dataDir = mkdtempSync(join(tmpdir(), "h2h-sink-bounds-"));
  const started = await startWebhookSink({ dataDir, sync: false, ...options });
  const client = new SinkClient(started.url, started.token);
  cleanup.push(
    () => client.close(),
    () => started.stop(),
  );
  return { sink: started, client, dataDir };
}

async function post(url: string, body: string): Promise<number> {
  const response = await request(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
  });
  await response.body.dump();
  return response.statusCode;
}

const body = (id: string | null, pad = "") =>
  JSON.stringify({ ...(id === null ? {} : { id }), status: "succeeded", pad });

describe("webhook sink: bounds", () => {
  it("keeps a duplicate flood of one order to its bound; other orders still find room", async () => {
    const firsts: unknown[] = [];
    const {
      sink: s,
      client,
      dataDir,
    } = await sink({
      maxDeliveriesPerOrder: 10,
      onFirstExcess: (excess) => firsts.push(excess),
    });
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => post(s.callbackUrl(), body("o-flood"))),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 503)).toHaveLength(50);
    // Callbacks without an order id are one order for the bound.
    for (let i = 0; i < 15; i++) await post(s.callbackUrl(), body(null));
    expect(await post(s.callbackUrl(), body("o-real"))).toBe(200);
    const stats = await client.stats();
    expect(stats.stored).toBe(21);
    expect(stats.excess).toMatchObject({ callbacks: 55, byBound: { perOrder: 55, callbacks: 0, bytes: 0 } });
    expect(firsts).toHaveLength(1);
    expect((await client.list({ orderId: "o-real" })).length).toBe(1);
    // Never stored: the log holds only what was kept.
    expect(readFileSync(join(dataDir, LOG_FILE), "utf8").trim().split("\n")).toHaveLength(21);
  });

  it("refuses past the count and the bytes, counting each callback and its bytes", async () => {
    const { sink: s } = await sink({ maxCallbacks: 5, maxStoredBytes: 1_000_000 });
    for (let i = 0; i < 8; i++) await post(s.callbackUrl(), body(`o-${i}`));
    expect(s.stats()).toMatchObject({ stored: 5, excess: { callbacks: 3, byBound: { callbacks: 3 } } });

    const { sink: small } = await sink({ maxStoredBytes: 3_000 });
    const big = (i: number) => body(`o-${i}`, "x".repeat(1_000));
    for (let i = 0; i < 5; i++) await post(small.callbackUrl(), big(i));
    expect(small.stats()).toMatchObject({ stored: 2, excess: { callbacks: 3, byBound: { bytes: 3 } } });
    expect(small.stats().excess?.bytes).toBe(3 * Buffer.byteLength(big(2)));
  });

  it("lists a callback nested 10,000 deep, with what is deeper than 64 levels noted", async () => {
    const { sink: s, client } = await sink({});
    expect(await post(s.callbackUrl(), `${"[".repeat(10_000)}${"]".repeat(10_000)}`)).toBe(200);
    const [listed] = await client.list();
    expect(JSON.stringify(listed?.json)).toContain("nested deeper than 64 levels");
  });

  // A load run's standalone sink: every callback kept (on disk), memory bounded by H2H_SINK_MAX_CALLBACKS.
  it("the standalone sink keeps every one of 2000 callbacks of 30 KB on disk, only H2H_SINK_MAX_CALLBACKS in memory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-sink-flood-"));
    const token = "f".repeat(32);
    const { H2H_PROFILE: _profile, ...env } = process.env;
    const child = spawn(process.execPath, [...commandArgs("sink"), "--data-dir", dir, "--token", token], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...env, H2H_SINK_MAX_CALLBACKS: "100" },
    });
    let out = "";
    const url = await new Promise<string>((resolve, reject) => {
      const take = (chunk: Buffer) => {
        out += chunk.toString();
        const match = /LISTENING (\S+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      };
      child.stdout.on("data", take);
      child.stderr.on("data", take);
      child.once("exit", (code) => reject(new Error(`sink exited early (${code}): ${out}`)));
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      const pad = "p".repeat(30 * 1024 - 100);
      let next = 0;
      const statuses: number[] = [];
      const sendAll = async () => {
        for (let i = next++; i < 2000; i = next++)
          statuses.push(
            await post(`${url}/callbacks/${token}/run/flood/at/1/expect/succeeded`, body(`o-${i}`, pad)),
          );
      };
      await Promise.all(Array.from({ length: 8 }, sendAll));
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const peakKiB = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
      console.log(
        `standalone sink after 2000 callbacks of 30 KB: peak RSS ${Math.round(peakKiB / 1024)} MiB`,
      );
      expect(peakKiB).toBeLessThan(512 * 1024);
      const auth = { headers: { authorization: `Bearer ${token}` } };
      const stats = (await (await request(`${url}/api/stats`, auth)).body.json()) as {
        stored: number;
        spilled: number;
        excess?: unknown;
      };
      expect(stats).toMatchObject({ stored: 100, spilled: 1900 });
      expect(stats.excess).toBeUndefined();
      // Every one is on disk, and in the delivery count.
      expect(readFileSync(join(dir, LOG_FILE), "utf8").trim().split("\n")).toHaveLength(2000);
      const delivery = (await (
        await request(`${url}/api/delivery?runId=flood&windowMs=5000`, auth)
      ).body.json()) as { tally: { callbacks: number; byExpected: { succeeded: { delivered: number } } } };
      expect(delivery.tally.callbacks).toBe(2000);
      expect(delivery.tally.byExpected.succeeded.delivered).toBe(2000);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
    expect(out).toMatch(/the oldest now leave memory/);
  });
});
