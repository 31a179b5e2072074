/**
 * Amounts finer than the currency's smallest unit, for every method the profile lists: 0.4 of the
 * unit (0.004 at 2 decimals), which rounds to 0, and each declared limit passed by as much, which
 * rounds back onto it (contract/generation/amount-rounding.ts). The first is refused or kept exactly, never
 * made an order of 0; the second is refused. A quasi-ecom creation answers no amount (§2.4): an
 * accepted one is confirmed, and its confirmation result (§2.3) says the order's amount.
 */

import {
  type AmountRoundingProbe,
  behaviourAmountNotRoundedPastLimit,
  dataOf,
  describeRuleSource,
  OPERATIONS_BY_KIND,
  ORDER_KINDS,
} from "../../contract/index.ts";
import { beforeAll, describe, it } from "../engine/spec-api.ts";
import { roundingRun, type Sent, sendEveryProbe } from "./amount-rounding.driver.ts";
import { curlOf, reproductionOf } from "./support/probes.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const check = behaviourAmountNotRoundedPastLimit;
const rounding = roundingRun(target);
const { probes } = rounding;
let sent: Settled<Map<AmountRoundingProbe, Sent>> | undefined;

beforeAll(async () => {
  sent = await settle(sendEveryProbe(rounding));
});

for (const kind of ORDER_KINDS) {
  describe(OPERATIONS_BY_KIND[kind].create, () => {
    for (const probe of probes.filter((p) => p.method.kind === kind)) {
      it(titled(check, `method ${probe.method.methodID}, ${probe.name}`), (ctx) => {
        const answer = settledValue(sent, "the amount rounding probes").get(probe);
        if (!answer) throw new Error(`the probe ${probe.name} was not sent`);
        const { creation, confirmation } = answer;
        const amountFrom = confirmation ?? creation;
        const evidence = confirmation ? [creation, confirmation] : [creation];
        const accepted = creation.response.status >= 200 && creation.response.status < 300;
        const orderAmount = dataOf(amountFrom.response.json)?.amount;
        const unread = accepted && probe.expect === "refused-or-exact" && typeof orderAmount !== "number";
        verify(
          ctx,
          target,
          check,
          {
            sent: probe.amount,
            rounded: probe.rounded,
            decimals: probe.decimals,
            expect: probe.expect,
            response: creation.response,
            pinned: profile.errors.validation,
            orderAmount,
          },
          evidence,
          {
            ruleSource: probe.basis,
            subject: creation,
            ...(unread
              ? {
                  blockedBy: {
                    check: check.name,
                    reason: `the order was accepted, but ${confirmation ? "its confirmation" : "its creation"} answered no amount to compare (HTTP ${amountFrom.response.status})`,
                    ...(amountFrom.id ? { exchange: amountFrom.id } : {}),
                  },
                }
              : {}),
            reproduction: reproductionOf(target, check.name, {
              request: creation.request.body,
              steps: [
                `method ${probe.method.methodID}: amount ${probe.name} (${describeRuleSource(probe.basis)}), everything else valid`,
              ],
              curl: curlOf(target, creation),
            }),
          },
        );
      });
    }
  });
}
