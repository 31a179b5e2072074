import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { REFERENCE_PROFILE, REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import { type Profile, ProfileSchema, parseProfile } from "../profile/index.ts";
import { ERROR_ANSWERS } from "../schemas/index.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { ABSOLUTE_URL_PATTERN, HTTP_URL_PATTERN } from "./openapi-requests.ts";

type Schema = {
  $ref?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  required?: string[];
};
// biome-ignore lint/suspicious/noExplicitAny: a profile's JSON, edited freely before it is validated
type ProfileJson = Record<string, any>;

/** The reference profile changed by `change` (a copy of its JSON), validated. */
function variantOf(change: (json: ProfileJson) => void): Profile {
  const json = JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8")) as ProfileJson;
  change(json);
  return parseProfile(json, "variant");
}

/** No request rules, two errors unpinned, one moved; the callback members nested. */
const VARIANT = variantOf((json) => {
  delete json.requestRules;
  json.maxLengths = { clientID: 64, merchantOrderID: "none" };
  json.requestRules = { "requisites.cvc": { pattern: "^\\d{3}$" }, code: { minLength: 4, maxLength: 6 } };
  json.methods.mobile_commerce.minAmount = 10;
  delete json.errors.validation;
  json.errors.invalidCode = { httpStatus: 400 };
  json.callbacks.idPath = "order.id";
});

type Doc = {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Schema> };
};

const doc = buildOpenApiDocument(REFERENCE_PROFILE) as unknown as Doc;
const variantDoc = buildOpenApiDocument(VARIANT) as unknown as Doc;

function resolve(schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace("#/components/schemas/", "");
  const target = doc.components.schemas[name];
  if (!target) throw new Error(`unresolved $ref ${schema.$ref}`);
  return resolve(target);
}

/** Follows a dotted field path through properties, $refs, nullable unions and arrays. */
function fieldAt(rootName: string, path: string): Schema | undefined {
  let current: Schema | undefined = doc.components.schemas[rootName];
  for (const part of path.split(".")) {
    if (!current) return undefined;
    current = resolve(current);
    const variants: Schema[] = [current, ...(current.anyOf ?? []), ...(current.oneOf ?? [])].map(resolve);
    current = variants.map((v) => v.properties?.[part]).find((p) => p !== undefined);
  }
  return current;
}

/**
 * Every field the API description names, transcribed from its tables (docs/api.md §2 and §4), independently
 * of the contract, so a field dropped from the schemas is caught here.
 */
const SEED_FIELDS: Record<string, string[]> = {
  MobileCommerceOrderResponse: [
    "data",
    "result.codeError",
    "result.message",
    "result.status",
    "result.x-request-id",
    ...[
      "id",
      "dateAdded",
      "dateUpdated",
      "orderType",
      "status",
      "idTransactionMerchant",
      "amount",
      "amountComission",
      "currency",
      "usdtAmount",
      "usdtAmountComission",
      "exchangeRate",
      "merchantID",
      "routingAttempts",
      "paymentDetailsData",
      "paymentDetailsData.methodID",
      "paymentDetailsData.requisiteTypeCode",
      "paymentDetailsData.mediatorName",
      "paymentDetailsData.bankCode",
      "paymentDetailsData.number",
      "paymentDetailsData.numberAdditional",
      "paymentDetailsData.link",
    ].map((f) => `data.${f}`),
  ],
  MobileCommerceConfirmationResponse: ["id", "status", "merchantOrderID", "currency", "amount", "timer"].map(
    (f) => `data.${f}`,
  ),
  QuasiEcomConfirmationResponse: ["id", "status", "merchantOrderID", "currency", "amount", "timer"].map(
    (f) => `data.${f}`,
  ),
  QuasiEcomOrderResponse: ["id", "status", "merchantOrderID"].map((f) => `data.${f}`),
  CreateMobileCommerceOrderRequest: [
    "methodID",
    "amount",
    "trafficType",
    "clientID",
    "merchantOrderID",
    "clientMetadata.phone",
    "clientMetadata.operator",
    "clientMetadata.name",
    "clientMetadata.email",
    "metadata.webHook",
  ],
  CreateQuasiEcomOrderRequest: [
    "methodID",
    "amount",
    "trafficType",
    "clientID",
    "merchantOrderID",
    "requisites.number",
    "requisites.mediatorName",
    "requisites.lifetimeMonth",
    "requisites.lifetimeYear",
    "requisites.cvc",
    "metadata.webHook",
  ],
  ConfirmOrderRequest: ["code"],
  ErrorEnvelope: ["data", "result.codeError", "result.message", "result.status", "result.x-request-id"],
  // §6 shows no body: these are the members the reference profile locates (`callbacks.*Path`).
  CallbackBody: ["id", "merchantOrderID", "status", "amount", "currency", "dateUpdated"],
};

