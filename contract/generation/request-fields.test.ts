import { describe, expect, it } from "vitest";
import {
  ConfirmOrderRequest,
  CreateMobileCommerceOrderRequest,
  CreateQuasiEcomOrderRequest,
} from "../schemas/index.ts";
import { requestFields, withField, wrongTypeValue } from "./request-fields.ts";

const required = (schema: Parameters<typeof requestFields>[0]) =>
  requestFields(schema)
    .filter((f) => f.required)
    .map((f) => f.path);

describe("request fields derived from the contract", () => {
  it("lists the API description's required fields per endpoint (§4)", () => {
    expect(required(CreateMobileCommerceOrderRequest)).toEqual(["methodID", "amount"]);
    expect(required(CreateQuasiEcomOrderRequest)).toEqual([
      "methodID",
      "amount",
      "requisites",
      "requisites.number",
      "requisites.mediatorName",
      "requisites.lifetimeMonth",
      "requisites.lifetimeYear",
      "requisites.cvc",
    ]);
    expect(required(ConfirmOrderRequest)).toEqual(["code"]);
  });

  it("knows each field's JSON type, so a wrong-type value can be made", () => {
    const types = Object.fromEntries(
      requestFields(CreateQuasiEcomOrderRequest).map((f) => [f.path, f.jsonType]),
    );
    expect(types).toMatchObject({
      methodID: "integer",
      amount: "number",
      trafficType: "string",
      requisites: "object",
      "requisites.cvc": "string",
    });
    for (const field of requestFields(CreateQuasiEcomOrderRequest)) {
      const wrong = withField({ requisites: {} }, field.path, { value: wrongTypeValue(field.jsonType) });
      const schemaOfField = CreateQuasiEcomOrderRequest.safeParse(wrong);
      expect(
        schemaOfField.error?.issues.some((i) => i.path.join(".") === field.path),
        field.path,
      ).toBe(true);
    }
  });

  it("removes or replaces a nested field in a copy", () => {
    const body = { a: 1, requisites: { cvc: "123", number: "4111" } };
    expect(withField(body, "requisites.cvc", { remove: true })).toEqual({
      a: 1,
      requisites: { number: "4111" },
    });
    expect(withField(body, "a", { value: "x" })).toEqual({
      a: "x",
      requisites: { cvc: "123", number: "4111" },
    });
    expect(body.requisites.cvc).toBe("123");
  });
});
