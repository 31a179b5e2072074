import { describe, expect, it } from "vitest";
import * as z from "zod";
import { buildMobileCommerceOrderRequest, buildQuasiEcomOrderRequest } from "../../fixtures/index.ts";
import { REFERENCE_ORDER_METHODS } from "../../fixtures/providers/reference/index.ts";
import { ConfirmOrderRequest, CreateMobileCommerceOrderRequest } from "../schemas/index.ts";
import { createRequestSchema, generateOrders, methodRequestSchema } from "./generated-orders.ts";
import { deriveNegativeCases, type NegativeCases } from "./negative-cases.ts";
import {
  methodViolations,
  type OrderMethod,
  requestViolations,
  SUPPORTED_KEYWORDS,
  schemaFields,
} from "./request-json-schema.ts";

const methods = REFERENCE_ORDER_METHODS;
const methodOf = (id: number) => methods.find((m) => m.methodID === id) as OrderMethod;
const zodSchemaOf = (method: OrderMethod) => createRequestSchema(method.kind);

/** A base with every optional field present (the first quick order) and one with none. */
const generated = generateOrders({ seed: 11, methods, callbackUrl: "http://127.0.0.1:4010/cb/neg" });
const fullBase = (method: OrderMethod) =>
  generated.find((o) => o.method.methodID === method.methodID && o.index === 0)?.body as Record<
    string,
    unknown
  >;
const leanBase = (method: OrderMethod): Record<string, unknown> => {
  const options = {
    methodID: method.methodID,
    amount: 1500,
    withClientID: method.requiredFields.includes("clientID"),
  };
  return method.kind === "mobile_commerce"
    ? buildMobileCommerceOrderRequest({
        ...options,
        withClientMetadata: method.requiredFields.includes("clientMetadata.phone") ? ["phone"] : [],
      })
    : buildQuasiEcomOrderRequest(options);
};
const derive = (method: OrderMethod, base = fullBase(method)) =>
  deriveNegativeCases(zodSchemaOf(method), base, { method, methods });
const names = (derived: NegativeCases) => derived.cases.map((c) => c.name);

