/**
 * Behaviour and security checks: what the target must refuse and what it must accept. A refusal
 * is a 4xx answer; a 5xx is never a refusal (it is a server error), and a 2xx is an acceptance.
 * A 429 or 503 is neither: the check is not evaluated (rate limited).
 * Where the profile pins the error (HTTP status and/or codeError), the refusal must match it.
 */
import type { ExchangeResponse } from "../client/index.ts";
import {
  type Check,
  defineCheck,
  exchangeWhere,
  fail,
  isRecord,
  notEvaluated,
  pass,
  type RuleSource,
  type RunJudgement,
  show,
} from "./check.ts";
import { rateLimitCause } from "./rate-limit.ts";

/** What a target documents for one kind of refusal; unset parts accept any value. */
export interface PinnedError {
  httpStatus?: number | undefined;
  codeError?: string | undefined;
}

export interface RejectionInput {
  response: ExchangeResponse;
  /** The documented refusal; several where more than one kind fits the request (any one will do). */
  pinned?: PinnedError | readonly PinnedError[] | undefined;
}

function codeErrorOf(response: ExchangeResponse): unknown {
  return isRecord(response.json) && isRecord(response.json.result)
    ? response.json.result.codeError
    : undefined;
}

/** The rule every `behaviour.rejects-*` check applies to its own request. */
export function evaluateRejection({ response, pinned }: RejectionInput) {
  // A 429 or 503 is the limiter's answer, not the endpoint's refusal.
  const limited = rateLimitCause(response);
  if (limited) return notEvaluated(limited);
  const codeError = codeErrorOf(response);
  const answer = `HTTP ${response.status}${codeError !== undefined ? ` codeError ${show(codeError)}` : ""}`;
  if (response.status >= 200 && response.status < 300) return fail(`accepted: ${answer}`);
  if (response.status >= 500) return fail(`server error instead of a refusal: ${answer}`);
  if (response.status < 400) return fail(`not a refusal: ${answer}`);
  const problemsWith = (one: PinnedError | undefined) => {
    const problems: string[] = [];
    if (one?.httpStatus !== undefined && response.status !== one.httpStatus) {
      problems.push(`HTTP ${response.status}, the profile pins ${one.httpStatus}`);
    }
    if (one?.codeError !== undefined && codeError !== one.codeError) {
      problems.push(`codeError ${show(codeError)}, the profile pins ${show(one.codeError)}`);
    }
    return problems;
  };
  const each = (Array.isArray(pinned) ? pinned : [pinned]) as (PinnedError | undefined)[];
  const misses = each.map(problemsWith);
  if (misses.some((problems) => problems.length === 0)) return pass(`refused: ${answer}`);
  return fail(`refused, but ${misses.map((problems) => problems.join("; ")).join(", or ")}`);
}

function rejection(name: string, rule: string, source?: RuleSource) {
  return defineCheck<RejectionInput>(
    `behaviour.${name}`,
    "behaviour",
    rule,
    evaluateRejection,
    source ? { source } : {},
  );
}

/** A rule that follows from the API description with no number or format added, with the reason. */
const necessary = (reason: string): RuleSource => ({ kind: "necessary", reason });

export const rejectsMissingApiKey = rejection(
  "rejects-missing-api-key",
  "A request without an Authorization header is refused (§5).",
);
export const rejectsWrongApiKey = rejection(
  "rejects-wrong-api-key",
  "A request with an unknown API key is refused (§5).",
);
export const rejectsNearMissApiKey = rejection(
  "rejects-near-miss-api-key",
  "A key one step from a merchant's API key (a character added or removed at either end, another letter case, the other merchant's key changed by one character) is refused like a wrong key (§5). A credential that is no well-formed token (a no-break space around the key, a word after it) and that a common normalisation reads as the key is an advisory when accepted, unless the profile's strictInput lists that normalisation.",
);
export const rejectsQueryApiKey = rejection(
  "rejects-query-api-key",
  "A request without an Authorization header is refused even with the merchant's API key in its query string (?api_key=KEY): every request carries the key in the Authorization header (§5).",
);
export const rejectsMissingField = rejection(
  "rejects-missing-field",
  "A request without a required field is refused (§4: one case per required field per endpoint).",
);
export const rejectsWrongType = rejection(
  "rejects-wrong-type",
  "A request with a field of the wrong type is refused (§4: integer, float64, string).",
);
export const rejectsTrafficTypeOutsideEnum = rejection(
  "rejects-traffic-type-outside-enum",
  "A trafficType other than ftd, td or mixed is refused (§4.1, §4.3).",
);
export const rejectsNonPositiveAmount = rejection(
  "rejects-non-positive-amount",
  "An amount of zero or less is refused: a payment amount is positive.",
  necessary(
    "§4 types amount as float64 and §8 leaves its minimum open; a payment of zero or less moves no money",
  ),
);
export const rejectsMalformedJson = rejection(
  "rejects-malformed-json",
  "A body that is not JSON is refused (§4).",
);
export const rejectsUnknownOrder = rejection(
  "rejects-unknown-order",
  "Confirming an order id the service never issued is refused.",
  necessary(
    "§4.2 and §4.4 confirm an order by its id, and the API description shows no answer for an id the service never issued; confirming nothing cannot succeed",
  ),
);
export const rejectsWrongCode = rejection(
  "rejects-wrong-code",
  "A wrong confirmation code is refused (§4.2, §4.4).",
);
export const rejectsConfirmingTwice = rejection(
  "rejects-confirming-twice",
  "Confirming an already confirmed order is refused, as the profile's lifecycle.secondConfirm says.",
  {
    kind: "advisory",
    reason:
      "the API description shows no answer to a second confirmation (a refusal and an idempotent repeat are both plausible)",
    declaredBy: ["lifecycle.secondConfirm"],
  },
);
export const rejectsOtherKindConfirmPath = rejection(
  "rejects-other-kind-confirm-path",
  "An order cannot be confirmed through the other order kind's confirm path, as the profile's lifecycle.otherKindConfirm says.",
  {
    kind: "advisory",
    reason:
      "§4.2 and §4.4 give each order kind a confirm path of its own, but do not say what the other kind's path does with an order",
    declaredBy: ["lifecycle.otherKindConfirm"],
  },
);
export const rejectsDuplicateMerchantOrderId = rejection(
  "rejects-duplicate-merchant-order-id",
  "A merchantOrderID already used within the merchant account is refused (§4.1, §8).",
);
export const rejectsOtherMerchantsOrder = rejection(
  "rejects-other-merchants-order",
  "A merchant cannot confirm another merchant's order.",
  necessary(
    "§5 authenticates each merchant by its own key and §8 scopes orders to one merchant account; the API description does not say so of confirmation, so another merchant's order is read as not the caller's to confirm",
  ),
);

