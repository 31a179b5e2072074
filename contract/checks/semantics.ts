/**
 * Semantic checks: what the values must mean, beyond their types. Each takes what it needs and
 * fails with a clear line, never a throw, on data of the wrong type.
 */
import { describeValue } from "../schemas/index.ts";
import { defineCheck, fail, isRecord, pass, show } from "./check.ts";

type Data = Record<string, unknown>;

/** A finite number field, or a failure line naming the field. */
function numberAt(data: Data, field: string): number | string {
  const value = data[field];
  return typeof value === "number" && Number.isFinite(value)
    ? value
    : `${field} is ${show(value)}, not a number`;
}

function numbers<K extends string>(data: Data, fields: readonly K[]): Record<K, number> | string {
  const out = {} as Record<K, number>;
  for (const field of fields) {
    const value = numberAt(data, field);
    if (typeof value === "string") return value;
    out[field] = value;
  }
  return out;
}

export interface ConversionInput {
  record: Data;
  /** Largest accepted absolute difference, in USDT. */
  tolerance: number;
}

function conversion(amountField: string, usdtField: string) {
  return ({ record, tolerance }: ConversionInput) => {
    const n = numbers(record, [amountField, usdtField, "exchangeRate"]);
    if (typeof n === "string") return fail(n);
    const rate = n.exchangeRate as number;
    if (rate <= 0) return fail(`exchangeRate is ${rate}: ${usdtField} cannot be derived`);
    const expected = (n[amountField] as number) / rate;
    const actual = n[usdtField] as number;
    const difference = Math.abs(actual - expected);
    const line = `${usdtField} ${actual} vs ${amountField} / exchangeRate = ${n[amountField]} / ${rate} = ${expected.toFixed(6)}`;
    return difference <= tolerance + 1e-9
      ? pass(`${line} (difference ${difference.toFixed(6)} ≤ ${tolerance})`)
      : fail(`${line}: difference ${difference.toFixed(6)} exceeds tolerance ${tolerance}`);
  };
}

export const semanticsUsdtAmount = defineCheck<ConversionInput>(
  "semantics.usdt-amount",
  "semantics",
  "usdtAmount ≈ amount / exchangeRate, since 1 USDT = exchangeRate units of the order currency (§2.2).",
  conversion("amount", "usdtAmount"),
);

export const semanticsUsdtCommission = defineCheck<ConversionInput>(
  "semantics.usdt-commission",
  "semantics",
  "usdtAmountComission ≈ amountComission / exchangeRate (§2.2).",
  conversion("amountComission", "usdtAmountComission"),
);

export const semanticsCommissionNonNegative = defineCheck<Data>(
  "semantics.commission-non-negative",
  "semantics",
  "amountComission and usdtAmountComission are not negative: a commission is charged, never paid out.",
  (record) => {
    const n = numbers(record, ["amountComission", "usdtAmountComission"]);
    if (typeof n === "string") return fail(n);
    const negative = Object.entries(n).filter(([, v]) => v < 0);
    return negative.length === 0
      ? pass(`amountComission ${n.amountComission}, usdtAmountComission ${n.usdtAmountComission}`)
      : fail(negative.map(([k, v]) => `${k} is ${v}`).join("; "));
  },
  {
    source: {
      kind: "necessary",
      reason: "§2.2 calls it the merchant's commission; a commission is charged, never paid out",
    },
  },
);

export const semanticsExchangeRatePositive = defineCheck<Data>(
  "semantics.exchange-rate-positive",
  "semantics",
  "exchangeRate > 0 (1 USDT = X units of the order currency, §2.2).",
  (record) => {
    const rate = numberAt(record, "exchangeRate");
    if (typeof rate === "string") return fail(rate);
    return rate > 0 ? pass(`exchangeRate ${rate}`) : fail(`exchangeRate is ${rate}`);
  },
);

export interface EchoInput {
  field: string;
  expected: unknown;
  received: unknown;
}

function echo(what: string) {
  return ({ field, expected, received }: EchoInput) =>
    received === expected
      ? pass(`${field} ${show(received)}`)
      : fail(`${field} is ${show(received)}, expected ${show(expected)} (${what})`, [
          { path: field, expected: `${show(expected)} (${what})`, actual: describeValue(received) },
        ]);
}

export const semanticsAmountEchoed = defineCheck<EchoInput>(
  "semantics.amount-echoed",
  "semantics",
  "amount is the amount of the request (or of the order, in a confirmation).",
  echo("the amount sent"),
  { source: { kind: "stated", sections: ["§2.2", "§4.1"] } },
);