describe("negative cases derived from the contract", () => {
  for (const method of methods) {
    for (const [label, base] of [
      ["every optional field present", fullBase(method)],
      ["only what is required", leanBase(method)],
    ] as const) {
      it(`method ${method.methodID}, base with ${label}: the base passes, each case breaks exactly its own path`, () => {
        const schema = zodSchemaOf(method);
        expect(schema.safeParse(base).success).toBe(true);
        expect(methodViolations(base, method)).toEqual([]);
        const derived = derive(method, base);
        expect(derived.cases.length).toBeGreaterThan(30);
        expect(new Set(names(derived)).size, "names are unique").toBe(derived.cases.length);
        for (const c of derived.cases) {
          const issues = schema.safeParse(c.body).error?.issues ?? [];
          if (c.constraint.source === "contract") {
            expect(issues.length, c.name).toBeGreaterThan(0);
            expect(new Set(issues.map((i) => i.path.join("."))), c.name).toEqual(new Set([c.path]));
          } else {
            // The method's rule (or its amount limit), which the contract's zod schema does not know.
            expect(issues, c.name).toEqual([]);
            const found = requestViolations(methodRequestSchema(method), c.body, method);
            expect(
              found.map((v) => v.path),
              c.name,
            ).toEqual([c.path]);
          }
          expect(JSON.parse(c.json), c.name).toEqual(c.body);
        }
      });
    }
  }

  it("cover required, type, enum, length, range, card formats and each method's conditional fields", () => {
    const mc = names(derive(methodOf(102)));
    expect(mc).toEqual(
      expect.arrayContaining([
        "(body): type object",
        "methodID: required",
        "methodID: type integer",
        "amount: type number (null)",
        "amount: exclusiveMinimum 0",
        "amount: maximum 1000000",
        "trafficType: enum ftd|td|mixed",
        "clientID: minLength 1",
        "merchantOrderID: maxLength 255",
        "clientMetadata.phone: maxLength 32",
        "clientMetadata.email: maxLength 254",
        "metadata.webHook: format uri",
        "metadata.webHook: maxLength 2048",
        "clientMetadata.phone: required by method 102",
        "clientMetadata.phone: required by method 102 (null)",
        "methodID: a mobile_commerce method (201 is quasi_ecom)",
      ]),
    );
    const qe = names(derive(methodOf(202)));
    expect(qe).toEqual(
      expect.arrayContaining([
        "requisites: required",
        "requisites.cvc: required",
        "requisites.lifetimeMonth: pattern ^(0[1-9]|1[0-2])$ (out of range)",
        "requisites.lifetimeMonth: pattern ^(0[1-9]|1[0-2])$ (letter)",
        "requisites.lifetimeYear: pattern ^[0-9]{2}$ (too long)",
        "requisites.lifetimeYear: pattern ^[0-9]{2}$ (non-ASCII digit)",
        "requisites.number: pattern ^[0-9]{12,19}$ (letter)",
        "requisites.number: pattern ^[0-9]{12,19}$ (symbol)",
        "requisites.number: pattern ^[0-9]{12,19}$ (too short)",
        "requisites.cvc: pattern ^[0-9]{3,4}$ (too long)",
        "clientID: required by method 202",
        "clientID: required by method 202 (null)",
      ]),
    );
    // A method without conditional fields has no conditional case.
    expect(names(derive(methodOf(201))).filter((n) => n.includes("required by method"))).toEqual([]);
  });

  it("derive a case, or say why not, for every constraint keyword of every request field", () => {
    for (const method of methods) {
      const derived = derive(method);
      const covered = [...derived.cases.map((c) => c.name), ...derived.skipped.map((s) => s.name)];
      for (const field of schemaFields(methodRequestSchema(method))) {
        for (const keyword of SUPPORTED_KEYWORDS) {
          if (
            !(keyword in field.node) ||
            ["type", "properties", "required", "additionalProperties", "anyOf"].includes(keyword)
          )
            continue;
          expect(
            covered.some((name) => name.startsWith(`${field.path}: ${keyword}`)),
            `${method.methodID} ${field.path}: ${keyword}`,
          ).toBe(true);
        }
      }
      for (const skip of derived.skipped) expect(skip.reason.length).toBeGreaterThan(10);
    }
  });

  it("adds the case of a constraint added to a schema, and changes nothing else", () => {
    // Method 101 without its amount limit, so that the schema's own maximum is the one in force.
    const method = { ...methodOf(101), maxAmount: undefined };
    const base = fullBase(method);
    const before = new Set(
      names(deriveNegativeCases(CreateMobileCommerceOrderRequest, base, { method, methods })),
    );
    const merchantOrderID = CreateMobileCommerceOrderRequest.shape.merchantOrderID.unwrap().unwrap();
    const stricter = CreateMobileCommerceOrderRequest.extend({
      merchantOrderID: merchantOrderID.regex(/^\S*$/).nullable().optional(),
      amount: z.number().positive().max(500_000),
    });
    const after = new Set(names(deriveNegativeCases(stricter, base, { method, methods })));
    const added = [...after].filter((n) => !before.has(n)).sort();
    const removed = [...before].filter((n) => !after.has(n));
    expect(removed).toEqual([]);
    expect(added).toEqual(["amount: maximum 500000", "merchantOrderID: pattern ^\\S*$ (symbol)"]);
  });

  it("follows a profile's maximum lengths and the method's amount limits", () => {
    const method = { ...methodOf(101), minAmount: 100, maxAmount: 5000 };
    const base = { ...leanBase(method), clientID: "c-1" };
    const derived = deriveNegativeCases(CreateMobileCommerceOrderRequest, base, {
      method,
      maxLengths: { clientID: 64 },
    });
    const byName = Object.fromEntries(derived.cases.map((c) => [c.name, c.value]));
    const sources = Object.fromEntries(derived.cases.map((c) => [c.name, c.constraint.source]));
    expect(sources).toMatchObject({
      "amount: minimum 100": "method",
      "clientID: maxLength 64": "profile",
      "clientID: minLength 1": "contract",
    });
    expect(byName["amount: minimum 100"]).toBe(99.99);
    expect(byName["amount: maximum 5000"]).toBe(5000.01);
    expect((byName["clientID: maxLength 64"] as string).length).toBe(65);
    expect(names(derived)).not.toContain("clientID: maxLength 255");
    // 0 is below the method's minimum as well as the contract's floor: not one thing only.
    expect(derived.skipped.map((s) => s.name)).toContain("amount: exclusiveMinimum 0");
  });

  it("sends no test card number outside the card's field, still breaking each constraint (CI: a phone padded with 1s)", () => {
    const method = methodOf(101);
    // A valid phone ending in 41: padded past its maxLength with its last digit, it spelled 4111111111111111.
    const base = {
      ...leanBase(method),
      clientMetadata: { phone: "+77031489641" },
    };
    const derived = deriveNegativeCases(CreateMobileCommerceOrderRequest, base, { method, methods });
    const maxLengthCase = (d: NegativeCases) =>
      d.cases.find((c) => c.name === "clientMetadata.phone: maxLength 32")?.value;
    // The next candidate pads with a letter, which breaks the length and nothing else.
    expect(maxLengthCase(derived)).toBe(`+77031489641${"x".repeat(21)}`);
    for (const c of derived.cases) expect(c.json, c.name).not.toContain("4111111111111111");
    // A profile's own test card is kept out too, and one no pad spells changes nothing.
    const other = { ...base, clientMetadata: { phone: "+77031489651" } };
    expect(
      maxLengthCase(deriveNegativeCases(CreateMobileCommerceOrderRequest, other, { method, methods })),
    ).toBe(`+77031489651${"1".repeat(21)}`);
    const ownCard = deriveNegativeCases(CreateMobileCommerceOrderRequest, other, {
      method,
      methods,
      testCards: ["7703148965111111"],
    });
    expect(maxLengthCase(ownCard)).toBe(`+77031489651${"x".repeat(21)}`);
    // The card's own field still gets its cases: its valid value holds the card already.
    const quasi = fullBase(methodOf(201));
    expect(names(derive(methodOf(201), quasi))).toContain(
      "requisites.number: pattern ^[0-9]{12,19}$ (too long)",
    );
  });

  it("says so when each value that would break a constraint spells a test card (review: it vanished)", () => {
    const schema = z.object({ ref: z.string().regex(/^\d{1,15}$/) });
    const derived = deriveNegativeCases(schema, { ref: "41111111111111" });
    expect(derived.cases.map((c) => c.name)).not.toContain("ref: pattern ^\\d{1,15}$ (too long)");
    expect(derived.skipped).toContainEqual({
      name: "ref: pattern ^\\d{1,15}$ (too long)",
      reason:
        "every candidate value that breaks it would send a test card number in a field that is not the card's",
    });
  });

  it("derives the confirmation request's cases too", () => {
    expect(names(deriveNegativeCases(ConfirmOrderRequest, { code: "1111" })).sort()).toEqual(
      [
        "(body): type object",
        "code: minLength 1",
        "code: required",
        "code: type string",
        "code: type string (null)",
      ].sort(),
    );
  });

  it("refuses a base that is not valid, naming what is wrong", () => {
    const method = methodOf(202);
    const base = { ...fullBase(method), clientID: null };
    expect(() => derive(method, base)).toThrow(
      /base request is not valid.*clientID: is required for method 202/,
    );
  });
});
