/**
 * The reference receiver on its own: it takes a signed callback once per order and status however
 * often it comes, refuses what is not signed or not a callback with the right 4xx, and names an
 * unknown fault with the list of known ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signCallbackBody } from "../../contract/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { receiverFaultsOf } from "./faults.ts";
import {
  RECEIVER_MAX_BODY_BYTES,
  type RunningReferenceReceiver,
  startReferenceReceiver,
} from "./receiver.ts";

const SECRET = "receiver-test-secret";
const scheme = REFERENCE_PROFILE.callbacks.signature;
if (scheme.scheme !== "hmac-sha256") throw new Error("the reference profile signs its callbacks");

let receiver: RunningReferenceReceiver;
beforeAll(async () => {
  receiver = await startReferenceReceiver({ profile: REFERENCE_PROFILE, secret: SECRET });
});
afterAll(() => receiver.stop());

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(receiver.url, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "x-signature": signCallbackBody(body, SECRET, scheme),
      ...headers,
    },
  }).then((r) => r.status);

describe("the reference receiver", () => {
  it("acknowledges a callback each time it comes, and works on it once", async () => {
    const body = JSON.stringify({ id: "ord-1", status: "succeeded" });
    expect([await post(body), await post(body), await post(body)]).toEqual([200, 200, 200]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(receiver.handled.filter((h) => h.orderId === "ord-1")).toEqual([
      { orderId: "ord-1", status: "succeeded" },
    ]);
  });

  it("refuses with the right 4xx: a bad signature 401, not JSON 400, no status 400, another type 415, too large 413", async () => {
    const body = JSON.stringify({ id: "ord-2", status: "succeeded" });
    expect(await post(body, { "x-signature": signCallbackBody(body, "another", scheme) })).toBe(401);
    expect(await post("{nope")).toBe(400);
    expect(await post(JSON.stringify({ id: "ord-2" }))).toBe(400);
    expect(await post(body, { "content-type": "text/plain" })).toBe(415);
    expect(await post(`{"pad":"${"x".repeat(RECEIVER_MAX_BODY_BYTES)}"}`)).toBe(413);
    expect(receiver.handled.some((h) => h.orderId === "ord-2")).toBe(false);
  });

  it("names an unknown fault with the known ones", () => {
    expect(() => receiverFaultsOf(["no-such-fault"])).toThrow(
      /unknown receiver fault no-such-fault: one of accepts-bad-signature/,
    );
  });
});
