/**
 * Forged callbacks: a signature that does not hold, a prefix that is not the scheme's (where it
 * fixes one), a replay older than the profile's window (where it declares one). None may be
 * acknowledged: that is the most serious failure the battery can find.
 */

import {
  type Check,
  type Delivery,
  forgedDeliveries,
  ORDER_KINDS,
  type ReceiverAnswer,
  receiverRefusesForgery,
  receiverRefusesReplay,
  receiverRefusesWrongPrefix,
} from "../../contract/index.ts";
import { describe, it } from "../engine/spec-api.ts";
import { verify } from "../specs/support/verify.ts";
import { loadReceiverTarget } from "./support.ts";

const target = loadReceiverTarget(import.meta.filename);
const { profile } = target;
const scheme = profile.callbacks.signature;
const [kind, otherKind] = ORDER_KINDS;

const forgeries =
  target.secret === null
    ? { signature: [], prefix: [], replay: [] }
    : forgedDeliveries(profile, target.secret, target.orderOf(kind, 5), target.orderOf(otherKind, 6));

function judged(check: Check<{ answer: ReceiverAnswer }>, deliveries: Delivery[], none: string) {
  if (deliveries.length === 0) {
    it(check.name, (context) => context.skip(none));
    return;
  }
  for (const delivery of deliveries)
    it(`${check.name} › ${delivery.case}`, async (context) => {
      const { answer, exchange } = await target.deliver(delivery);
      verify(context, target, check, { answer }, [exchange], { subject: null });
    });
}

const unsigned =
  'the profile\'s callbacks are unsigned (callbacks.signature.scheme "none"): nothing to forge';

describe("(forgeries)", () => {
  judged(receiverRefusesForgery, forgeries.signature, unsigned);
  judged(
    receiverRefusesWrongPrefix,
    forgeries.prefix,
    scheme.scheme === "none"
      ? unsigned
      : 'the profile\'s signature scheme fixes no prefix (callbacks.signature.prefix "")',
  );
  judged(
    receiverRefusesReplay,
    forgeries.replay,
    scheme.scheme === "none"
      ? unsigned
      : profile.callbacks.replayWindowSeconds === undefined
        ? "the profile declares no replay window (callbacks.replayWindowSeconds)"
        : "the profile names no time in the callback body (callbacks.dateUpdatedPath)",
  );
});