export const semanticsCurrencyOfMethod = defineCheck<EchoInput>(
  "semantics.currency-of-method",
  "semantics",
  "currency is the one fixed by the transfer method (§1: amounts are in the currency fixed by methodID).",
  echo("the method's currency, from the profile"),
);

export const semanticsMethodEchoed = defineCheck<EchoInput>(
  "semantics.method-echoed",
  "semantics",
  "paymentDetailsData.methodID is the methodID of the request.",
  echo("the methodID sent"),
  { source: { kind: "stated", sections: ["§2.2", "§4.1"] } },
);

export const semanticsMerchantOrderIdEchoed = defineCheck<EchoInput>(
  "semantics.merchant-order-id-echoed",
  "semantics",
  "The merchant's order id comes back as sent (idTransactionMerchant in §2.2, merchantOrderID in §2.3/§2.4), null or absent when none was sent.",
  (input) => {
    if (input.expected === null && (input.received === null || input.received === undefined)) {
      return pass(`${input.field} ${show(input.received)} (none was sent)`);
    }
    return echo("the merchantOrderID sent")(input);
  },
);

export interface DatesInput {
  record: Data;
  /** The profile's strictness: RFC 3339 required, or any parseable date. */
  rfc3339: boolean;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/** The start of an ISO 8601 date and time, the one form Date.parse reads as written. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/;

export const semanticsDatesOrdered = defineCheck<DatesInput>(
  "semantics.dates-ordered",
  "semantics",
  "dateAdded and dateUpdated are strings, RFC 3339 dates where the profile's gaps.dateFormat says so (§2.2 does not show the format), and dateAdded ≤ dateUpdated where both read as ISO 8601 dates.",
  ({ record, rfc3339 }) => {
    const problems: string[] = [];
    const parsed: Record<string, number> = {};
    for (const field of ["dateAdded", "dateUpdated"]) {
      const value = record[field];
      if (typeof value !== "string") {
        problems.push(`${field} is ${show(value)}, not a string`);
        continue;
      }
      if (rfc3339 && !RFC3339.test(value)) problems.push(`${field} ${show(value)} is not RFC 3339`);
      // Only an ISO 8601 date is read: Date.parse guesses at others (01.02.2024 as 2 January).
      const ms = ISO_DATE.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(ms)) {
        if (rfc3339) problems.push(`${field} ${show(value)} does not parse as a date`);
      } else parsed[field] = ms;
    }
    if (problems.length > 0) return fail(problems.join("; "));
    if (parsed.dateAdded === undefined || parsed.dateUpdated === undefined)
      return pass(
        `dateAdded ${show(record.dateAdded)}, dateUpdated ${show(record.dateUpdated)}: no declared format, and not both ISO 8601, so their order is not judged`,
      );
    const { dateAdded, dateUpdated } = parsed as { dateAdded: number; dateUpdated: number };
    return dateAdded <= dateUpdated
      ? pass(`dateAdded ${show(record.dateAdded)} ≤ dateUpdated ${show(record.dateUpdated)}`)
      : fail(
          `dateUpdated ${show(record.dateUpdated)} is ${(dateAdded - dateUpdated) / 1000} s before dateAdded ${show(record.dateAdded)}`,
        );
  },
  { source: { kind: "stated", sections: ["§2.2"] } },
);

export const semanticsRoutingAttemptsEmpty = defineCheck<Data>(
  "semantics.routing-attempts-empty",
  "semantics",
  "routingAttempts is present and empty in the creation response (§2.2).",
  (record) => {
    const attempts = record.routingAttempts;
    if (!Array.isArray(attempts)) return fail(`routingAttempts is ${show(attempts)}, not an array`);
    return attempts.length === 0
      ? pass("routingAttempts []")
      : fail(`routingAttempts has ${attempts.length} element(s): ${show(attempts)}`);
  },
);

export interface ConfirmationEchoInput {
  /** The order id in the confirm path. */
  pathId: string;
  /** What the order was created with. */
  order: { amount: unknown; currency: unknown; merchantOrderID: unknown };
  result: Data;
}