describe("OpenAPI document", () => {
  it.each([
    ["the reference profile", doc],
    ["a profile with undeclared rules, unpinned errors and nested callback paths", variantDoc],
  ])("is a valid OpenAPI 3.1 document for %s", async (_name, document) => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(document) as unknown as Parameters<Validator["validate"]>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("has the four endpoints of §4, each with bearer auth, a request body, a success and its error responses", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/api/v1/orders/{id}/ecom-confirm/h2h",
        "/api/v1/orders/{id}/mobile-commerce-confirm/h2h",
        "/api/v1/payin/mobile-commerce/h2h",
        "/api/v1/payin/quasi-ecom/h2h",
      ].sort(),
    );
    expect((doc as unknown as { security: unknown }).security).toEqual([{ bearerAuth: [] }]);
    for (const [path, item] of Object.entries(doc.paths)) {
      const post = item.post as { requestBody: unknown; responses: Record<string, unknown> };
      expect(post.requestBody).toBeDefined();
      expect(Object.keys(post.responses), path).toEqual(
        path.includes("{id}")
          ? ["200", "400", "401", "404", "409", "422", "default"]
          : ["200", "400", "401", "409", "default"],
      );
    }
  });

  it("describes every error answer, with its codeError values, on each operation it applies to", () => {
    type Response = { description: string; content: { "application/json": { schema: Schema } } };
    const codesOf = (response: Response) => {
      const envelope = resolve(response.content["application/json"].schema);
      const result = resolve(envelope.properties?.result as Schema) as Schema & {
        properties: { codeError: { enum: string[] } };
      };
      return result.properties.codeError.enum;
    };
    const seen = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      const responses = (item.post as { responses: Record<string, Response> }).responses;
      const confirm = path.includes("{id}");
      for (const answer of Object.values(ERROR_ANSWERS)) {
        const applies = answer.operations === "all" || (answer.operations === "confirm") === confirm;
        const response = responses[String(answer.httpStatus)];
        const codes = response ? codesOf(response) : [];
        expect(codes.includes(answer.codeError), `${path} ${answer.httpStatus} ${answer.codeError}`).toBe(
          applies,
        );
        if (applies) {
          expect(response?.description).toContain(`\`${answer.codeError}\`: ${answer.when}`);
          seen.add(answer.codeError);
        }
      }
    }
    expect([...seen].sort()).toEqual(
      Object.values(ERROR_ANSWERS)
        .map((a) => a.codeError)
        .sort(),
    );
  });

  it("the profile's errors are keyed by the same names as the error answers, and the reference profile pins them all", () => {
    const shape = (ProfileSchema.shape.errors as unknown as { def: { innerType: { shape: object } } }).def
      .innerType.shape;
    expect(
      Object.keys(shape)
        .filter((k) => k !== "$comment")
        .sort(),
    ).toEqual(Object.keys(ERROR_ANSWERS).sort());
    const reference = JSON.parse(
      readFileSync(new URL("../../fixtures/profiles/reference.json", import.meta.url), "utf8"),
    ) as { errors: Record<string, unknown> };
    expect(reference.errors).toEqual(
      Object.fromEntries(
        Object.entries(ERROR_ANSWERS).map(([name, a]) => [
          name,
          { httpStatus: a.httpStatus, codeError: a.codeError },
        ]),
      ),
    );
  });

  it("declares the status callback on both creating operations", () => {
    for (const path of ["/api/v1/payin/mobile-commerce/h2h", "/api/v1/payin/quasi-ecom/h2h"]) {
      const callbacks = doc.paths[path]?.post?.callbacks as Record<string, Record<string, unknown>>;
      expect(Object.keys(callbacks.orderStatusChanged ?? {})).toEqual(["{$request.body#/metadata/webHook}"]);
    }
  });

  it.each(Object.entries(SEED_FIELDS))(
    "%s carries every field the API description names",
    (component, fields) => {
      const missing = fields.filter((field) => fieldAt(component, field) === undefined);
      expect(missing).toEqual([]);
    },
  );

  it("marks required what the API description marks required, and the request fields the API description marks optional as optional", () => {
    const record = resolve({ $ref: "#/components/schemas/OrderRecord" });
    expect(record.required).toEqual(
      expect.arrayContaining([
        "id",
        "dateAdded",
        "status",
        "amount",
        "exchangeRate",
        "merchantID",
        "paymentDetailsData",
      ]),
    );
    expect(record.required).not.toContain("idTransactionMerchant");
    const request = resolve({ $ref: "#/components/schemas/CreateMobileCommerceOrderRequest" });
    expect(request.required?.sort()).toEqual(["amount", "methodID"]);
    const quasi = resolve({ $ref: "#/components/schemas/CreateQuasiEcomOrderRequest" });
    expect(quasi.required?.sort()).toEqual(["amount", "methodID", "requisites"]);
  });

  it("has no unresolved $ref", () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(() => resolve({ $ref: ref.slice(8, -1) })).not.toThrow();
  });

  it("catches a field missing from the document (the field walk is not vacuous)", () => {
    expect(fieldAt("OrderRecord", "paymentDetailsData.link")).toBeDefined();
    expect(fieldAt("OrderRecord", "paymentDetailsData.iban")).toBeUndefined();
    expect(fieldAt("OrderRecord", "usdtAmountCommission")).toBeUndefined();
  });
});

