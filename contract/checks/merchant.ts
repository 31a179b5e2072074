/**
 * The checks of a merchant's integration as observe mode sees it (`npm run observe`): each request
 * it sends the provider, against the API description and the profile. Its receiver's answers to
 * callbacks are judged by the receiver checks (receiver.ts).
 */
import type * as z from "zod";
import { describeFinding, plainFindings } from "../schemas/index.ts";
import { defineCheck, fail, isRecord, pass, show } from "./check.ts";

export interface MerchantHeadersInput {
  headers: Readonly<Record<string, string>>;
}

export const merchantRequestHeaders = defineCheck<MerchantHeadersInput>(
  "merchant.request-headers",
  "merchant",
  "Every request carries Content-Type: application/json and Authorization: Bearer <API_KEY> (§4, §5).",
  ({ headers }) => {
    const problems: string[] = [];
    const type = headers["content-type"];
    if (type === undefined) problems.push("no Content-Type header");
    else if (!/^application\/json\b/i.test(type.trim()))
      problems.push(`Content-Type is ${show(type)}, expected application/json`);
    const auth = headers.authorization;
    if (auth === undefined) problems.push("no Authorization header");
    else if (!/^Bearer [^\s]+$/.test(auth)) problems.push("Authorization is not `Bearer <API_KEY>`");
    return problems.length > 0 ? fail(problems.join("; ")) : pass("Content-Type JSON, Authorization Bearer");
  },
);

export interface MerchantBodyInput {
  /** The body as sent (text). */
  text: string;
  /** The operation's request schema (contract/schemas). */
  schema: z.ZodType;
  /** The conditional fields the profile's method requires (dotted paths); none for a confirmation. */
  requiredFields: readonly string[];
  /** The methodID sent and whether the profile knows it, for creations. */
  method?: { methodID: unknown; known: boolean };
}

