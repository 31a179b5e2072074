/**
 * Spec blocks both order kinds share: the envelope of a response, and the confirmation flow
 * (confirm, wrong code, twice, unknown order, the other kind's path). Each `it` is one check,
 * titled by the check's name (with a case label after "›" where one check runs on several cases).
 */

import type { Check, Exchange, FieldsInput } from "../../../contract/index.ts";
import {
  acceptsMerchantOrderIdDifferingInCase,
  answeredAsModelled,
  confirmableAfterWrongCode,
  dataOf,
  envelopeFailureData,
  envelopeFailureMarkers,
  envelopeFailureMessage,
  envelopeJsonContentType,
  envelopeRequestIdPresent,
  envelopeShape,
  envelopeSuccessMarkers,
  fieldsConfirmationResult,
  fieldsStatusKnown,
  lifetimeSecondsOf,
  OPERATIONS_BY_KIND,
  type OrderKind,
  otherOrderKind,
  rejectsConfirmingTwice,
  rejectsDuplicateMerchantOrderId,
  rejectsOtherKindConfirmPath,
  rejectsUnknownOrder,
  rejectsWrongCode,
  semanticsConfirmationEchoesOrder,
  semanticsMerchantOrderIdEchoed,
  semanticsStatusAfterOperation,
  semanticsTimerValid,
} from "../../../contract/index.ts";
import type { BlockedBy } from "../../engine/run-context.ts";
import { beforeAll, describe, it } from "../../engine/spec-api.ts";
import { refusedAfterLifetime } from "./order-lifetime.ts";
import { type CreatedOrder, confirm, createOrder, orderIdOf, orderRequest } from "./orders.ts";
import type { SpecTarget } from "./target.ts";
import { verify, verifyRejection } from "./verify.ts";

/** `check › case`, the title of a check run on one of several cases. */
export const titled = (check: { name: string }, label?: string) =>
  label ? `${check.name} › ${label}` : check.name;

/**
 * The envelope checks of a successful response; `blockedBy`: why it cannot be judged (a
 * confirmation refused once its order's lifetime may have passed).
 */
export function successEnvelopeTests(
  target: SpecTarget,
  exchange: () => Exchange,
  label?: string,
  blockedBy: () => BlockedBy | undefined = () => undefined,
): void {
  for (const check of [
    envelopeJsonContentType,
    envelopeShape,
    envelopeRequestIdPresent,
    envelopeSuccessMarkers,
  ]) {
    it(titled(check, label), (ctx) => {
      const blocked = blockedBy();
      verify(ctx, target, check, exchange().response, [exchange()], blocked ? { blockedBy: blocked } : {});
    });
  }
}

/** The envelope checks of a refusal. */
export function failureEnvelopeTests(
  target: SpecTarget,
  /** The refusal (made in a hook), or a promise of it (sent by whichever test needs it first). */
  exchange: () => Exchange | Promise<Exchange>,
  label: string,
): void {
  for (const check of [
    envelopeJsonContentType,
    envelopeShape,
    envelopeRequestIdPresent,
    envelopeFailureMarkers,
  ]) {
    it(titled(check, label), async (ctx) => {
      const answer = await exchange();
      verify(ctx, target, check, answer.response, [answer]);
    });
  }
  for (const check of [envelopeFailureData, envelopeFailureMessage]) {
    it(titled(check, label), async (ctx) => {
      const answer = await exchange();
      const { failureData, failureMessage } = target.profile.gaps;
      verify(ctx, target, check, { response: answer.response, failureData, failureMessage }, [answer]);
    });
  }
}

/** What a creation block made, for the checks a spec adds to it. */
export interface CreationFixture {
  /** An order created with a unique merchantOrderID. */
  order: () => CreatedOrder;
  /** `data` of its answer (an empty object when there is none). */
  data: () => Record<string, unknown>;
}

export interface CreationOptions {
  /** The field check of this kind's creation answer. */
  fields: Check<FieldsInput>;
  /** Where the answer echoes merchantOrderID (§2.2: idTransactionMerchant; §2.4: merchantOrderID). */
  echoField: "idTransactionMerchant" | "merchantOrderID";
  /** The kind the duplicate merchantOrderID is sent through: uniqueness is per merchant account, across kinds. */
  duplicateThrough: OrderKind;
}

/** The id with each letter's case swapped (`ab-1` to `AB-1`); undefined when it has no letter with two cases. */
export function caseTwinOf(merchantOrderID: string): string | undefined {
  const twin = [...merchantOrderID]
    .map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
    .join("");
  return twin === merchantOrderID ? undefined : twin;
}

