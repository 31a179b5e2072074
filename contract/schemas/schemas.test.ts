import { describe, expect, it } from "vitest";
import {
  buildMobileCommerceOrderRequest,
  buildQuasiEcomOrderRequest,
  SAMPLE_ORDER_RECORD,
  sampleSuccessEnvelope,
} from "../../fixtures/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import {
  buildContract,
  ConfirmOrderRequest,
  CreateMobileCommerceOrderRequest,
  CreateQuasiEcomOrderRequest,
  contract,
  ErrorEnvelope,
  LENIENT_GAPS,
  type OrderRecord,
} from "./schemas.ts";

const record = { ...SAMPLE_ORDER_RECORD, idTransactionMerchant: null } satisfies OrderRecord;
const success = (data: unknown) => sampleSuccessEnvelope(data);

describe("response schemas", () => {
  it("accept a well-formed order record, with optional fields absent or null, and extra fields", () => {
    expect(contract.responses.createMobileCommerceOrder.safeParse(success(record)).success).toBe(true);
    const { idTransactionMerchant: _omitted, ...withoutOptional } = record;
    expect(contract.orderRecord.safeParse(withoutOptional).success).toBe(true);
    expect(contract.orderRecord.safeParse({ ...record, riskScore: 3 }).success).toBe(true);
  });

  it.each([
    ["amount as a string", { amount: "1500" }, "amount"],
    ["a missing merchantID", { merchantID: undefined }, "merchantID"],
    ["null where a value is required", { currency: null }, "currency"],
    [
      "a non-integer methodID",
      { paymentDetailsData: { ...record.paymentDetailsData, methodID: 101.5 } },
      "paymentDetailsData.methodID",
    ],
    ["routingAttempts missing", { routingAttempts: undefined }, "routingAttempts"],
  ])("reject %s, naming the field", (_label, change, path) => {
    const parsed = contract.orderRecord.safeParse({ ...record, ...change });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toContain(path);
  });

  it("treat the API description's gaps leniently by default and strictly under the reference policy", () => {
    const oddRecord = { ...record, dateAdded: "22.11.2026 03:00", orderType: "mc", currency: "EUR" };
    expect(buildContract(LENIENT_GAPS).orderRecord.safeParse(oddRecord).success).toBe(true);
    const strict = buildContract(REFERENCE_PROFILE.gaps).orderRecord.safeParse(oddRecord);
    expect(strict.error?.issues.map((i) => i.path.join(".")).sort()).toEqual([
      "currency",
      "dateAdded",
      "orderType",
    ]);
  });

  it("accept a status the profile adds, and only then", () => {
    // The API description does not show the complete list: without one declared, any status goes.
    expect(contract.orderRecord.safeParse({ ...record, status: "on_hold" }).success).toBe(true);
    const withExtra = buildContract({ ...LENIENT_GAPS, extraStatuses: ["on_hold"] });
    expect(withExtra.orderRecord.safeParse({ ...record, status: "on_hold" }).success).toBe(true);
    const declaredNone = buildContract({ ...LENIENT_GAPS, extraStatuses: [] }).orderRecord;
    const unknown = declaredNone.safeParse({ ...record, status: "on_hold" });
    expect(unknown.success).toBe(false);
    expect(unknown.error?.issues.map((i) => i.path.join("."))).toContain("status");
  });

  it("hold success to codeError none, message null and status success", () => {
    const bad = { ...success(record), result: { ...success(record).result, message: "OK" } };
    expect(contract.responses.createMobileCommerceOrder.safeParse(bad).success).toBe(false);
  });

  it("hold an error envelope to a code other than none, a status other than success and a request id", () => {
    const error = {
      data: null,
      result: { codeError: "invalid_code", message: "wrong", status: "error", "x-request-id": "r" },
    };
    expect(ErrorEnvelope.safeParse(error).success).toBe(true);
    expect(
      ErrorEnvelope.safeParse({ ...error, result: { ...error.result, codeError: "none" } }).success,
    ).toBe(false);
    expect(
      ErrorEnvelope.safeParse({ ...error, result: { ...error.result, status: "success" } }).success,
    ).toBe(false);
    const { "x-request-id": _id, ...noId } = error.result;
    expect(ErrorEnvelope.safeParse({ ...error, result: noId }).success).toBe(false);
  });
});

describe("request schemas", () => {
  it("accept what the payload builders make", () => {
    expect(
      CreateMobileCommerceOrderRequest.safeParse(
        buildMobileCommerceOrderRequest({
          methodID: 101,
          amount: 1,
          withClientMetadata: true,
          withClientID: true,
          merchantOrderID: "m",
          webHook: "http://127.0.0.1:1/cb",
        }),
      ).success,
    ).toBe(true);
    expect(
      CreateQuasiEcomOrderRequest.safeParse(buildQuasiEcomOrderRequest({ methodID: 201, amount: 1 })).success,
    ).toBe(true);
    expect(ConfirmOrderRequest.safeParse({ code: "1111" }).success).toBe(true);
  });

  it.each([
    [{ methodID: 101, amount: 0 }, "amount"],
    [{ methodID: 101, amount: Number.NaN }, "amount"],
    [{ methodID: "101", amount: 1 }, "methodID"],
    [{ methodID: 101, amount: 1, trafficType: "all" }, "trafficType"],
    [{ methodID: 101, amount: 1, metadata: { webHook: "ftp://x.invalid/" } }, "metadata.webHook"],
  ])("reject %j, naming %s", (body, path) => {
    const parsed = CreateMobileCommerceOrderRequest.safeParse(body);
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toContain(path);
  });
});
