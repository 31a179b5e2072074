/**
 * An amount finer than the currency's smallest unit (contract/generation/amount-rounding.ts) is judged as
 * sent, not as rounded: a target that rounds first makes an order of 0 from 0.004, or takes an
 * amount past its maximum because it rounds back onto it.
 */
import type { ExchangeResponse } from "../client/index.ts";
import { evaluateRejection, type PinnedError } from "./behaviour.ts";
import { defineCheck, fail, pass, show } from "./check.ts";

export interface AmountRoundingInput {
  /** The amount sent, what it rounds to, and at how many decimals. */
  sent: number;
  rounded: number;
  decimals: number;
  /** Refused or kept exactly (within every bound as sent), or refused (past a limit as sent). */
  expect: "refused-or-exact" | "refused";
  /** The answer to the creation. */
  response: ExchangeResponse;
  /** The error the profile pins for a refused request (`errors.validation`). */
  pinned?: PinnedError | undefined;
  /** The created order's amount as the target states it (order record or confirmation result). */
  orderAmount?: unknown;
}

export const behaviourAmountNotRoundedPastLimit = defineCheck<AmountRoundingInput>(
  "behaviour.amount-not-rounded-past-limit",
  "behaviour",
  "An amount finer than the currency's smallest unit is judged as sent, not as rounded: one that rounds to 0 (0.004 at 2 decimals) is refused or kept exactly, never made an order of 0; one past a method's limit that rounds onto it is refused.",
  (input) => {
    const { sent, rounded, decimals, expect, response, orderAmount } = input;
    const how = `${sent} rounds to ${rounded} at ${decimals} decimal(s)`;
    const accepted = response.status >= 200 && response.status < 300;
    if (!accepted) {
      const refusal = evaluateRejection({ response, pinned: input.pinned });
      return refusal.ok ? pass(`${refusal.detail} (${how})`) : refusal;
    }
    if (expect === "refused")
      return fail(`accepted ${sent}, past the method's limit as sent (${how})`, [
        {
          path: "amount",
          expected: `a refusal: ${sent} is past the limit`,
          actual: `HTTP ${response.status}`,
        },
      ]);
    if (orderAmount === sent) return pass(`accepted, and the order keeps ${sent} exactly`);
    return fail(
      `accepted ${sent}, and the order's amount is ${show(orderAmount)}: neither refused nor kept as sent (${how})`,
      [
        {
          path: "data.amount",
          expected: `${sent} (the amount sent), or a refusal`,
          actual: show(orderAmount),
        },
      ],
    );
  },
  {
    source: {
      kind: "necessary",
      reason:
        "§4.1 and §4.3: the order is for the payment amount sent (§2.2, §2.3 echo it), a payment of 0 moves no money, and a method's limits hold for the amount sent",
    },
  },
);
