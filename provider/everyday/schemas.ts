/** The request bodies of §4, with this sandbox's own field rules (README "Validation"). */
import { z } from "zod";
import { CODE_PATTERN } from "./config.ts";

/** The Luhn checksum every card number must pass. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = Number(digits[i]);
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

const creation = {
  methodID: z.number().int(),
  amount: z.number().positive(),
  trafficType: z.enum(["ftd", "td", "mixed"]).default("mixed"),
  clientID: z.string().min(1).max(64).optional(),
  merchantOrderID: z.string().min(1).max(64).optional(),
  metadata: z
    .object({
      webHook: z
        .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
        .max(2048)
        .optional(),
    })
    .optional(),
};

export const mobileCommerceCreation = z.object({
  ...creation,
  clientMetadata: z
    .object({
      phone: z
        .string()
        .regex(/^\+?\d{7,15}$/, "must be 7 to 15 digits, optionally after +")
        .optional(),
      operator: z.string().min(1).max(50).optional(),
      name: z.string().min(1).max(100).optional(),
      email: z.email().max(254).optional(),
    })
    .optional(),
});
export type MobileCommerceCreation = z.infer<typeof mobileCommerceCreation>;

export const quasiEcomCreation = z.object({
  ...creation,
  requisites: z.object({
    number: z
      .string()
      .regex(/^\d{13,19}$/, "must be 13 to 19 digits")
      .refine(passesLuhn, "fails the Luhn check"),
    mediatorName: z.string().min(1).max(100),
    lifetimeMonth: z.string().regex(/^(0[1-9]|1[0-2])$/, "must be MM, 01 to 12"),
    lifetimeYear: z.string().regex(/^\d{2}$/, "must be YY, two digits"),
    cvc: z.string().regex(/^\d{3,4}$/, "must be 3 or 4 digits"),
  }),
});
export type QuasiEcomCreation = z.infer<typeof quasiEcomCreation>;

export const confirmation = z.object({
  code: z.string().regex(CODE_PATTERN, "must be 5 digits"),
});

/** zod's issues as one line naming each field: "amount: Too small: expected number to be >0". */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "body"}: ${issue.message}`)
    .join("; ");
}