/** Why the case twin cannot be sent: the profile's rule for merchantOrderID refuses it; else undefined. */
function caseTwinRefusedBy(target: SpecTarget, twin: string): string | undefined {
  const pattern = target.profile.requestRules.merchantOrderID?.pattern;
  if (pattern === undefined || pattern === "none" || new RegExp(pattern).test(twin)) return undefined;
  return `the profile's requestRules.merchantOrderID.pattern ${pattern} refuses ${JSON.stringify(twin)}`;
}

/** The create endpoint of one order kind: envelope, fields, echoes, status, duplicate refusal, then `more`. */
export function creationTests(
  target: SpecTarget,
  kind: OrderKind,
  options: CreationOptions,
  more: (fixture: CreationFixture) => void = () => {},
): void {
  const operation = OPERATIONS_BY_KIND[kind].create;
  describe(operation, () => {
    let order: CreatedOrder;
    let withoutMerchantOrderId: CreatedOrder;
    let duplicate: Exchange;
    // The same merchant's id again with its letters' case swapped: another id, to be accepted.
    let caseTwin: { exchange?: Exchange; skip?: string } = {};
    const data = () => dataOf(order.exchange.response.json) ?? {};

    beforeAll(async () => {
      order = await createOrder(target, kind, { merchantOrderID: true });
      withoutMerchantOrderId = await createOrder(target, kind, { merchantOrderID: false });
      const again = orderRequest(target, options.duplicateThrough, {
        merchantOrderID: String(order.request.merchantOrderID),
      });
      duplicate = await target.client().call(OPERATIONS_BY_KIND[options.duplicateThrough].create, again);
      const twin = caseTwinOf(String(order.request.merchantOrderID));
      const refusedBy =
        twin === undefined ? "the merchantOrderID has no letter" : caseTwinRefusedBy(target, twin);
      caseTwin =
        twin === undefined || refusedBy !== undefined
          ? { skip: refusedBy }
          : { exchange: (await createOrder(target, kind, { merchantOrderID: twin })).exchange };
    });

    successEnvelopeTests(target, () => order.exchange);
    it(options.fields.name, (ctx) =>
      verify(
        ctx,
        target,
        options.fields,
        { data: dataOf(order.exchange.response.json), contract: target.contract },
        [order.exchange],
      ),
    );
    it(fieldsStatusKnown.name, (ctx) =>
      verify(ctx, target, fieldsStatusKnown, { status: data().status, known: target.knownStatuses }, [
        order.exchange,
      ]),
    );
    it(titled(semanticsMerchantOrderIdEchoed, "merchantOrderID sent"), (ctx) =>
      verify(
        ctx,
        target,
        semanticsMerchantOrderIdEchoed,
        {
          field: options.echoField,
          expected: order.request.merchantOrderID,
          received: data()[options.echoField],
        },
        [order.exchange],
      ),
    );
    it(titled(semanticsMerchantOrderIdEchoed, "none sent"), (ctx) =>
      verify(
        ctx,
        target,
        semanticsMerchantOrderIdEchoed,
        {
          field: options.echoField,
          expected: null,
          received: dataOf(withoutMerchantOrderId.exchange.response.json)?.[options.echoField],
        },
        [withoutMerchantOrderId.exchange],
      ),
    );
    it(semanticsStatusAfterOperation.name, (ctx) =>
      verify(
        ctx,
        target,
        semanticsStatusAfterOperation,
        { operation, expected: target.profile.expectedStatus[operation], received: data().status },
        [order.exchange],
      ),
    );
    const across = options.duplicateThrough === kind ? undefined : "across order kinds";
    it(titled(rejectsDuplicateMerchantOrderId, across), (ctx) =>
      verifyRejection(ctx, target, rejectsDuplicateMerchantOrderId, duplicate, "duplicateMerchantOrderId", [
        order.exchange,
        duplicate,
      ]),
    );
    failureEnvelopeTests(target, () => duplicate, "duplicate merchantOrderID");
    it(acceptsMerchantOrderIdDifferingInCase.name, (ctx) => {
      if (caseTwin.exchange === undefined) return ctx.skip(caseTwin.skip ?? "no case twin was sent");
      verify(ctx, target, acceptsMerchantOrderIdDifferingInCase, caseTwin.exchange.response, [
        order.exchange,
        caseTwin.exchange,
      ]);
    });
    more({ order: () => order, data });
  });
}

