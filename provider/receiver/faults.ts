/**
 * The reference receiver's faults: the mistakes a merchant's webhook receiver makes. Each names
 * the receiver checks that must catch it, and the profile keys it needs to be seen; the receiver
 * battery's self-test (receiver-battery.test.ts) runs each and requires those checks to fail.
 */

export interface ReceiverFault {
  name: string;
  description: string;
  /** The checks that must fail against it. */
  detectedBy: readonly string[];
  /** Profile keys it needs to be seen, merged into the reference profile (a replay window, say). */
  profile?: Record<string, unknown>;
}

const fault = (
  name: string,
  description: string,
  detectedBy: readonly string[],
  profile?: Record<string, unknown>,
): ReceiverFault => ({ name, description, detectedBy, ...(profile ? { profile } : {}) });

export const RECEIVER_FAULT_LIST = [
  fault("accepts-bad-signature", "takes any signature, or none", ["receiver.refuses-forgery"]),
  fault("accepts-any-prefix", "takes the digest after any prefix", ["receiver.refuses-wrong-prefix"]),
  fault(
    "verifies-reserialised-body",
    "verifies the signature over the body parsed and serialised again, not the bytes that came",
    ["receiver.acknowledges-valid"],
  ),
  fault("acknowledges-replay", "takes a callback however old it is", ["receiver.refuses-replay"], {
    callbacks: { replayWindowSeconds: 300 },
  }),
  fault("server-error-on-duplicate", "a 500 for a callback it already took", [
    "receiver.acknowledges-duplicates",
  ]),
  fault("server-error-after-final", "a 500 for a second status of an order", ["receiver.answers-variation"]),
  fault(
    "acknowledges-unknown-order",
    "takes a callback of an order the merchant never made, where its profile says to refuse it",
    ["receiver.unknown-order"],
    { callbacks: { unknownOrder: "refuse" } },
  ),
  fault("server-error-on-not-json", "a 500 for a body that is not JSON", ["receiver.survives-malformed"]),
  fault("hangs-on-not-json", "never answers a body that is not JSON", ["receiver.survives-malformed"]),
  fault("crashes-on-unknown-status", "throws on a status it does not know: a 500", [
    "receiver.survives-malformed",
  ]),
  fault("acknowledges-malformed-json", "a 2xx for a body that is not JSON, whatever its Content-Type", [
    "receiver.refuses-malformed",
  ]),
  fault("slow-ack", "acknowledges only after the profile's callback timeout", [
    "receiver.acknowledges-valid",
    "receiver.ack-p95",
  ]),
] as const satisfies readonly ReceiverFault[];

export type ReceiverFaultName = (typeof RECEIVER_FAULT_LIST)[number]["name"];

export const RECEIVER_FAULTS: ReadonlyMap<string, ReceiverFault> = new Map(
  RECEIVER_FAULT_LIST.map((f) => [f.name, f]),
);

/** The faults switched on, each name checked. */
export function receiverFaultsOf(names: readonly string[]): ReadonlySet<ReceiverFaultName> {
  const unknown = names.filter((name) => !RECEIVER_FAULTS.has(name));
  if (unknown.length > 0)
    throw new Error(
      `unknown receiver fault ${unknown.join(", ")}: one of ${[...RECEIVER_FAULTS.keys()].join(", ")}`,
    );
  return new Set(names as ReceiverFaultName[]);
}
