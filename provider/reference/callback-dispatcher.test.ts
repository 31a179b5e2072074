/**
 * The reference provider delivers callbacks as merchants run them: any 2xx acknowledges (and ends
 * the deliveries), anything else is retried, and the webHook URL is called exactly as given.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type CallbackReceiver, startCallbackReceiver } from "../../fixtures/testing/index.ts";
import { acknowledgesCallback, CallbackDispatcher } from "./callback-dispatcher.ts";

let receiver: CallbackReceiver | undefined;
let dispatcher: CallbackDispatcher | undefined;
afterEach(async () => {
  await dispatcher?.stop();
  await receiver?.stop();
  dispatcher = undefined;
  receiver = undefined;
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Dispatches one callback per path; resolves once `expected` deliveries came, and a retry's delay more. */
async function deliverTo(
  answer: (delivery: number, path: string) => number,
  paths: string[],
  expected = paths.length,
) {
  receiver = await startCallbackReceiver(answer);
  dispatcher = new CallbackDispatcher({ retryDelaysMs: [20, 20], attemptTimeoutMs: 2_000, log: () => {} });
  for (const path of paths) dispatcher.dispatch(`${receiver.url}${path}`, { id: path }, "secret");
  // Waits for what must come however slow the machine, then a little more for what must not.
  for (let waited = 0; receiver.received.length < expected && waited < 10_000; waited += 10) await pause(10);
  await pause(150);
  return receiver.received;
}

describe("callback dispatcher", () => {
  it("takes any 2xx as acknowledged: one delivery each for 200, 201, 202 and 204", async () => {
    const statuses = [200, 201, 202, 204];
    const received = await deliverTo(
      (_, path) => Number(path.slice(1)),
      statuses.map((s) => `/${s}`),
    );
    for (const status of statuses)
      expect(received.filter((c) => c.path === `/${status}`).length, `HTTP ${status}`).toBe(1);
    expect([199, 300, 503].some(acknowledgesCallback)).toBe(false);
  });

  it("retries an answer that is not 2xx, as often as its schedule says", async () => {
    const received = await deliverTo(() => 503, ["/refused"], 3);
    expect(received.map((c) => c.answeredWith)).toEqual([503, 503, 503]);
  });

  it("calls the webHook exactly as given: a trailing /, a query, percent-encoding", async () => {
    const paths = ["/hook/", "/hook/?a=1&b=%2F", "/p%C3%BCt/x?note=%D0%B7&tag=a%2Fb%3Dc%20d"];
    const received = await deliverTo(() => 200, paths);
    expect(received.map((c) => c.path).sort()).toEqual([...paths].sort());
  });
});
