/** The merchant checks of observe mode, each on a request that keeps its rule and one that breaks it. */
import { describe, expect, it } from "vitest";
import { ConfirmOrderRequest, CreateMobileCommerceOrderRequest } from "../schemas/index.ts";
import {
  merchantConfirmsConfirmable,
  merchantConfirmsOwnOrder,
  merchantNoBlindResend,
  merchantOrderIdUnique,
  merchantRequestBodyValid,
  merchantRequestHeaders,
} from "./merchant.ts";

describe("merchant checks", () => {
  it("merchant.request-headers wants JSON and a bearer key", () => {
    expect(
      merchantRequestHeaders.run({
        headers: { "content-type": "application/json", authorization: "Bearer k1" },
      }).ok,
    ).toBe(true);
    const plain = merchantRequestHeaders.run({
      headers: { "content-type": "text/plain", authorization: "k1" },
    });
    expect(plain.ok).toBe(false);
    expect(plain.detail).toMatch(/text\/plain.*expected application\/json.*Bearer/);
  });

  it("merchant.request-body-valid reads the schema and the method's conditional fields", () => {
    const schema = CreateMobileCommerceOrderRequest;
    const valid = {
      schema,
      requiredFields: ["clientMetadata.phone"],
      method: { methodID: 102, known: true },
    };
    expect(
      merchantRequestBodyValid.run({
        ...valid,
        text: '{"methodID":102,"amount":10,"clientMetadata":{"phone":"+7"}}',
      }).ok,
    ).toBe(true);
    expect(merchantRequestBodyValid.run({ ...valid, text: '{"methodID":102,"amount":10}' }).detail).toMatch(
      /clientMetadata.phone absent/,
    );
    expect(merchantRequestBodyValid.run({ ...valid, text: "methodID=102" }).detail).toMatch(/not JSON/);
    expect(
      merchantRequestBodyValid.run({ schema: ConfirmOrderRequest, requiredFields: [], text: '{"code":1111}' })
        .ok,
    ).toBe(false);
  });

  it("merchant.order-id-unique tells a retry from another order", () => {
    const a = { merchantOrderID: "m1", order: "A", exchangeId: "x1" };
    expect(merchantOrderIdUnique.run([a, { ...a, exchangeId: "x2" }]).ok).toBe(true);
    expect(merchantOrderIdUnique.run([a, { ...a, order: "B", exchangeId: "x2" }]).ok).toBe(false);
  });

  it("merchant.confirms-own-order and merchant.confirms-confirmable", () => {
    const input = {
      orderId: "o1",
      created: { kind: "quasi_ecom" },
      pathKind: "quasi_ecom",
      answerStatus: 200,
      notConfirmableBecause: undefined,
    };
    expect(merchantConfirmsOwnOrder.run(input).ok).toBe(true);
    expect(merchantConfirmsOwnOrder.run({ ...input, pathKind: "mobile_commerce" }).ok).toBe(false);
    expect(merchantConfirmsOwnOrder.run({ ...input, created: undefined, answerStatus: 404 }).ok).toBe(false);
    expect(merchantConfirmsConfirmable.run(input).ok).toBe(true);
    expect(
      merchantConfirmsConfirmable.run({ ...input, notConfirmableBecause: "its expired callback" }).ok,
    ).toBe(false);
  });

  it("merchant.no-blind-resend refuses a lost creation sent again under a new merchantOrderID", () => {
    const lost = { exchangeId: "x1", order: "A", merchantOrderID: "m1" };
    const creations = [{ ...lost, atMs: 1 }];
    expect(
      merchantNoBlindResend.run({
        unanswered: [lost],
        creations: [...creations, { ...lost, exchangeId: "x2", atMs: 2 }],
      }).ok,
    ).toBe(true);
    const blind = merchantNoBlindResend.run({
      unanswered: [lost],
      creations: [...creations, { exchangeId: "x2", order: "A", merchantOrderID: "m2", atMs: 2 }],
    });
    expect(blind.ok).toBe(false);
    expect(blind.detail).toMatch(/x2 sends x1's order again with merchantOrderID "m2"/);
  });
});