function acceptance(name: string, rule: string, source?: RuleSource) {
  return defineCheck<ExchangeResponse>(
    `behaviour.${name}`,
    "behaviour",
    rule,
    (response) => {
      const limited = rateLimitCause(response);
      if (limited) return notEvaluated(limited);
      const codeError = codeErrorOf(response);
      return response.status === 200
        ? pass(`accepted: HTTP 200`)
        : fail(
            `refused: HTTP ${response.status}${codeError !== undefined ? ` codeError ${show(codeError)}` : ""}`,
          );
    },
    source ? { source } : {},
  );
}

export const acceptsMerchantOrderIdOfOtherMerchant = acceptance(
  "accepts-merchant-order-id-of-other-merchant",
  "A merchantOrderID used by one merchant is accepted under another: it is unique within one merchant account only (§8).",
);
export const acceptsMerchantOrderIdDifferingInCase = acceptance(
  "accepts-merchant-order-id-differing-in-case",
  "A merchantOrderID that differs from one the merchant already used only in letter case is accepted: it is another id, and only the same id must be unique within the merchant account (§4.1, §8).",
);
export const confirmableAfterWrongCode = acceptance(
  "confirmable-after-wrong-code",
  "After a wrong code is refused, the order still accepts the right one.",
  necessary(
    "§7 names a wrong confirmation code as a failure of that call; the API description shows no limit on attempts, so a wrong code is read as refusing the attempt, not the order",
  ),
);

export interface ServerErrorSighting {
  status: number;
  where: string;
}

export const noServerError: Check<ServerErrorSighting[]> = defineCheck<ServerErrorSighting[]>(
  "behaviour.no-server-error",
  "behaviour",
  "No request the suite sends ever gets a 5xx: every refusal is a client error with a reason.",
  (sightings) => {
    const errors = sightings.filter((s) => s.status >= 500);
    if (errors.length === 0) return pass(`no 5xx in ${sightings.length} responses`);
    return fail(
      `${errors.length} of ${sightings.length} responses were 5xx: ${errors
        .slice(0, 5)
        .map((e) => `HTTP ${e.status} for ${e.where}`)
        .join(", ")}${errors.length > 5 ? ", ..." : ""}`,
    );
  },
  {
    source: necessary(
      "a 5xx is the service's own failure, not an answer: every request the suite sends, valid or not, deserves a success or a refusal with a reason (§7)",
    ),
    overRun: ({ exchanges, profile }) => {
      // One cause, one verdict: the answers to probes of a check the profile waives are reported apart.
      const waivedBy = (e: (typeof exchanges)[number]) =>
        e.probeOf !== undefined && profile.informationalChecks[e.probeOf] !== undefined
          ? e.probeOf
          : undefined;
      const judge = (of: typeof exchanges) =>
        noServerError.run(of.map((e) => ({ status: e.response.status, where: exchangeWhere(e) })));
      const waived = exchanges.filter((e) => waivedBy(e) !== undefined);
      const records: RunJudgement[] = [
        { outcome: judge(exchanges.filter((e) => waivedBy(e) === undefined)) },
      ];
      if (waived.length > 0)
        records.push({
          outcome: judge(waived),
          endpoint: "(probes of waived checks)",
          notRequired: `the profile waives ${[...new Set(waived.map(waivedBy))].join(", ")}, and so what its probes' answers show`,
        });
      return records;
    },
  },
);
