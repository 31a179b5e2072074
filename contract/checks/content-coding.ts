/**
 * A compressed answer (Content-Encoding) as observed traffic shows it: the coding is one the request
 * accepted, and it decodes. The bytes pass to the merchant unchanged; the other checks judge the
 * decoded body.
 */
import { defineCheck, fail, notEvaluated, pass } from "./check.ts";

export interface ContentCodingInput {
  /** The codings the answer's Content-Encoding names, in the order applied (identity dropped). */
  codings: string[];
  /** The request's Accept-Encoding, as sent; undefined when it sent none. */
  acceptEncoding: string | undefined;
  /** The codings Accept-Encoding does not accept (RFC 9110, section 12.5.3). */
  refused: string[];
  /** Whether the body decoded; when not, why. */
  decoded: boolean;
  problem?: string | undefined;
}

export const envelopeContentCodingAccepted = defineCheck<ContentCodingInput>(
  "envelope.content-coding-accepted",
  "envelope",
  "An answer's Content-Encoding is one the request's Accept-Encoding accepts (any, when it sent none), and its body decodes as named; the checks of the answer judge the decoded body.",
  ({ codings, acceptEncoding, refused, decoded, problem }) => {
    const named = codings.join(", ");
    if (refused.length > 0)
      return fail(
        `Content-Encoding ${named}, which the request's Accept-Encoding ${JSON.stringify(acceptEncoding)} does not accept (${refused.join(", ")})`,
        [
          {
            path: "header Content-Encoding",
            expected: `a coding of Accept-Encoding ${JSON.stringify(acceptEncoding)}, or none`,
            actual: named,
          },
        ],
      );
    if (!decoded)
      return notEvaluated({
        check: "envelope.content-coding-accepted",
        signature: `content-coding ${named}`,
        reason: `the answer's body could not be decoded, so none of its checks judged it: ${problem ?? "unknown"}`,
      });
    return pass(
      `Content-Encoding ${named}${acceptEncoding === undefined ? " (the request sent no Accept-Encoding: any coding)" : `, accepted by ${JSON.stringify(acceptEncoding)}`}; decoded for judging${problem ? ` (${problem})` : ""}`,
    );
  },
  {
    source: {
      kind: "necessary",
      reason:
        "§4 answers in JSON; HTTP lets a server compress it only with a coding the request accepts (RFC 9110, section 12.5.3: a request without Accept-Encoding accepts any), and a body that does not decode cannot be judged",
    },
  },
);
