import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededJitter, startJitterProxy } from "./forwarder.ts";

describe("seededJitter", () => {
  it("draws 0 to maxMs per exchange, split between request and answer, the same for the same seed", () => {
    const a = seededJitter(7, 1500);
    const b = seededJitter(7, 1500);
    const drawn = Array.from({ length: 200 }, () => a());
    expect(Array.from({ length: 200 }, () => b())).toEqual(drawn);
    const totals = drawn.map((hold) => hold.requestMs + hold.answerMs);
    expect(Math.min(...totals)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...totals)).toBeLessThanOrEqual(1500);
    // Spread over the range, and over both legs.
    expect(Math.max(...totals) - Math.min(...totals)).toBeGreaterThan(1000);
    expect(drawn.some((hold) => hold.requestMs > hold.answerMs + 200)).toBe(true);
    expect(drawn.some((hold) => hold.answerMs > hold.requestMs + 200)).toBe(true);
    expect(seededJitter(8, 1500)()).not.toEqual(seededJitter(7, 1500)());
  });

  it("refuses a negative or non-finite maximum, naming it", () => {
    expect(() => seededJitter(1, -1)).toThrow(/jitter of -1 ms: give a number of milliseconds ≥ 0/);
    expect(() => seededJitter(1, Number.NaN)).toThrow(/jitter of NaN ms/);
  });
});

describe("startJitterProxy", () => {
  let upstreamUrl = "";
  const upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      res.writeHead(201, { "content-type": "application/json", "x-seen-path": req.url ?? "" });
      res.end(Buffer.concat(chunks));
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  it("passes each exchange on unchanged, held back by what the seed draws", async () => {
    const proxy = await startJitterProxy(upstreamUrl, 300, 11);
    try {
      const expected = seededJitter(11, 300);
      const draws = [expected(), expected(), expected()];
      for (const [i, hold] of draws.entries()) {
        const began = performance.now();
        const body = JSON.stringify({ i, text: "x".repeat(10_000) });
        const answer = await fetch(`${proxy.url}/a/path?q=1`, { method: "POST", body });
        expect(answer.status).toBe(201);
        expect(answer.headers.get("x-seen-path")).toBe("/a/path?q=1");
        expect(await answer.text()).toBe(body);
        // Held at least as long as drawn (timers never fire early); the upper side depends on load.
        expect(performance.now() - began).toBeGreaterThanOrEqual(hold.requestMs + hold.answerMs - 1);
      }
      const totals = draws.map((hold) => hold.requestMs + hold.answerMs);
      expect(proxy.delays()).toEqual({
        count: totals.filter((ms) => ms > 0).length,
        maxMs: Math.max(...totals),
      });
    } finally {
      await proxy.close();
    }
  });
});