const fieldAt = (value: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((at, part) => (isRecord(at) ? at[part] : undefined), value);

export const merchantRequestBodyValid = defineCheck<MerchantBodyInput>(
  "merchant.request-body-valid",
  "merchant",
  "The request body is JSON and valid for its operation: every required field with its type (§4.1–§4.4), and the conditional fields the method requires present (§4.1, §4.3 'conditional'; which ones: the profile).",
  ({ text, schema, requiredFields, method }) => {
    let json: unknown;
    try {
      json = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch {
      return fail(`the body is not JSON (${text.length} characters: ${show(text.slice(0, 60))})`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const findings = plainFindings(parsed.error, json, { rootName: "(body)" });
      return fail(findings.map(describeFinding).join("; "), findings);
    }
    if (method && !method.known)
      return fail(`methodID ${show(method.methodID)} is none of the profile's methods for this operation`);
    const missing = requiredFields.filter((path) => {
      const value = fieldAt(json, path);
      return value === undefined || value === null;
    });
    return missing.length > 0
      ? fail(`${missing.join(", ")} absent, which method ${show(method?.methodID)} requires`)
      : pass("valid for the operation and its method");
  },
);

export interface MerchantOrderIdUse {
  merchantOrderID: string;
  /** The creation's body without its merchantOrderID and webhook: what makes it the same order. */
  order: string;
  exchangeId: string;
}

export const merchantOrderIdUnique = defineCheck<MerchantOrderIdUse[]>(
  "merchant.order-id-unique",
  "merchant",
  "A merchantOrderID is used for one order only within a merchant account (§4.1, §4.3, §8); sending the same creation again with it, unchanged, is a retry, not another order.",
  (uses) => {
    const first = new Map<string, MerchantOrderIdUse>();
    const reused: string[] = [];
    for (const use of uses) {
      const earlier = first.get(use.merchantOrderID);
      if (earlier === undefined) first.set(use.merchantOrderID, use);
      else if (earlier.order !== use.order)
        reused.push(
          `${show(use.merchantOrderID)} for another order in ${use.exchangeId} (first in ${earlier.exchangeId})`,
        );
    }
    return reused.length > 0
      ? fail(`merchantOrderID reused: ${reused.slice(0, 3).join("; ")}${reused.length > 3 ? "; ..." : ""}`)
      : pass(`${first.size} merchantOrderID(s), each for one order`);
  },
);

export interface MerchantConfirmationInput {
  orderId: string;
  /** How the session knows the order: created through it, with its kind, or not at all. */
  created: { kind: string } | undefined;
  /** The kind of the confirm path used. */
  pathKind: string;
  /** The provider's answer status. */
  answerStatus: number | undefined;
  /** Why the order was no longer confirmable when the merchant sent it, as far as the merchant knew. */
  notConfirmableBecause: string | undefined;
}

export const merchantConfirmsOwnOrder = defineCheck<MerchantConfirmationInput>(
  "merchant.confirms-own-order",
  "merchant",
  "A confirmation names an order the merchant created, through its own kind's confirm path (§4.2, §4.4: {id} is the order ID in the service).",
  ({ orderId, created, pathKind, answerStatus }) => {
    if (created === undefined)
      return answerStatus === 404
        ? fail(`confirmed ${show(orderId)}, an order it did not create (the provider answered 404)`)
        : pass(`${show(orderId)} was created before the session (the provider knew it)`);
    return created.kind === pathKind
      ? pass(`${show(orderId)}, a ${created.kind} order it created`)
      : fail(`confirmed the ${created.kind} order ${show(orderId)} through the ${pathKind} confirm path`);
  },
);

export const merchantConfirmsConfirmable = defineCheck<MerchantConfirmationInput>(
  "merchant.confirms-confirmable",
  "merchant",
  "A confirmation is sent only for an order still awaiting one, as far as the merchant was told: not after an accepted confirmation, nor after a callback of a final status (§3, §6).",
  ({ orderId, notConfirmableBecause }) =>
    notConfirmableBecause === undefined
      ? pass(`${show(orderId)} awaited a confirmation`)
      : fail(`confirmed ${show(orderId)} after ${notConfirmableBecause}`),
  {
    source: {
      kind: "necessary",
      reason:
        "§6 sends a callback when an order enters a final status, and an order takes one confirmation code (§4.2, §4.4): a merchant told the order is final, or whose confirmation was accepted, has nothing to confirm",
    },
  },
);

export interface BlindResendInput {
  /** Creations whose answer the merchant never received (it gave up, or none came). */
  unanswered: { exchangeId: string; order: string; merchantOrderID: string | null }[];
  /** Every creation, in order sent. */
  creations: { exchangeId: string; order: string; merchantOrderID: string | null; atMs: number }[];
}

export const merchantNoBlindResend = defineCheck<BlindResendInput>(
  "merchant.no-blind-resend",
  "merchant",
  "A creation whose answer did not arrive is sent again only with the same merchantOrderID, so that the provider can refuse it as a duplicate: never as another order with a new one (§4.1, §4.3, §8: merchantOrderID is unique).",
  ({ unanswered, creations }) => {
    const blind: string[] = [];
    for (const lost of unanswered) {
      const index = creations.findIndex((c) => c.exchangeId === lost.exchangeId);
      const again = creations
        .slice(index + 1)
        .find((c) => c.order === lost.order && c.merchantOrderID !== lost.merchantOrderID);
      if (again)
        blind.push(
          `${again.exchangeId} sends ${lost.exchangeId}'s order again with merchantOrderID ${show(again.merchantOrderID)} instead of ${show(lost.merchantOrderID)}`,
        );
    }
    if (blind.length > 0) return fail(blind.join("; "));
    return pass(
      unanswered.length === 0
        ? "no creation went unanswered"
        : `${unanswered.length} unanswered creation(s), none sent again as another order`,
    );
  },
  {
    source: {
      kind: "necessary",
      reason:
        "merchantOrderID is unique within a merchant account (§4.1, §4.3, §8): it is what lets a creation be retried without making a second order; a retry with a new one can pay twice",
    },
  },
);
