/**
 * The error answers of the four endpoints, in one table: each failure's HTTP status and
 * `codeError`, which operations can give it, and when. The API description shows no failure (§7 gap):
 * these are the reference provider's sandbox conventions. A foreign target pins its
 * own in its profile's `errors`, keyed by the same names. The OpenAPI document's error responses
 * and the reference provider's error codes derive from this table.
 */
import { OPERATIONS, type OperationName, type OperationStep } from "./names.ts";

export type ErrorAnswerName =
  | "unauthorized"
  | "validation"
  | "invalidJson"
  | "orderNotFound"
  | "duplicateMerchantOrderId"
  | "invalidOrderState"
  | "invalidCode";

export interface ErrorAnswer {
  httpStatus: number;
  codeError: string;
  /** The operations that can answer it: all four, the two creating or the two confirming ones. */
  operations: "all" | OperationStep;
  /** When it is answered, in plain words. */
  when: string;
}

export const ERROR_ANSWERS = {
  unauthorized: {
    httpStatus: 401,
    codeError: "unauthorized",
    operations: "all",
    when: "the API key is missing or unknown (§5: Authorization: Bearer <API_KEY>)",
  },
  validation: {
    httpStatus: 400,
    codeError: "validation_error",
    operations: "all",
    when: "the body does not match the request schema; the message names the field path",
  },
  invalidJson: {
    httpStatus: 400,
    codeError: "invalid_json",
    operations: "all",
    when: "the body is not JSON",
  },
  orderNotFound: {
    httpStatus: 404,
    codeError: "order_not_found",
    operations: "confirm",
    when: "no order with this id belongs to the merchant (another merchant's order included)",
  },
  duplicateMerchantOrderId: {
    httpStatus: 409,
    codeError: "duplicate_merchant_order_id",
    operations: "create",
    when: "the merchant already used this merchantOrderID (§4.1, §4.3: unique within one merchant account)",
  },
  invalidOrderState: {
    httpStatus: 409,
    codeError: "invalid_order_state",
    operations: "confirm",
    when: "the order cannot be confirmed now: confirmed already, expired, or of the other kind",
  },
  invalidCode: {
    httpStatus: 422,
    codeError: "invalid_code",
    operations: "confirm",
    when: "the confirmation code is wrong; the order still awaits confirmation",
  },
} as const satisfies Record<ErrorAnswerName, ErrorAnswer>;

type Answers = typeof ERROR_ANSWERS;

/** The error answers' names, the keys of a profile's `errors`. */
export const ERROR_ANSWER_NAMES = Object.keys(ERROR_ANSWERS) as ErrorAnswerName[];

/** `codeError` → HTTP status, e.g. `{ invalid_code: 422, ... }`. */
export const ERROR_STATUS_BY_CODE = Object.fromEntries(
  Object.values(ERROR_ANSWERS).map((answer) => [answer.codeError, answer.httpStatus]),
) as { [N in ErrorAnswerName as Answers[N]["codeError"]]: Answers[N]["httpStatus"] };

/** The error answers one operation can give, by name, in the table's order. */
export function errorAnswersOf(operation: OperationName): [ErrorAnswerName, ErrorAnswer][] {
  const { step } = OPERATIONS[operation];
  return (Object.entries(ERROR_ANSWERS) as [ErrorAnswerName, ErrorAnswer][]).filter(
    ([, answer]) => answer.operations === "all" || answer.operations === step,
  );
}
