/**
 * Convention checks: how dates and money are written. The API description shows no date format
 * and no money precision (§2.2), so each rule here is the target's own, declared in its profile's
 * `conventions`, and is checked on every date and money value the suite reads: the order record,
 * the confirmation result and each callback body. Nothing declared, nothing checked.
 */
import { readPath } from "../schemas/index.ts";
import { defineCheck, type Finding, fail, isRecord, pass, show } from "./check.ts";

/** The profile's `conventions.dates` (contract/profile/profile.ts). */
export interface DateConvention {
  offset?: "utc" | "any" | undefined;
  fractionalSeconds?: "required" | "forbidden" | "any" | undefined;
  fractionDigits?: number | undefined;
  oneFormat?: boolean | undefined;
}

/** The profile's `conventions.money`: decimals per kind of money value. */
export interface MoneyConvention {
  amountDecimals?: number | undefined;
  commissionDecimals?: number | undefined;
  usdtAmountDecimals?: number | undefined;
  usdtCommissionDecimals?: number | undefined;
}

/** One value read from an answer or a callback, with where it sits (`data.dateAdded`, `callback 1 dateUpdated`). */
export interface ReadValue {
  path: string;
  value: unknown;
}

export interface DateConventionInput {
  dates: readonly ReadValue[];
  convention: DateConvention | undefined;
}

export interface MoneyInput {
  /** Each money value with the decimals declared for its kind (undefined: none declared). */
  values: readonly (ReadValue & { decimals: number | undefined })[];
}

// RFC 3339's time part: the seconds, an optional fraction, the offset.
const TIME = /T\d{2}:\d{2}:\d{2}(?:[.,](\d+))?(Z|[+-]\d{2}:?\d{2})?$/i;
const UTC_OFFSETS = new Set(["z", "+00:00", "-00:00", "+0000", "-0000"]);

/**
 * The dates present, each as text; a date that is not a string (an epoch number, null) reads as
 * text no date format matches, so every date check fails it.
 */
const strings = (dates: readonly ReadValue[]) =>
  dates
    .filter((d) => d.value !== undefined)
    .map((d) => ({
      path: d.path,
      value:
        typeof d.value === "string"
          ? d.value
          : `(${d.value === null ? "null" : typeof d.value}: ${show(d.value)})`,
    }));

export const fieldsDateOffset = defineCheck<DateConventionInput>(
  "fields.date-offset",
  "fields",
  'Every date (order record, callbacks) is written in UTC, Z or +00:00, where the profile declares conventions.dates.offset "utc".',
  ({ dates, convention }) => {
    if (convention?.offset !== "utc")
      return pass(
        `the profile declares ${convention?.offset === "any" ? "any offset" : "no offset convention"}`,
      );
    const read = strings(dates);
    const wrong = read.filter((d) => !UTC_OFFSETS.has((TIME.exec(d.value)?.[2] ?? "").toLowerCase()));
    if (wrong.length === 0) return pass(`${read.length} date(s) in UTC`);
    return fail(
      `${wrong.length} of ${read.length} date(s) not in UTC: ${wrong.map((d) => `${d.path} ${show(d.value)}`).join(", ")}`,
      wrong.map((d) => ({ path: d.path, expected: "a UTC date (Z or +00:00)", actual: show(d.value) })),
    );
  },
  {
    source: {
      kind: "declared",
      where: "conventions.dates.offset (§2.2 shows no date format)",
      keys: ["conventions.dates.offset"],
    },
  },
);

/** What a date's fractional seconds must be, in words, or undefined when anything goes. */
function fractionRule(convention: DateConvention | undefined): string | undefined {
  if (convention?.fractionDigits !== undefined)
    return `exactly ${convention.fractionDigits} digit(s) of fractional seconds`;
  if (convention?.fractionalSeconds === "required") return "fractional seconds";
  if (convention?.fractionalSeconds === "forbidden") return "whole seconds, no fraction";
  return undefined;
}

export const fieldsDateFraction = defineCheck<DateConventionInput>(
  "fields.date-fraction",
  "fields",
  "Every date (order record, callbacks) carries fractional seconds as the profile's conventions.dates declares: required, forbidden, or exactly fractionDigits digits.",
  ({ dates, convention }) => {
    const rule = fractionRule(convention);
    if (rule === undefined) return pass("the profile declares no fractional-seconds convention");
    const read = strings(dates);
    const fits = (value: string) => {
      const match = TIME.exec(value);
      if (!match) return false;
      const fraction = match[1];
      if (convention?.fractionDigits !== undefined) return fraction?.length === convention.fractionDigits;
      return convention?.fractionalSeconds === "required" ? fraction !== undefined : fraction === undefined;
    };
    const wrong = read.filter((d) => !fits(d.value));
    if (wrong.length === 0) return pass(`${read.length} date(s) with ${rule}`);
    return fail(
      `${wrong.length} of ${read.length} date(s) without ${rule}: ${wrong.map((d) => `${d.path} ${show(d.value)}`).join(", ")}`,
      wrong.map((d) => ({ path: d.path, expected: rule, actual: show(d.value) })),
    );
  },
  {
    source: {
      kind: "declared",
      where: "conventions.dates.fractionalSeconds or fractionDigits (§2.2 shows no date format)",
      keys: ["conventions.dates.fractionalSeconds", "conventions.dates.fractionDigits"],
    },
  },
);