export const semanticsConfirmationEchoesOrder = defineCheck<ConfirmationEchoInput>(
  "semantics.confirmation-echoes-order",
  "semantics",
  "A confirmation result names the order of the path and carries its amount, currency and merchantOrderID (§2.3).",
  ({ pathId, order, result }) => {
    const problems: string[] = [];
    if (result.id !== pathId) problems.push(`id is ${show(result.id)}, expected the path's ${show(pathId)}`);
    if (result.amount !== order.amount)
      problems.push(`amount is ${show(result.amount)}, the order's is ${show(order.amount)}`);
    if (result.currency !== order.currency)
      problems.push(`currency is ${show(result.currency)}, the order's is ${show(order.currency)}`);
    const expectedMoid = order.merchantOrderID ?? null;
    const receivedMoid = result.merchantOrderID ?? null;
    if (receivedMoid !== expectedMoid)
      problems.push(
        `merchantOrderID is ${show(result.merchantOrderID)}, the order's is ${show(order.merchantOrderID)}`,
      );
    return problems.length > 0
      ? fail(problems.join("; "))
      : pass(`id, amount, currency and merchantOrderID are the order's`);
  },
  { scope: "order" },
);

export const semanticsTimerValid = defineCheck<Data>(
  "semantics.timer-valid",
  "semantics",
  "timer is a finite number ≥ 0: the time left of the order's lifetime, in the profile's lifecycle.timerUnit.",
  (result) => {
    const timer = numberAt(result, "timer");
    if (typeof timer === "string") return fail(timer);
    return timer >= 0 ? pass(`timer ${timer}`) : fail(`timer is ${timer}, negative`);
  },
  {
    source: {
      kind: "advisory",
      reason:
        "§2.3 calls timer only 'a timer value' and §8 leaves its unit and meaning open: a negative one may mean something",
      declaredBy: ["lifecycle.timerUnit"],
    },
  },
);

export interface StatusAfterInput {
  operation: string;
  expected: string;
  received: unknown;
}

export const semanticsStatusAfterOperation = defineCheck<StatusAfterInput>(
  "semantics.status-after-operation",
  "semantics",
  "The status an operation answers is the one the profile expects (default: what the API description observed, §3).",
  ({ operation, expected, received }) =>
    received === expected
      ? pass(`${operation} answered status ${show(received)}`)
      : fail(`${operation} answered status ${show(received)}, expected ${show(expected)}`, [
          { path: "data.status", expected: show(expected), actual: describeValue(received) },
        ]),
);

/** `data` of a parsed envelope, when it is an object. */
export function dataOf(json: unknown): Data | undefined {
  return isRecord(json) && isRecord(json.data) ? json.data : undefined;
}

export interface RequisiteTypeInput {
  /** The order record's `paymentDetailsData`. */
  paymentDetails: unknown;
  /** The method the order was made with, and the requisiteTypeCode the profile declares for it. */
  methodID: number;
  declaredType: string | undefined;
  /** The requisiteTypeCode values that are link types: a payment link comes with them. */
  linkTypes: readonly string[];
}

export const semanticsRequisiteTypeFields = defineCheck<RequisiteTypeInput>(
  "semantics.requisite-type-fields",
  "semantics",
  "paymentDetailsData carries what its method's requisite type promises: the requisiteTypeCode the profile declares for the method, and with a link type (gaps.linkRequisiteTypes) a non-empty link (§2.2).",
  ({ paymentDetails, methodID, declaredType, linkTypes }) => {
    if (!isRecord(paymentDetails))
      return fail(`paymentDetailsData is ${show(paymentDetails)}: nothing to judge`);
    const { requisiteTypeCode: code, link } = paymentDetails;
    if (declaredType !== undefined && code !== declaredType)
      return fail(
        `paymentDetailsData.requisiteTypeCode is ${show(code)}, but the profile declares ${show(declaredType)} for method ${methodID}`,
      );
    if (typeof code !== "string" || !linkTypes.includes(code))
      return pass(`requisiteTypeCode ${show(code)} is no link type (${show(linkTypes)})`);
    return typeof link === "string" && link.trim() !== ""
      ? pass(`requisiteTypeCode ${show(code)}, link ${show(link)}`)
      : fail(
          `paymentDetailsData.link is ${show(link)}, but requisiteTypeCode ${show(code)} of method ${methodID} is a link type: expected a non-empty link`,
        );
  },
  {
    source: {
      kind: "advisory",
      reason:
        "§2.2 gives link 'where applicable (for example when requisiteTypeCode is the link type)' but names no link type, and no method's type",
      declaredBy: ["gaps.linkRequisiteTypes"],
    },
  },
);
