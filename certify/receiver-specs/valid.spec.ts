/**
 * Valid callbacks, one by one: each callback status of both order kinds, signed as the profile
 * says, acknowledged in time; then the same callback three times, as a provider that retries
 * sends it.
 */

import {
  ORDER_KINDS,
  receiverAcknowledgesDuplicates,
  receiverAcknowledgesValid,
  validDeliveries,
  validDelivery,
} from "../../contract/index.ts";
import { describe, it } from "../engine/spec-api.ts";
import { verify } from "../specs/support/verify.ts";
import { loadReceiverTarget } from "./support.ts";

const target = loadReceiverTarget(import.meta.filename);
const { timeoutMs } = target;

describe("(valid callbacks)", () => {
  for (const delivery of validDeliveries(target.profile, target.secret, (kind, i) =>
    target.orderOf(kind, 40 + i),
  ))
    it(`${receiverAcknowledgesValid.name} › ${delivery.case}`, async (context) => {
      const { answer, exchange } = await target.deliver(delivery);
      verify(context, target, receiverAcknowledgesValid, { answer, timeoutMs }, [exchange], {
        subject: null,
      });
    });
});

describe("(retries and duplicates)", () => {
  for (const kind of ORDER_KINDS)
    it(`${receiverAcknowledgesDuplicates.name} › succeeded, ${kind}, 3 times`, async (context) => {
      const delivery = validDelivery(target.profile, target.secret, target.orderOf(kind, 1), "succeeded");
      const delivered = [];
      // One after another, as a provider's retries come.
      for (let i = 0; i < 3; i++) delivered.push(await target.deliver(delivery));
      verify(
        context,
        target,
        receiverAcknowledgesDuplicates,
        { answers: delivered.map((d) => d.answer), timeoutMs },
        delivered.map((d) => d.exchange),
        { subject: null },
      );
    });
});
