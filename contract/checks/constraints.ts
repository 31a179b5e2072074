/**
 * The refusals of the derived negative inputs (contract/negative-cases.ts): one request per
 * constraint of the contract and the profile, each breaking exactly that constraint. Every
 * constraint keyword is judged by one named check; {@link checkOfConstraint} says which.
 */
import {
  evaluateRejection,
  type RejectionInput,
  rejectsMissingField,
  rejectsNonPositiveAmount,
  rejectsWrongType,
} from "./behaviour.ts";
import { type Check, defineCheck, type RuleSource } from "./check.ts";

function rejection(name: string, rule: string, source?: RuleSource) {
  return defineCheck<RejectionInput>(`behaviour.${name}`, "behaviour", rule, evaluateRejection, {
    ...(source ? { source } : {}),
  });
}

export const rejectsValueOutsideEnum = rejection(
  "rejects-value-outside-enum",
  "A value outside the values a field lists is refused (§4.1, §4.3: trafficType is one of ftd, td, mixed).",
);
export const rejectsLengthOutOfBounds = rejection(
  "rejects-length-out-of-bounds",
  "A string shorter or longer than its limits is refused: the profile's maxLengths, else the suite's reading of the seed's silent limits (text 255, e-mail 254, phone 32, URL 2048 characters).",
  {
    kind: "reading",
    reason:
      "the seed declares no maximum length for any request string; the suite reads the usual column and protocol limits, and a profile sets the target's own",
  },
);
export const rejectsMalformedValue = rejection(
  "rejects-malformed-value",
  "A value in the wrong format is refused: card expiry MM and YY (§4.3), the card number's 12-19 digits and the CVC's 3-4 digits, an http(s) URL for metadata.webHook.",
);
export const rejectsOutOfRange = rejection(
  "rejects-out-of-range",
  "An amount outside the method's limits (the profile's minAmount and maxAmount, DESIGN's 1,000,000 for the reference provider) is refused.",
  {
    kind: "convention",
    where: "the profile's minAmount and maxAmount of each method (§8: limits not shown)",
  },
);
export const rejectsMissingConditionalField = rejection(
  "rejects-missing-conditional-field",
  "An order without a conditional field its method requires, absent or null, is refused (§4.1, §4.3 'conditional'; which fields per method: the profile).",
);
export const rejectsMethodOfOtherKind = rejection(
  "rejects-method-of-other-kind",
  "A create endpoint refuses a methodID of the other order kind: methods belong to one flow (§4.5, the profile's methods per flow).",
);

/** What {@link checkOfConstraint} needs of a negative case's constraint. */
export interface ConstraintRef {
  keyword: string;
  expected: unknown;
}

/**
 * The check that judges the refusal of a request breaking one constraint. A keyword no check
 * judges is a suite bug (a constraint would go unprobed), so it throws, naming the keyword.
 */
export function checkOfConstraint({ keyword, expected }: ConstraintRef): Check<RejectionInput> {
  switch (keyword) {
    case "required":
      return rejectsMissingField;
    case "type":
      return rejectsWrongType;
    case "enum":
    case "const":
      return rejectsValueOutsideEnum;
    case "minLength":
    case "maxLength":
      return rejectsLengthOutOfBounds;
    case "pattern":
    case "format":
      return rejectsMalformedValue;
    case "exclusiveMinimum":
      return expected === 0 ? rejectsNonPositiveAmount : rejectsOutOfRange;
    case "minimum":
    case "maximum":
    case "exclusiveMaximum":
      return rejectsOutOfRange;
    case "required-by-method":
      return rejectsMissingConditionalField;
    case "method":
      return rejectsMethodOfOtherKind;
    default:
      throw new Error(
        `no check judges the constraint keyword "${keyword}": add it to checkOfConstraint (contract/checks/constraints.ts)`,
      );
  }
}