/** The confirm endpoint of one order kind: a good confirmation, then every refusal around it. */
export function confirmationTests(target: SpecTarget, kind: OrderKind): void {
  const operation = OPERATIONS_BY_KIND[kind].confirm;
  const { successCode, wrongCode } = target.profile.confirmation;

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
      confirmedTwice = await confirm(
        client,
        kind,
        orderIdOf(order),
        successCode,
        rejectsConfirmingTwice.name,
      );

      wrongCodeOrder = await createOrder(target, kind);
      wrongCodeAnswer = await confirm(client, kind, orderIdOf(wrongCodeOrder), wrongCode);
      rightCodeAfterWrong = await confirm(client, kind, orderIdOf(wrongCodeOrder), successCode);

      // An id the target never issued, in the shape of a real one.
      unknownOrder = await confirm(client, kind, "00000000-0000-4000-8000-00000000dead", successCode);
      const other = await createOrder(target, otherOrderKind(kind));
      otherKindPath = await confirm(
        client,
        kind,
        orderIdOf(other),
        successCode,
        rejectsOtherKindConfirmPath.name,
      );
    });

    // A slow machine may send the right code once the order's lifetime passed: a refusal then may
    // be the expiry, and is not judged (a refusal the checks expect stays judged).
    const lifetimeSeconds = lifetimeSecondsOf(target.profile);
    const late = (creation: CreatedOrder, step: Exchange, what: string) => {
      const blockedBy = refusedAfterLifetime({
        lifetimeSeconds,
        creation: creation.exchange,
        step,
        what,
        expiredAnswer: target.profile.errors.invalidOrderState,
      });
      return blockedBy ? { blockedBy } : {};
    };
    const confirmedLate = () => late(order, confirmed, "the right code was sent");
    /**
     * The first confirmation must have been taken for a second one to be "confirming twice": a
     * 502 from a proxy (never at the target) or a refusal leaves no confirmed order.
     */
    const notConfirmed = (): BlockedBy | undefined =>
      answeredAsModelled({ outcome: "accepted", httpClass: "2xx", status: "" }, confirmed.response.status) ===
      "as modelled"
        ? undefined
        : {
            check: "(setup)",
            reason: `the first confirmation was not accepted (HTTP ${confirmed.response.status}): no confirmed order to confirm again`,
            ...(confirmed.id ? { exchange: confirmed.id } : {}),
          };

    successEnvelopeTests(
      target,
      () => confirmed,
      undefined,
      () => confirmedLate().blockedBy,
    );
    it(fieldsConfirmationResult.name, (ctx) =>
      verify(
        ctx,
        target,
        fieldsConfirmationResult,
        { data: dataOf(confirmed.response.json), contract: target.contract },
        [confirmed],
        confirmedLate(),
      ),
    );
    it(fieldsStatusKnown.name, (ctx) =>
      verify(
        ctx,
        target,
        fieldsStatusKnown,
        { status: dataOf(confirmed.response.json)?.status, known: target.knownStatuses },
        [confirmed],
        confirmedLate(),
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
            currency: target.profile.methods[kind].currency,
            merchantOrderID: order.request.merchantOrderID,
          },
          result: dataOf(confirmed.response.json) ?? {},
        },
        [order.exchange, confirmed],
        confirmedLate(),
      ),
    );
    it(semanticsTimerValid.name, (ctx) =>
      verify(
        ctx,
        target,
        semanticsTimerValid,
        dataOf(confirmed.response.json) ?? {},
        [confirmed],
        confirmedLate(),
      ),
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
        confirmedLate(),
      ),
    );

    it(rejectsWrongCode.name, (ctx) =>
      verifyRejection(ctx, target, rejectsWrongCode, wrongCodeAnswer, "invalidCode"),
    );
    failureEnvelopeTests(target, () => wrongCodeAnswer, "wrong code");
    it(confirmableAfterWrongCode.name, (ctx) =>
      verify(
        ctx,
        target,
        confirmableAfterWrongCode,
        rightCodeAfterWrong.response,
        [wrongCodeAnswer, rightCodeAfterWrong],
        late(wrongCodeOrder, rightCodeAfterWrong, "the right code was sent after the wrong one"),
      ),
    );
    it(rejectsConfirmingTwice.name, (ctx) =>
      verifyRejection(
        ctx,
        target,
        rejectsConfirmingTwice,
        confirmedTwice,
        target.profile.lifecycle.secondConfirm,
        [confirmed, confirmedTwice],
        // A first confirmation refused late may have met an expired order: no confirmed one to confirm again.
        confirmedLate().blockedBy ?? notConfirmed(),
      ),
    );
    it(rejectsUnknownOrder.name, (ctx) =>
      verifyRejection(ctx, target, rejectsUnknownOrder, unknownOrder, "orderNotFound"),
    );
    failureEnvelopeTests(target, () => unknownOrder, "unknown order");
    it(rejectsOtherKindConfirmPath.name, (ctx) =>
      verifyRejection(
        ctx,
        target,
        rejectsOtherKindConfirmPath,
        otherKindPath,
        target.profile.lifecycle.otherKindConfirm,
      ),
    );
  });
}
