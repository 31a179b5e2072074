/**
 * The client against small hostile targets on raw sockets: a POST the target may have processed
 * is never sent twice, and every transport fault is named for what it is.
 */
import { afterEach, describe, expect, it } from "vitest";
import { jsonAnswer, type RawTarget, startRawTarget } from "../../fixtures/testing/index.ts";
import { type Exchange, H2hClient, TransportError } from "./h2h-client.ts";

const targets: RawTarget[] = [];
const clients: H2hClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const target of targets.splice(0)) await target.stop();
});

async function rawTarget(...args: Parameters<typeof startRawTarget>): Promise<RawTarget> {
  const target = await startRawTarget(...args);
  targets.push(target);
  return target;
}
function clientOf(url: string, onExchange?: (exchange: Exchange) => void): H2hClient {
  const client = new H2hClient({
    baseUrl: url,
    apiKey: "k",
    timeoutMs: 5_000,
    ...(onExchange ? { onExchange } : {}),
  });
  clients.push(client);
  return client;
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("a target that processes a POST and closes the connection without answering", () => {
  for (const announced of [undefined, 5]) {
    it(`never sends a POST twice, and names each lost answer (Keep-Alive hint: ${announced ?? "none"})`, async () => {
      // Every third request on a connection is processed (read whole), then the connection closed.
      const target = await rawTarget((request) =>
        request.nth % 3 === 0
          ? { close: true }
          : {
              write: jsonAnswer(
                200,
                { ok: request.body },
                announced ? [`keep-alive: timeout=${announced}`] : [],
              ),
            },
      );
      const h2h = clientOf(target.url);
      const faults: TransportError[] = [];
      for (let i = 0; i < 12; i++) {
        const failure = await failureOf(h2h.post("/api/v1/orders", { merchantOrderID: `order-${i}` }));
        if (failure !== undefined) {
          expect(failure).toBeInstanceOf(TransportError);
          faults.push(failure as TransportError);
        }
        await pause(5 + (i % 4) * 20);
      }
      // Counted on the target: each POST arrived once.
      const bodies = target.requests.map((r) => r.body);
      expect(new Set(bodies).size, bodies.join("\n")).toBe(bodies.length);
      expect(bodies).toHaveLength(12);
      expect(faults.length).toBeGreaterThanOrEqual(3);
      for (const fault of faults) {
        expect(fault.fault).toBe("no answer");
        expect(fault.staleConnection).toBe(false);
        expect(fault.message).toContain("not sent again: the target may have processed it");
      }
    });
  }
});

describe("an answer no request asked for (HTTP desync)", () => {
  it("marks the exchange that took a stray answer for its own, once the real one shows", async () => {
    // The first request on a connection is answered, then a stray decoy 20 ms later; the second
    // request's real answer comes 150 ms after it was read: the decoy is taken for it.
    const target = await rawTarget(async (request, socket) => {
      if (request.nth === 1) {
        setTimeout(() => socket.write(jsonAnswer(200, { answer: "decoy, amount 0 accepted" })), 20);
        return { write: jsonAnswer(200, { answer: "first" }) };
      }
      await pause(150);
      return { write: jsonAnswer(200, { answer: "second" }) };
    });
    // undici reuses the connection only once it found it idle (a turn of the event loop): tried
    // until the second request goes out on the first one's connection.
    for (let attempt = 0; attempt < 10; attempt++) {
      const h2h = clientOf(target.url);
      await h2h.post("/x", { attempt, i: 1 });
      await pause(5);
      const second = await h2h.post("/x", { attempt, i: 2 });
      const last = target.requests.at(-1);
      if (last?.nth !== 2) continue;
      expect(second.response.json).toEqual({ answer: "decoy, amount 0 accepted" });
      await pause(300);
      expect(second.transportFault?.kind).toBe("desync");
      expect(second.transportFault?.detail).toContain("may belong to another request");
      return;
    }
    expect.fail("the second request never went out on the first one's connection");
  });

  it("marks an answer followed at once by a stray one on its connection", async () => {
    const target = await rawTarget(() => ({
      write: jsonAnswer(200, { answer: "real" }) + jsonAnswer(200, { answer: "stray" }),
    }));
    const h2h = clientOf(target.url);
    const exchange = await h2h.post("/x", {});
    await pause(50);
    expect(exchange.transportFault?.kind).toBe("desync");
    // The stray answer is never taken for the next request's.
    expect((await h2h.post("/x", {})).response.json).toEqual({ answer: "real" });
  });
});