/** A JSON Schema 2020-12 validator (ajv, as Prism uses) of one request component of a document. */
function validatorOf(document: Doc, component: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = ajv.compile(document.components.schemas[component] as object);
  return (body: unknown) =>
    validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const WEBHOOK = { webHook: "https://merchant.example/callbacks" };
const CARD = {
  number: "4111111111111111",
  mediatorName: "VISA",
  lifetimeMonth: "12",
  lifetimeYear: "30",
  cvc: "123",
};

describe("the request schemas of an integration's document", () => {
  it("metadata.webHook must be an absolute http(s) URL as a generic validator reads it: http:// fails, https://Ï passes", () => {
    const valid = validatorOf(doc, "CreateMobileCommerceOrderRequest");
    const withHook = (webHook: string) => valid({ methodID: 101, amount: 10, metadata: { webHook } });
    expect(withHook("http://")).not.toEqual([]);
    expect(withHook("ftp://merchant.example/cb")).not.toEqual([]);
    expect(withHook("/callbacks")).not.toEqual([]);
    expect(withHook("https://Ï")).toEqual([]);
    expect(withHook("HTTPS://merchant.example:8443/cb?x=1")).toEqual([]);
    const pattern = new RegExp(HTTP_URL_PATTERN, "u");
    expect([pattern.test("http://"), pattern.test("https://Ï")]).toEqual([false, true]);
    // A declared format "uri" is any absolute URL, http(s) ones with a host.
    const absolute = new RegExp(ABSOLUTE_URL_PATTERN, "u");
    expect(["https://Ï", "mailto:a@b.example", "http://", "not a url"].map((u) => absolute.test(u))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it("the methodID is one of the profile's methods of that kind, and each method's required fields and amount limits hold", () => {
    const mobile = validatorOf(doc, "CreateMobileCommerceOrderRequest");
    expect(mobile({ methodID: 101, amount: 1500, metadata: WEBHOOK })).toEqual([]);
    expect(mobile({ methodID: 201, amount: 1500 })).not.toEqual([]);
    expect(mobile({ methodID: 101, amount: 1_000_000.01 })).not.toEqual([]);
    expect(mobile({ methodID: 101, amount: 0 })).not.toEqual([]);
    // 102 requires clientMetadata.phone, non-null.
    expect(mobile({ methodID: 102, amount: 10 })).not.toEqual([]);
    expect(mobile({ methodID: 102, amount: 10, clientMetadata: { phone: null } })).not.toEqual([]);
    expect(mobile({ methodID: 102, amount: 10, clientMetadata: { phone: "+77011234567" } })).toEqual([]);
    const quasi = validatorOf(doc, "CreateQuasiEcomOrderRequest");
    expect(quasi({ methodID: 201, amount: 10, requisites: CARD })).toEqual([]);
    expect(quasi({ methodID: 202, amount: 10, requisites: CARD })).not.toEqual([]);
    expect(quasi({ methodID: 202, amount: 10, requisites: CARD, clientID: "c-1" })).toEqual([]);
    expect(quasi({ methodID: 101, amount: 10, requisites: CARD })).not.toEqual([]);
    const variant = validatorOf(variantDoc, "CreateMobileCommerceOrderRequest");
    expect(variant({ methodID: 101, amount: 9.99 })).not.toEqual([]);
    expect(variant({ methodID: 102, amount: 9.99, clientMetadata: { phone: "1" } })).toEqual([]);
  });

  it("carries the profile's declared rules and leaves the suite's advisory ones out", () => {
    // The reference profile declares the lengths, the card and CVC digits and the redirect URLs' format.
    expect(fieldAt("CreateMobileCommerceOrderRequest", "clientMetadata.phone")).toMatchObject({
      anyOf: [{ type: "string", minLength: 1, maxLength: 32 }, { type: "null" }],
    });
    const reference = validatorOf(doc, "CreateQuasiEcomOrderRequest");
    expect(reference({ methodID: 201, amount: 10, requisites: { ...CARD, number: "41111" } })).not.toEqual(
      [],
    );
    expect(
      reference({ methodID: 201, amount: 10, requisites: CARD, metadata: { successRedirectURL: "shop/ok" } }),
    ).not.toEqual([]);
    expect(validatorOf(doc, "ConfirmOrderRequest")({ code: "" })).not.toEqual([]);
    // Undeclared: any length, any card and CVC digits, any redirect URL; webHook keeps its http(s) rule.
    const quasi = validatorOf(variantDoc, "CreateQuasiEcomOrderRequest");
    const card = { ...CARD, number: "x", mediatorName: "" };
    expect(
      quasi({
        methodID: 201,
        amount: 10,
        merchantOrderID: "m".repeat(5000),
        clientID: "",
        requisites: card,
        metadata: { ...WEBHOOK, successRedirectURL: "shop/ok", failRedirectURL: "" },
      }),
    ).toEqual([]);
    expect(quasi({ methodID: 201, amount: 10, requisites: card, clientID: "c".repeat(65) })).not.toEqual([]);
    expect(quasi({ methodID: 201, amount: 10, requisites: { ...card, cvc: "1234" } })).not.toEqual([]);
    expect(
      quasi({ methodID: 201, amount: 10, requisites: card, metadata: { webHook: "http://" } }),
    ).not.toEqual([]);
    const confirm = validatorOf(variantDoc, "ConfirmOrderRequest");
    expect(
      [confirm({ code: "123" }), confirm({ code: "1234" }), confirm({ code: "1234567" })].map(
        (e) => e.length > 0,
      ),
    ).toEqual([true, false, true]);
    const text = JSON.stringify(variantDoc.components.schemas.CreateQuasiEcomOrderRequest);
    expect(text).not.toContain('"format"');
    expect(text).not.toContain("{12,19}");
  });

  it("answers each refusal with the status the profile pins, and an unpinned one with any 4xx", () => {
    const responses = (path: string) =>
      Object.keys((variantDoc.paths[path]?.post?.responses ?? {}) as Record<string, unknown>);
    expect(responses("/api/v1/payin/quasi-ecom/h2h")).toEqual(["200", "400", "401", "409", "4XX", "default"]);
    expect(responses("/api/v1/orders/{id}/ecom-confirm/h2h")).toEqual([
      "200",
      "400",
      "401",
      "404",
      "409",
      "4XX",
      "default",
    ]);
    // invalidCode moved to 400 with no code pinned: any code but none there.
    const confirm400 = variantDoc.components.schemas.ErrorEnvelope400OnConfirm;
    expect(confirm400).toBeDefined();
    expect(JSON.stringify(confirm400)).not.toContain('"enum"');
    expect(variantDoc.components.schemas.CallbackBody).toMatchObject({
      required: expect.arrayContaining(["order", "status"]),
      properties: { order: { required: ["id"] } },
    });
  });
});

/** A validator of one component against the whole document, its $refs resolved. */
function componentValidator(document: Doc, component: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...structuredClone(document), $id: "doc" } as object);
  const validate = ajv.compile({ $ref: `doc#/components/schemas/${component}` });
  return (body: unknown) =>
    validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe("what the profile declares, as a generic tool reads it", () => {
  const DATE = "2026-11-27T07:21:16.123Z";
  const confirmation = (status: string, dates: Record<string, string> = {}) => ({
    data: { id: "o-1", status, currency: "RUB", amount: 1500, timer: 30, ...dates },
    result: { codeError: "none", message: null, status: "success", "x-request-id": "r-1" },
  });

  it("each flow's confirmation answers the status the profile expects of that flow", () => {
    const mobile = componentValidator(doc, "MobileCommerceConfirmationResponse");
    const quasi = componentValidator(doc, "QuasiEcomConfirmationResponse");
    expect(mobile(confirmation("waiting_for_terminal"))).toEqual([]);
    expect(mobile(confirmation("created"))).not.toEqual([]);
    expect(quasi(confirmation("created"))).toEqual([]);
    expect(quasi(confirmation("waiting_for_terminal"))).not.toEqual([]);
    const creation = componentValidator(doc, "QuasiEcomOrderResponse");
    expect(
      creation({ ...confirmation("created"), data: { id: "o-1", status: "payment_pending" } }),
    ).not.toEqual([]);
  });

  it("a date is UTC with milliseconds where the profile says so, and any RFC 3339 date where it declares no convention", () => {
    const date = componentValidator(doc, "DateTime");
    expect(date(DATE)).toEqual([]);
    expect(date("2026-11-27T07:21:16.123+00:00")).toEqual([]);
    expect(date("2026-11-27T10:21:16.123+03:00")).not.toEqual([]);
    expect(date("2026-11-27T07:21:16Z")).not.toEqual([]);
    expect(date("2026-11-27T07:21:16.1234Z")).not.toEqual([]);
    expect(date("٢٠٢٦-11-27T07:21:16.123Z")).not.toEqual([]);
    const lenient = variantOf((json) => {
      delete json.conventions;
    });
    const anyOffset = componentValidator(buildOpenApiDocument(lenient) as unknown as Doc, "DateTime");
    expect(anyOffset("2026-11-27T10:21:16+03:00")).toEqual([]);
    expect(resolve({ $ref: "#/components/schemas/OrderRecord" }).properties?.dateAdded).toEqual({
      $ref: "#/components/schemas/DateTime",
    });
  });

  it("a pattern the profile declares with \\d is written [0-9], what it means to the suite's checks", () => {
    const requisites = variantDoc.components.schemas.CreateQuasiEcomOrderRequest?.properties?.requisites;
    expect(requisites?.properties?.cvc).toMatchObject({ pattern: "^[0-9]{3}$" });
  });

  it("money values carry the decimals the profile declares, and callbacks their date convention", () => {
    const record = doc.components.schemas.OrderRecord as Schema & {
      properties: Record<string, Record<string, unknown>>;
    };
    for (const field of ["amount", "amountComission", "usdtAmount", "usdtAmountComission"])
      expect(record.properties[field]).toMatchObject({ type: "number", "x-decimals": 2 });
    const callback = doc.components.schemas.CallbackBody as Schema & {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(callback.properties.amount).toMatchObject({ "x-decimals": 2 });
    const callbackDate = new RegExp(callback.properties.dateUpdated?.pattern as string, "u");
    expect([callbackDate.test(DATE), callbackDate.test("2026-11-27T07:21:16Z")]).toEqual([true, false]);
  });
});
