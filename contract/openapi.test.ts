import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ERROR_ANSWERS } from "./error-answers.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { ProfileSchema } from "./profile.ts";

type Schema = {
  $ref?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  required?: string[];
};
type Doc = {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Schema> };
};

const doc = buildOpenApiDocument() as unknown as Doc;

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
 * Every field the seed names, transcribed from its tables (h2h-api.md §2 and §4), independently
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
  CallbackBody: ["id", "merchantOrderID", "status", "amount", "currency", "orderType", "dateUpdated"],
};

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(doc) as unknown as Parameters<Validator["validate"]>[0],
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
      readFileSync(new URL("../fixtures/profiles/reference.json", import.meta.url), "utf8"),
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

  it.each(Object.entries(SEED_FIELDS))("%s carries every field the seed names", (component, fields) => {
    const missing = fields.filter((field) => fieldAt(component, field) === undefined);
    expect(missing).toEqual([]);
  });

  it("marks required what the seed marks required, and the request fields the seed marks optional as optional", () => {
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