/** A date's format: its digits as `d`, an offset's sign as `±` (`dddd-dd-ddTdd:dd:dd.dddZ`). */
export function dateShape(value: string): string {
  return value.replace(/\d/g, "d").replace(/[+-](?=dd:?dd$)/, "±");
}

export const fieldsOneDateFormat = defineCheck<DateConventionInput>(
  "fields.one-date-format",
  "fields",
  "An order's dates, its callbacks' included, are written in one format: the same fraction digits and offset spelling.",
  ({ dates, convention }) => {
    if (convention?.oneFormat === false) return pass("the profile declares the dates may differ in format");
    const read = strings(dates);
    const first = read[0];
    if (!first) return pass("no date to compare");
    const expected = dateShape(first.value);
    const wrong = read.filter((d) => dateShape(d.value) !== expected);
    if (wrong.length === 0) return pass(`${read.length} date(s), all ${expected}`);
    return fail(
      `${wrong.length} of ${read.length} date(s) differ in format from ${first.path} ${show(first.value)}: ${wrong.map((d) => `${d.path} ${show(d.value)}`).join(", ")}`,
      wrong.map(
        (d): Finding => ({
          path: d.path,
          expected: `the format of ${first.path} (${expected})`,
          actual: `${show(d.value)} (${dateShape(d.value)})`,
        }),
      ),
    );
  },
  {
    source: {
      kind: "advisory",
      reason:
        "§2.2 shows no date format, so nothing says a callback writes its dates as the order record does; a difference is reported",
      declaredBy: ["conventions.dates.oneFormat"],
    },
  },
);

/** Whether a number is written with at most `decimals` decimals (the double its JSON text reads as). */
export function withinDecimals(value: number, decimals: number): boolean {
  return Number(value.toFixed(decimals)) === value;
}

export const fieldsMoneyPrecision = defineCheck<MoneyInput>(
  "fields.money-precision",
  "fields",
  "Every amount and commission, in the order currency and in USDT (order record, confirmation result, callbacks), has at most the decimals the profile's conventions.money declares for it.",
  ({ values }) => {
    const judged = values.filter(
      (v): v is ReadValue & { value: number; decimals: number } =>
        v.decimals !== undefined && typeof v.value === "number" && Number.isFinite(v.value),
    );
    if (judged.length === 0) return pass("the profile declares no money precision for these values");
    const wrong = judged.filter((v) => !withinDecimals(v.value, v.decimals));
    if (wrong.length === 0) return pass(`${judged.length} money value(s) within their declared decimals`);
    return fail(
      `${wrong.length} of ${judged.length} money value(s) not rounded to the declared decimals: ${wrong.map((v) => `${v.path} ${show(v.value)} (${v.decimals} decimals)`).join(", ")}`,
      wrong.map((v) => ({
        path: v.path,
        expected: `at most ${v.decimals} decimal(s)`,
        actual: show(v.value),
      })),
    );
  },
  {
    source: {
      kind: "declared",
      where: "conventions.money (§2.2 types money as float64 and shows no precision)",
      keys: ["conventions.money"],
    },
  },
);

// --- reading the values from what the suite received ---------------------------------------------

/** The dates of an order record (§2.2), where it has them. */
export function recordDates(data: unknown, prefix = "data"): ReadValue[] {
  if (!isRecord(data)) return [];
  return (["dateAdded", "dateUpdated"] as const)
    .filter((field) => field in data)
    .map((field) => ({ path: `${prefix}.${field}`, value: data[field] }));
}

const MONEY_FIELDS = [
  ["amount", "amountDecimals"],
  ["amountComission", "commissionDecimals"],
  ["usdtAmount", "usdtAmountDecimals"],
  ["usdtAmountComission", "usdtCommissionDecimals"],
] as const satisfies readonly (readonly [string, keyof MoneyConvention])[];

/** The money values of an order record or a confirmation result, each with its declared decimals. */
export function moneyValues(
  data: unknown,
  money: MoneyConvention | undefined,
  prefix = "data",
): MoneyInput["values"] {
  if (!isRecord(data)) return [];
  return MONEY_FIELDS.filter(([field]) => field in data).map(([field, key]) => ({
    path: `${prefix}.${field}`,
    value: data[field],
    decimals: money?.[key],
  }));
}

/** The date and the amount of each callback body, at the profile's paths. */
export function callbackValues(
  bodies: readonly unknown[],
  paths: { dateUpdated?: string | undefined; amount?: string | undefined },
  money: MoneyConvention | undefined,
): { dates: ReadValue[]; money: MoneyInput["values"] } {
  const dates: ReadValue[] = [];
  const values: MoneyInput["values"][number][] = [];
  bodies.forEach((body, i) => {
    const where = `callback ${i + 1}`;
    if (paths.dateUpdated !== undefined) {
      const value = readPath(body, paths.dateUpdated);
      if (value !== undefined) dates.push({ path: `${where} ${paths.dateUpdated}`, value });
    }
    if (paths.amount !== undefined) {
      const value = readPath(body, paths.amount);
      if (value !== undefined)
        values.push({ path: `${where} ${paths.amount}`, value, decimals: money?.amountDecimals });
    }
  });
  return { dates, money: values };
}
