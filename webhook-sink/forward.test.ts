/**
 * The sink's forward hook (observe mode): the hook's answer is the sink's, and the callback is
 * still kept; no delivery tally is kept, whose state per run would grow with every order.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ForwardedCallback, startWebhookSink } from "./index.ts";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the sink's forward hook", () => {
  it("answers the provider with the hook's answer and keeps the callback with it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "sink-forward-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const handed: ForwardedCallback[] = [];
    const sink = await startWebhookSink({
      dataDir,
      sync: false,
      forward: async (callback) => {
        handed.push(callback);
        return {
          status: 409,
          headers: { "content-type": "text/plain", connection: "close" },
          body: Buffer.from("seen"),
        };
      },
    });
    cleanups.push(() => sink.stop());
    const body = '{"id":"o-7","status":"expired"}';
    // refuse/1 would make the sink answer 503 itself: the hook's answer wins.
    const answer = await fetch(sink.callbackUrl({ runId: "w3", refuse: 1 }), {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": "sha256=00" },
      body,
    });
    expect(answer.status).toBe(409);
    expect(await answer.text()).toBe("seen");
    expect(handed[0]?.runId).toBe("w3");
    expect(handed[0]?.raw.toString()).toBe(body);
    expect(handed[0]?.headers["x-signature"]).toBe("sha256=00");
    expect(handed[0]?.orderId).toBe("o-7");
    const listed = await fetch(`${sink.url}/api/callbacks?orderId=o-7`, {
      headers: { authorization: `Bearer ${sink.token}` },
    }).then((r) => r.json() as Promise<{ callbacks: { answeredWith: number }[] }>);
    expect(listed.callbacks.map((c) => c.answeredWith)).toEqual([409]);
  });

  it("keeps no delivery tally: each order's callback URL is a run of its own, and a session has thousands", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "sink-forward-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const sink = await startWebhookSink({
      dataDir,
      sync: false,
      forward: async () => ({ status: 200, headers: {}, body: Buffer.from("ok") }),
    });
    cleanups.push(() => sink.stop());
    for (const runId of ["w1", "w2"])
      expect(
        (
          await fetch(sink.callbackUrl({ runId }), {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: `{"id":"o-${runId}","status":"succeeded"}`,
          })
        ).status,
      ).toBe(200);
    const delivery = await fetch(`${sink.url}/api/delivery?runId=w1&windowMs=5000`, {
      headers: { authorization: `Bearer ${sink.token}` },
    });
    expect(delivery.status).toBe(404);
    expect(((await delivery.json()) as { error: string }).error).toMatch(
      /^no delivery tally: .*observe mode/,
    );
  });
});
