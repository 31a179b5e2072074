/**
 * The refusals of the derived negative inputs (contract/generation/negative-cases.ts): one request per
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
  "A string shorter or longer than the limits the profile declares is refused (requestRules, maxLengths). Without a declared limit the suite probes its own (text 1-255, e-mail 254, phone 32, URL 2048 characters) as an advisory.",
  {
    kind: "declared",
    where:
      "requestRules.<field>.minLength and maxLength, or maxLengths.<field> (the API description states no length)",
    keys: ["requestRules", "maxLengths"],
  },
);
export const rejectsMalformedValue = rejection(
  "rejects-malformed-value",
  "A value in the wrong format is refused: card expiry MM and YY (§4.3), an http(s) URL for metadata.webHook (§6: it receives HTTP callback requests), and each pattern or format the profile declares (requestRules). The suite's own formats (a card of 12-19 digits, a CVC of 3-4, redirect URLs) are advisories until declared.",
);
export const rejectsOutOfRange = rejection(
  "rejects-out-of-range",
  "An amount outside the method's limits (the profile's minAmount and maxAmount) is refused.",
  {
    kind: "declared",
    where: "minAmount and maxAmount of each method (§8: limits not shown)",
    keys: ["methods", "otherMethods"],
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
