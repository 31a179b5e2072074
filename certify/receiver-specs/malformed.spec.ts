/**
 * Malformed deliveries, each validly signed so that only its content is wrong: answered in time
 * and never with a 5xx, and refused with a 4xx.
 */

import {
  ADVISORY_MALFORMED_CASES,
  malformedDeliveries,
  ORDER_KINDS,
  receiverRefusesMalformed,
  receiverSurvivesMalformed,
} from "../../contract/index.ts";
import { beforeAll, describe, it } from "../engine/spec-api.ts";
import { verify } from "../specs/support/verify.ts";
import { type Delivered, loadReceiverTarget } from "./support.ts";

const target = loadReceiverTarget(import.meta.filename);
const { timeoutMs } = target;
const deliveries = malformedDeliveries(target.profile, target.secret, target.orderOf(ORDER_KINDS[0], 7));
const delivered = new Map<string, Delivered>();

describe("(malformed deliveries)", () => {
  beforeAll(async () => {
    // Side by side: a receiver that hangs on each costs one timeout, not six.
    const answers = await Promise.all(deliveries.map((delivery) => target.deliver(delivery)));
    deliveries.forEach((delivery, i) => {
      delivered.set(delivery.case, answers[i] as Delivered);
    });
  });

  for (const delivery of deliveries) {
    it(`${receiverSurvivesMalformed.name} › ${delivery.case}`, (context) => {
      const { answer, exchange } = delivered.get(delivery.case) as Delivered;
      verify(context, target, receiverSurvivesMalformed, { answer, timeoutMs }, [exchange], {
        subject: null,
      });
    });
    it(`${receiverRefusesMalformed.name} › ${delivery.case}`, (context) => {
      const { answer, exchange } = delivered.get(delivery.case) as Delivered;
      const failedFirst = answer.status === undefined || answer.status >= 500;
      const advisory = ADVISORY_MALFORMED_CASES[delivery.case];
      verify(context, target, receiverRefusesMalformed, { answer }, [exchange], {
        subject: null,
        // One cause, one failure: a 5xx or no answer is receiver.survives-malformed's.
        ...(failedFirst
          ? {
              blockedBy: {
                check: receiverSurvivesMalformed.name,
                case: delivery.case,
                exchange: exchange.id,
                reason: `the receiver failed on it (${answer.status === undefined ? (answer.error ?? "no answer") : `HTTP ${answer.status}`})`,
              },
            }
          : {}),
        ...(advisory
          ? {
              informationalReason: `advisory: ${advisory}`,
              ruleSource: { kind: "advisory" as const, reason: advisory, declaredBy: [] },
            }
          : {}),
      });
    });
  }
});
