/**
 * Spec blocks both order kinds share: the envelope of a response, and the confirmation flow
 * (confirm, wrong code, twice, unknown order, the other kind's path). Each `it` is one check,
 * titled by the check's name (with a case label after "›" where one check runs on several cases).
 */
import { beforeAll, describe, it } from "vitest";
import {
  confirmableAfterWrongCode,
  dataOf,
  envelopeFailureMarkers,
  envelopeJsonContentType,
  envelopeRequestIdPresent,
  envelopeShape,
  envelopeSuccessMarkers,
  fieldsConfirmationResult,
  fieldsStatusKnown,
  rejectsConfirmingTwice,
  rejectsOtherKindConfirmPath,
  rejectsUnknownOrder,
  rejectsWrongCode,
  semanticsConfirmationEchoesOrder,
  semanticsStatusAfterOperation,
  semanticsTimerValid,
} from "../../checks/index.ts";
import { OPERATIONS_BY_KIND, type OrderKind } from "../../endpoints.ts";
import type { Exchange } from "../../h2h-client.ts";
import { type CreatedOrder, confirm, createOrder, orderIdOf } from "./orders.ts";
import type { SpecTarget } from "./target.ts";
import { verify } from "./verify.ts";

/** `check › case`, the title of a check run on one of several cases. */
export const titled = (check: { name: string }, label?: string) =>
  label ? `${check.name} › ${label}` : check.name;

/** The envelope checks of a successful response. */
export function successEnvelopeTests(target: SpecTarget, exchange: () => Exchange, label?: string): void {
  for (const check of [
    envelopeJsonContentType,
    envelopeShape,
    envelopeRequestIdPresent,
    envelopeSuccessMarkers,
  ]) {
    it(titled(check, label), (ctx) => verify(ctx, target, check, exchange().response, [exchange()]));
  }
}

/** The envelope checks of a refusal. */
export function failureEnvelopeTests(target: SpecTarget, exchange: () => Exchange, label: string): void {
  for (const check of [
    envelopeJsonContentType,
    envelopeShape,
    envelopeRequestIdPresent,
    envelopeFailureMarkers,
  ]) {
    it(titled(check, label), (ctx) => verify(ctx, target, check, exchange().response, [exchange()]));
  }
}

const otherKind = (kind: OrderKind): OrderKind =>
  kind === "mobile_commerce" ? "quasi_ecom" : "mobile_commerce";

/** The confirm endpoint of one order kind: a good confirmation, then every refusal around it. */
export function confirmationTests(target: SpecTarget, kind: OrderKind): void {
  const operation = OPERATIONS_BY_KIND[kind].confirm;
  const { successCode, wrongCode } = target.profile.confirmation;
  const errors = target.profile.errors;

  describe(operation, () => {
    let order: CreatedOrder;
    let confirmed: Exchange;
    let wrongCodeOrder: CreatedOrder;
    let wrongCodeAnswer: Exchange;
    let rightCodeAfterWrong: Exchange;
    let confirmedTwice: Exchange;
    let unknownOrder: Exchange;
    let otherKindPath: Exchange;

    beforeAll(async () => {
      const client = target.client();
      order = await createOrder(target, kind);
      confirmed = await confirm(client, kind, orderIdOf(order), successCode);
      confirmedTwice = await confirm(client, kind, orderIdOf(order), successCode);

      wrongCodeOrder = await createOrder(target, kind);
      wrongCodeAnswer = await confirm(client, kind, orderIdOf(wrongCodeOrder), wrongCode);
      rightCodeAfterWrong = await confirm(client, kind, orderIdOf(wrongCodeOrder), successCode);

      // An id the target never issued, in the shape of a real one.
      unknownOrder = await confirm(client, kind, "00000000-0000-4000-8000-00000000dead", successCode);
      const other = await createOrder(target, otherKind(kind));
      otherKindPath = await confirm(client, kind, orderIdOf(other), successCode);
    });

    successEnvelopeTests(target, () => confirmed);
    it(fieldsConfirmationResult.name, (ctx) =>
      verify(
        ctx,
        target,
        fieldsConfirmationResult,
        { data: dataOf(confirmed.response.json), contract: target.contract },
        [confirmed],
      ),
    );
    it(fieldsStatusKnown.name, (ctx) =>
      verify(
        ctx,
        target,
        fieldsStatusKnown,
        { status: dataOf(confirmed.response.json)?.status, known: target.knownStatuses },
        [confirmed],
      ),
    );
    it(semanticsConfirmationEchoesOrder.name, (ctx) =>
      verify(
        ctx,
        target,
        semanticsConfirmationEchoesOrder,
        {
          pathId: orderIdOf(order),
          order: {
            amount: order.request.amount,
            currency:
              kind === "mobile_commerce"
                ? target.profile.methods.mobileCommerce.currency
                : target.profile.methods.quasiEcom.currency,
            merchantOrderID: order.request.merchantOrderID,
          },
          result: dataOf(confirmed.response.json) ?? {},
        },
        [order.exchange, confirmed],
      ),
    );
    it(semanticsTimerValid.name, (ctx) =>
      verify(ctx, target, semanticsTimerValid, dataOf(confirmed.response.json) ?? {}, [confirmed]),
    );
    it(semanticsStatusAfterOperation.name, (ctx) =>
      verify(
        ctx,
        target,
        semanticsStatusAfterOperation,
        {
          operation,
          expected: target.profile.expectedStatus[operation],
          received: dataOf(confirmed.response.json)?.status,
        },
        [confirmed],
      ),
    );

    it(rejectsWrongCode.name, (ctx) =>
      verify(
        ctx,
        target,
        rejectsWrongCode,
        { response: wrongCodeAnswer.response, pinned: errors.invalidCode },
        [wrongCodeAnswer],
      ),
    );
    failureEnvelopeTests(target, () => wrongCodeAnswer, "wrong code");
    it(confirmableAfterWrongCode.name, (ctx) =>
      verify(ctx, target, confirmableAfterWrongCode, rightCodeAfterWrong.response, [
        wrongCodeAnswer,
        rightCodeAfterWrong,
      ]),
    );
    it(rejectsConfirmingTwice.name, (ctx) =>
      verify(
        ctx,
        target,
        rejectsConfirmingTwice,
        { response: confirmedTwice.response, pinned: errors.invalidOrderState },
        [confirmed, confirmedTwice],
      ),
    );
    it(rejectsUnknownOrder.name, (ctx) =>
      verify(
        ctx,
        target,
        rejectsUnknownOrder,
        { response: unknownOrder.response, pinned: errors.orderNotFound },
        [unknownOrder],
      ),
    );
    failureEnvelopeTests(target, () => unknownOrder, "unknown order");
    it(rejectsOtherKindConfirmPath.name, (ctx) =>
      verify(
        ctx,
        target,
        rejectsOtherKindConfirmPath,
        { response: otherKindPath.response, pinned: errors.invalidOrderState },
        [otherKindPath],
      ),
    );
  });
}
