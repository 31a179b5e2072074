import { afterEach, describe, expect, it } from "vitest";
import { H2hClient, wireTimesOf } from "../../../contract/index.ts";
import { jsonAnswer, type RawTarget, startRawTarget } from "../../../fixtures/testing/index.ts";
import { neverOverlapped } from "./overlap.ts";

describe("neverOverlapped", () => {
  it("says why when each request was answered before the next was sent", () => {
    const reason = neverOverlapped([
      { sentAtMs: 1_020, answeredAtMs: 1_030 },
      { sentAtMs: 1_000, answeredAtMs: 1_010 },
      { sentAtMs: 1_010, answeredAtMs: 1_019 },
    ]);
    expect(reason).toBe(
      'its 3 requests "at once" never overlapped: each was answered before the next was sent (sent at +0, +10, +20 ms; answered at +10, +19, +30 ms), as behind a proxy that serialises them: the target never met the race',
    );
  });

  it("is silent when two may have met at the target, or a time is unknown", () => {
    expect(
      neverOverlapped([
        { sentAtMs: 1_000, answeredAtMs: 1_040 },
        { sentAtMs: 1_001, answeredAtMs: 1_080 },
      ]),
    ).toBeUndefined();
    expect(neverOverlapped([{ sentAtMs: 1_000, answeredAtMs: 1_010 }, undefined])).toBeUndefined();
  });
});

describe("the client's wire times", () => {
  let target: RawTarget | undefined;
  let client: H2hClient | undefined;
  afterEach(async () => {
    await client?.close();
    await target?.stop();
  });

  it("show requests a serialising pool sent one after another, and concurrent ones overlapping", async () => {
    target = await startRawTarget(async () => {
      await new Promise((resolve) => setTimeout(resolve, 15));
      return { write: jsonAnswer(200, {}) };
    });
    client = new H2hClient({ baseUrl: target.url, apiKey: "k", timeoutMs: 5_000 });
    const h2h = client;
    const serial = [];
    for (let i = 0; i < 3; i++) serial.push(await h2h.post("/x", { i }));
    expect(neverOverlapped(serial.map(wireTimesOf))).toMatch(/never overlapped/);
    const atOnce = await Promise.all([0, 1, 2].map((i) => h2h.post("/x", { i })));
    expect(atOnce.every((e) => wireTimesOf(e) !== undefined)).toBe(true);
    expect(neverOverlapped(atOnce.map(wireTimesOf))).toBeUndefined();
  });
});
