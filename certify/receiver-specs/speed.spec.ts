/**
 * Speed: a bounded burst of valid callbacks, a few at a time; the 95th percentile of the time to
 * a 2xx against the profile's callback timeout. The burst stops once more than 5% are over it:
 * the percentile is then over whatever the rest would show.
 */

import {
  CALLBACK_STATUSES,
  type Exchange,
  ORDER_KINDS,
  receiverAckP95,
  validDelivery,
} from "../../contract/index.ts";
import { describe, it } from "../engine/spec-api.ts";
import { verify } from "../specs/support/verify.ts";
import { loadReceiverTarget } from "./support.ts";

const target = loadReceiverTarget(import.meta.filename);
const { timeoutMs } = target;
const { deliveries: planned, concurrency } = target.context.burst;

describe("(speed)", () => {
  it(`${receiverAckP95.name} › ${planned} valid callbacks, ${concurrency} at a time`, async (context) => {
    const durationsMs: number[] = [];
    const exchanges: Exchange[] = [];
    const allowedOver = planned - Math.ceil(0.95 * planned);
    let next = 0;
    const over = () => durationsMs.filter((d) => d > timeoutMs).length;
    const sender = async () => {
      while (next < planned && over() <= allowedOver) {
        const i = next++;
        const kind = ORDER_KINDS[i % ORDER_KINDS.length] as (typeof ORDER_KINDS)[number];
        const status = CALLBACK_STATUSES[
          Math.floor(i / ORDER_KINDS.length) % CALLBACK_STATUSES.length
        ] as string;
        const delivery = validDelivery(
          target.profile,
          target.secret,
          target.orderOf(kind, 10 + (i % 25)),
          status,
          `burst ${i + 1}: ${status}, ${kind}`,
        );
        const { answer, exchange } = await target.deliver(delivery);
        exchanges.push(exchange);
        const acknowledged = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
        durationsMs.push(acknowledged ? answer.durationMs : Number.POSITIVE_INFINITY);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, sender));
    verify(context, target, receiverAckP95, { durationsMs, planned, timeoutMs }, exchanges, {
      subject: null,
    });
  });
});
