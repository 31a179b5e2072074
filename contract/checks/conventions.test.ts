/**
 * The convention checks hold a target to what its profile declares, and to nothing more: a
 * profile without `conventions` is checked for nothing it was not checked for before.
 */
import { describe, expect, it } from "vitest";
import { parseProfile } from "../profile/index.ts";
import { callbacksStopsAfterAcknowledgement } from "./callbacks.ts";
import { requirementOf } from "./check.ts";
import {
  callbackValues,
  dateShape,
  fieldsDateFraction,
  fieldsDateOffset,
  fieldsMoneyPrecision,
  fieldsOneDateFormat,
  moneyValues,
  recordDates,
  withinDecimals,
} from "./conventions.ts";

const BARE = {
  name: "bare",
  methods: {
    mobile_commerce: { methodID: 1, currency: "RUB", amount: 100 },
    quasi_ecom: { methodID: 2, currency: "RUB", amount: 100 },
  },
  confirmation: { successCode: "1", wrongCode: "0" },
  callbackTriggers: {
    succeeded: { code: "1" },
    expired: { unconfirmedForSeconds: 5 },
    failed_by_terminal: { code: "2" },
    succeeded_by_appeal: { code: "3" },
  },
};

const localRecord = {
  dateAdded: "2026-11-27T10:21:16+03:00",
  dateUpdated: "2026-11-27T10:21:16.5+03:00",
  amount: 1234.567,
  amountComission: 30.864175,
  usdtAmount: 13.3466702702,
  usdtAmountComission: 0.33366,
};

describe("a profile that declares no conventions", () => {
  const profile = parseProfile(BARE, "bare.json");

  it("parses with none, and the checks pass whatever the dates and money", () => {
    expect(profile.conventions).toEqual({});
    const dates = { dates: recordDates(localRecord), convention: profile.conventions.dates };
    expect(fieldsDateOffset.run(dates)).toMatchObject({ ok: true, detail: /no offset convention/ });
    expect(fieldsDateFraction.run(dates)).toMatchObject({ ok: true, detail: /no fractional-seconds/ });
    expect(
      fieldsMoneyPrecision.run({ values: moneyValues(localRecord, profile.conventions.money) }),
    ).toMatchObject({
      ok: true,
    });
  });

  it("holds it to none of the convention rules: each is informational", () => {
    for (const check of [fieldsDateOffset, fieldsDateFraction, fieldsOneDateFormat, fieldsMoneyPrecision])
      expect(requirementOf(check, profile), check.name).toMatchObject({ required: false });
  });

  it("still holds it to HTTP: no delivery after a 2xx, whatever the profile declares", () => {
    expect(requirementOf(callbacksStopsAfterAcknowledgement, profile)).toEqual({ required: true });
  });

  it("makes each rule required once the profile declares its key", () => {
    const declared = parseProfile(
      {
        ...BARE,
        conventions: {
          dates: { offset: "utc", fractionDigits: 3, oneFormat: true },
          money: { commissionDecimals: 2 },
        },
      },
      "declared.json",
    );
    for (const check of [fieldsDateOffset, fieldsDateFraction, fieldsOneDateFormat, fieldsMoneyPrecision])
      expect(requirementOf(check, declared), check.name).toEqual({ required: true });
  });

  it("refuses fraction digits with fractional seconds forbidden, saying which to drop", () => {
    expect(() =>
      parseProfile(
        { ...BARE, conventions: { dates: { fractionalSeconds: "forbidden", fractionDigits: 3 } } },
        "x.json",
      ),
    ).toThrow(/conventions\.dates\.fractionDigits.*drop one of the two/);
  });
});

describe("reading dates and money", () => {
  it("reads the record's dates and money, and each callback's date and amount at the profile's paths", () => {
    expect(recordDates(localRecord).map((d) => d.path)).toEqual(["data.dateAdded", "data.dateUpdated"]);
    expect(moneyValues(localRecord, { commissionDecimals: 2 }).map((v) => [v.path, v.decimals])).toEqual([
      ["data.amount", undefined],
      ["data.amountComission", 2],
      ["data.usdtAmount", undefined],
      ["data.usdtAmountComission", undefined],
    ]);
    const read = callbackValues(
      [{ order: { updatedAt: "2026-11-27T07:21:16Z", amount: 10.5 } }, {}],
      { dateUpdated: "order.updatedAt", amount: "order.amount" },
      { amountDecimals: 0 },
    );
    expect(read.dates).toEqual([{ path: "callback 1 order.updatedAt", value: "2026-11-27T07:21:16Z" }]);
    expect(fieldsMoneyPrecision.run({ values: read.money })).toMatchObject({
      ok: false,
      detail: /callback 1 order.amount 10.5 \(0 decimals\)/,
    });
  });

  it("tells formats apart by fraction digits and offset spelling, not by the offset's sign or value", () => {
    expect(dateShape("2026-11-27T07:21:16.123Z")).toBe("dddd-dd-ddTdd:dd:dd.dddZ");
    expect(dateShape("2026-11-27T07:21:16+05:00")).toBe(dateShape("2026-11-27T07:21:16-03:00"));
    expect(dateShape("2026-11-27T07:21:16+00:00")).not.toBe(dateShape("2026-11-27T07:21:16Z"));
  });

  it("counts decimals on the number the JSON text reads as", () => {
    expect(withinDecimals(30.86, 2)).toBe(true);
    expect(withinDecimals(30.86425, 2)).toBe(false);
    expect(withinDecimals(0.1 + 0.2, 2)).toBe(false);
    expect(withinDecimals(1500, 0)).toBe(true);
  });
});
