/**
 * Mobile-commerce orders (api §4.1, §4.2): the order record a creation answers, field by field
 * and value by value, then the confirmation flow.
 */

import {
  fieldsOrderRecord,
  semanticsAmountEchoed,
  semanticsCommissionNonNegative,
  semanticsCurrencyOfMethod,
  semanticsDatesOrdered,
  semanticsExchangeRatePositive,
  semanticsMethodEchoed,
  semanticsRequisiteTypeFields,
  semanticsRoutingAttemptsEmpty,
  semanticsUsdtAmount,
  semanticsUsdtCommission,
} from "../../contract/index.ts";
import { it } from "../engine/spec-api.ts";
import { confirmationTests, creationTests } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const method = target.profile.methods.mobile_commerce;

creationTests(
  target,
  "mobile_commerce",
  { fields: fieldsOrderRecord, echoField: "idTransactionMerchant", duplicateThrough: "mobile_commerce" },
  ({ order, data }) => {
    const evidence = () => [order().exchange];
    const tolerance = target.profile.usdtTolerance;
    it(semanticsUsdtAmount.name, (ctx) =>
      verify(ctx, target, semanticsUsdtAmount, { record: data(), tolerance }, evidence()),
    );
    it(semanticsUsdtCommission.name, (ctx) =>
      verify(ctx, target, semanticsUsdtCommission, { record: data(), tolerance }, evidence()),
    );
    it(semanticsCommissionNonNegative.name, (ctx) =>
      verify(ctx, target, semanticsCommissionNonNegative, data(), evidence()),
    );
    it(semanticsExchangeRatePositive.name, (ctx) =>
      verify(ctx, target, semanticsExchangeRatePositive, data(), evidence()),
    );
    it(semanticsAmountEchoed.name, (ctx) =>
      verify(
        ctx,
        target,
        semanticsAmountEchoed,
        { field: "amount", expected: order().request.amount, received: data().amount },
        evidence(),
      ),
    );
    it(semanticsCurrencyOfMethod.name, (ctx) =>
      verify(
        ctx,
        target,
        semanticsCurrencyOfMethod,
        { field: "currency", expected: method.currency, received: data().currency },
        evidence(),
      ),
    );
    it(semanticsMethodEchoed.name, (ctx) =>
      verify(
        ctx,
        target,
        semanticsMethodEchoed,
        {
          field: "paymentDetailsData.methodID",
          expected: method.methodID,
          received: (data().paymentDetailsData as Record<string, unknown> | undefined)?.methodID,
        },
        evidence(),
      ),
    );
    it(semanticsRequisiteTypeFields.name, (ctx) =>
      verify(
        ctx,
        target,
        semanticsRequisiteTypeFields,
        {
          paymentDetails: data().paymentDetailsData,
          methodID: method.methodID,
          declaredType: method.requisiteTypeCode,
          linkTypes: target.profile.gaps.linkRequisiteTypes ?? [],
        },
        evidence(),
      ),
    );
    it(semanticsDatesOrdered.name, (ctx) =>
      verify(
        ctx,
        target,
        semanticsDatesOrdered,
        { record: data(), rfc3339: target.profile.gaps.dateFormat === "rfc3339" },
        evidence(),
      ),
    );
    it(semanticsRoutingAttemptsEmpty.name, (ctx) =>
      verify(ctx, target, semanticsRoutingAttemptsEmpty, data(), evidence()),
    );
  },
);

confirmationTests(target, "mobile_commerce");
