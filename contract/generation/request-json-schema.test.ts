import { describe, expect, it } from "vitest";
import * as z from "zod";
import { REFERENCE_ORDER_METHODS } from "../../fixtures/providers/reference/index.ts";
import {
  CreateMobileCommerceOrderRequest,
  CreateQuasiEcomOrderRequest,
  REQUEST_MAX_LENGTHS,
} from "../schemas/index.ts";
import {
  assertMaxLengthPaths,
  methodViolations,
  narrowForMethod,
  nodeViolations,
  requestJsonSchema,
  schemaField,
  schemaFields,
  UnsupportedSchemaError,
  withMaxLengths,
} from "./request-json-schema.ts";

const quasiEcom = requestJsonSchema(CreateQuasiEcomOrderRequest);
const method202 = REFERENCE_ORDER_METHODS.find((m) => m.methodID === 202);
if (!method202) throw new Error("the reference lists method 202");

const validCard = {
  number: "4111111111111111",
  mediatorName: "Иван",
  lifetimeMonth: "12",
  lifetimeYear: "30",
  cvc: "123",
};
const validQuasiEcom = { methodID: 202, amount: 10.5, clientID: "c-1", requisites: validCard };

/** The paths zod reports for a body, sorted. */
const zodPaths = (schema: z.ZodType, body: unknown) =>
  (schema.safeParse(body).error?.issues ?? []).map((issue) => issue.path.join(".")).sort();
const ownPaths = (body: unknown) =>
  nodeViolations(quasiEcom, body, "")
    .map((v) => v.path)
    .sort();

describe("request schemas as JSON Schema", () => {
  it("gives each caller a copy of its own: one narrowed in place leaves the next as zod converts it", () => {
    const fresh = z.toJSONSchema(CreateQuasiEcomOrderRequest, { io: "input", unrepresentable: "throw" });
    const first = requestJsonSchema(CreateQuasiEcomOrderRequest);
    expect(first).toEqual(fresh);
    (first.properties as Record<string, unknown>).amount = { type: "string" };
    first.required?.push("narrowed");
    const second = requestJsonSchema(CreateQuasiEcomOrderRequest);
    expect(second).toEqual(fresh);
    expect(second).not.toBe(first);
  });

  it("lists each field with its required and nullable flags, unwrapping zod's nullable unions", () => {
    const flags = Object.fromEntries(schemaFields(quasiEcom).map((f) => [f.path, [f.required, f.nullable]]));
    expect(flags).toMatchObject({
      methodID: [true, false],
      clientID: [false, true],
      requisites: [true, false],
      "requisites.cvc": [true, false],
      metadata: [false, true],
      "metadata.webHook": [false, true],
    });
    expect(schemaField(quasiEcom, "clientID")?.node).toMatchObject({
      type: "string",
      maxLength: REQUEST_MAX_LENGTHS.text,
    });
  });

  it.each([
    ["a valid body", validQuasiEcom],
    ["optional fields null", { ...validQuasiEcom, clientID: null, trafficType: null, metadata: null }],
    ["a month out of range", { ...validQuasiEcom, requisites: { ...validCard, lifetimeMonth: "13" } }],
    [
      "a card number with a space",
      { ...validQuasiEcom, requisites: { ...validCard, number: "4111 111111111111" } },
    ],
    [
      "a long clientID and a relative webHook",
      { ...validQuasiEcom, clientID: "x".repeat(256), metadata: { webHook: "/cb" } },
    ],
    ["zero amount, a fractional methodID", { ...validQuasiEcom, amount: 0, methodID: 1.5 }],
    ["requisites missing", { methodID: 201, amount: 1 }],
    ["null where a value is required", { ...validQuasiEcom, requisites: { ...validCard, cvc: null } }],
  ])("finds the same violations as the zod schema for %s", (_label, body) => {
    expect(ownPaths(body)).toEqual(zodPaths(CreateQuasiEcomOrderRequest, body));
  });

  it("refuses a keyword it does not know, naming it, instead of ignoring a constraint", () => {
    const withStep = requestJsonSchema(
      CreateMobileCommerceOrderRequest.extend({ amount: z.number().positive().multipleOf(0.01) }),
    );
    const validate = () => nodeViolations(withStep, { methodID: 101, amount: 1 }, "");
    expect(validate).toThrow(UnsupportedSchemaError);
    expect(validate).toThrow(/amount: the JSON Schema keyword "multipleOf" is not supported/);
  });

  it("narrows by a method's amount limits and a profile's maximum lengths, naming a bad override", () => {
    const narrowed = withMaxLengths(narrowForMethod(quasiEcom, { ...method202, minAmount: 100 }), {
      clientID: 64,
    });
    expect(schemaField(narrowed, "amount")?.node).toMatchObject({ minimum: 100, maximum: 1_000_000 });
    expect(schemaField(narrowed, "clientID")?.node.maxLength).toBe(64);
    expect(schemaField(quasiEcom, "clientID")?.node.maxLength).toBe(255);
    expect(() => assertMaxLengthPaths([quasiEcom], { "requisites.nmber": 20 })).toThrow(
      /maxLengths.requisites.nmber: no field of that path in any request/,
    );
    expect(() => withMaxLengths(quasiEcom, { amount: 20 })).toThrow(
      /maxLengths.amount: the field is a number/,
    );
  });

  it("holds a body to its method: conditional fields present and non-null, the method's own ID", () => {
    expect(methodViolations(validQuasiEcom, method202)).toEqual([]);
    const paths = (body: unknown) => methodViolations(body, method202).map((v) => `${v.path} ${v.keyword}`);
    expect(paths({ ...validQuasiEcom, clientID: undefined })).toEqual(["clientID required-by-method"]);
    expect(paths({ ...validQuasiEcom, clientID: null })).toEqual(["clientID required-by-method"]);
    expect(paths({ ...validQuasiEcom, methodID: 201 })).toEqual(["methodID method"]);
    expect(paths({ ...validQuasiEcom, methodID: "202" })).toEqual([]);
  });
});
