/** Field checks (api §2.2–§2.4): every field with its type, required or nullable, and known statuses. */
import type * as z from "zod";
import type { Contract } from "../schemas/index.ts";
import { describeFinding, plainFindings } from "../schemas/index.ts";
import { defineCheck, fail, pass, show } from "./check.ts";

export interface FieldsInput {
  /** The envelope's `data`. */
  data: unknown;
  contract: Contract;
}

function conformsTo(schema: (c: Contract) => z.ZodType, what: string) {
  return ({ data, contract }: FieldsInput) => {
    if (data === undefined || data === null)
      return fail(`data is ${show(data)}: there is no ${what} to check`);
    const parsed = schema(contract).safeParse(data);
    if (parsed.success) return pass(`${what} has every field with its type`);
    const findings = plainFindings(parsed.error, data, { root: "data" });
    return fail(findings.map(describeFinding).join("; "), findings);
  };
}

export const fieldsOrderRecord = defineCheck<FieldsInput>(
  "fields.order-record",
  "fields",
  "The mobile-commerce order record has every field of §2.2 with its type, required fields present, optional ones absent or null.",
  conformsTo((c) => c.orderRecord, "order record"),
);

export const fieldsConfirmationResult = defineCheck<FieldsInput>(
  "fields.confirmation-result",
  "fields",
  "The confirmation result has every field of §2.3 with its type.",
  conformsTo((c) => c.confirmationResult, "confirmation result"),
);

export const fieldsQuasiEcomCreationResult = defineCheck<FieldsInput>(
  "fields.quasi-ecom-creation-result",
  "fields",
  "The quasi-ecom creation result has every field of §2.4 with its type.",
  conformsTo((c) => c.quasiEcomCreationResult, "quasi-ecom creation result"),
);

export interface StatusInput {
  status: unknown;
  known: readonly string[];
}

export const fieldsStatusKnown = defineCheck<StatusInput>(
  "fields.status-known",
  "fields",
  "status is one of the statuses §3 names, or one the profile's gaps.extraStatuses adds.",
  ({ status, known }) =>
    typeof status === "string" && known.includes(status)
      ? pass(`status ${show(status)}`)
      : fail(`status ${show(status)} is not a known status (${known.join(", ")})`),
  {
    source: {
      kind: "advisory",
      reason: "§3 names seven statuses and says the complete list is not shown: another may exist",
      declaredBy: ["gaps.extraStatuses"],
    },
  },
);
