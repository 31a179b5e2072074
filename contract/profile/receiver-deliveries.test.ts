/**
 * The receiver battery's deliveries: valid ones verify under the profile's scheme, byte for byte;
 * each forgery does not (or, for a prefix, only its digest does); the malformed ones are what
 * they say; bodies follow the profile's paths, nested ones too.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { verifyCallbackSignature } from "../schemas/index.ts";
import { parseProfile } from "./profile.ts";
import {
  forgedDeliveries,
  LARGE_BODY_BYTES,
  malformedDeliveries,
  type ReceiverOrder,
  tamperedBody,
  unknownStatusOf,
  validDeliveries,
} from "./receiver-deliveries.ts";

const SECRET = "test-secret";
const order = (n: number): ReceiverOrder => ({
  id: `ord-${n}`,
  amount: 1500,
  kind: "mobile_commerce",
  merchantOrderID: `m-${n}`,
});
const scheme = REFERENCE_PROFILE.callbacks.signature;
if (scheme.scheme !== "hmac-sha256") throw new Error("the reference profile signs its callbacks");
const holds = (body: string, headers: Record<string, string>) =>
  verifyCallbackSignature(body, headers[scheme.header.toLowerCase()], SECRET, scheme).valid;

describe("the receiver battery's deliveries", () => {
  it("signs the 4 statuses of both kinds over the raw body, the second kind's spaced over lines", () => {
    const deliveries = validDeliveries(REFERENCE_PROFILE, SECRET, (kind, i) => ({ ...order(i), kind }));
    expect(deliveries).toHaveLength(8);
    for (const d of deliveries) expect(holds(d.body, d.headers), d.case).toBe(true);
    expect(deliveries[7]?.body).toContain("\n");
    expect(JSON.parse(deliveries[0]?.body ?? "")).toMatchObject({
      id: "ord-0",
      status: "succeeded",
      amount: 1500,
      currency: "RUB",
    });
  });

  it("forges: none of the signature forgeries holds; the prefix ones carry the right digest under another prefix", () => {
    const forged = forgedDeliveries(REFERENCE_PROFILE, SECRET, order(1), order(2));
    expect(forged.signature.map((d) => d.case)).toEqual([
      "no signature",
      "a signature with another secret",
      "a signature over another body",
      "the body changed after signing",
    ]);
    for (const d of forged.signature) expect(holds(d.body, d.headers), d.case).toBe(false);
    const digest = (forged.signature[3]?.headers["x-signature"] ?? "").slice("sha256=".length);
    expect(forged.prefix.map((d) => d.headers["x-signature"])).toEqual([
      digest,
      `sha1=${digest}`,
      `SHA256=${digest}`,
    ]);
    // No replay window declared: no replay.
    expect(forged.replay).toEqual([]);
  });

  it("changes one digit of the amount after signing", () => {
    const body = '{"id":"ord-1","status":"succeeded","amount":1500}';
    const changed = tamperedBody(body, order(1), REFERENCE_PROFILE);
    expect(changed).toBe('{"id":"ord-1","status":"succeeded","amount":2500}');
  });

  it("replays a callback a minute older than a declared window", () => {
    const profile = {
      ...REFERENCE_PROFILE,
      callbacks: { ...REFERENCE_PROFILE.callbacks, replayWindowSeconds: 300 },
    };
    const now = new Date("2026-01-01T00:10:00Z");
    const [replay] = forgedDeliveries(profile, SECRET, order(1), order(2), now).replay;
    expect(replay && holds(replay.body, replay.headers)).toBe(true);
    expect(JSON.parse(replay?.body ?? "").dateUpdated).toBe("2026-01-01T00:04:00.000Z");
  });

  it("makes each malformed delivery, validly signed: a 1 MB body is 1 MB", () => {
    const malformed = malformedDeliveries(REFERENCE_PROFILE, SECRET, order(3));
    expect(malformed.map((d) => d.case)).toEqual([
      "not JSON",
      "an empty body",
      "a 1 MB body",
      "Content-Type text/plain",
      "no status",
      `the status "${unknownStatusOf(REFERENCE_PROFILE)}"`,
    ]);
    for (const d of malformed) expect(holds(d.body, d.headers), d.case).toBe(true);
    expect(Buffer.byteLength(malformed[2]?.body ?? "")).toBe(LARGE_BODY_BYTES);
    expect(JSON.parse(malformed[4]?.body ?? "")).not.toHaveProperty("status");
  });

  it("follows the profile's paths, nested ones too, and its scheme (the clean-room provider's)", () => {
    const cleanroom = parseProfile(
      JSON.parse(readFileSync(new URL("../../fixtures/profiles/cleanroom.json", import.meta.url), "utf8")),
      "cleanroom.json",
    );
    const [first] = validDeliveries(cleanroom, SECRET, (kind, i) => ({ ...order(i), kind }));
    expect(JSON.parse(first?.body ?? "")).toMatchObject({ order: { id: "ord-0", status: "succeeded" } });
    expect(first?.headers).toHaveProperty("x-callback-signature");
    // No prefix in that scheme: nothing to vary.
    expect(forgedDeliveries(cleanroom, SECRET, order(1), order(2)).prefix).toEqual([]);
  });
});
