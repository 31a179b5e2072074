/**
 * A callback whose signature failed, explained from what the sink stored: the profile's scheme,
 * the header and value received, and the value the suite computed over the raw body with the
 * callback secret, named with its length, never shown.
 */
import {
  explainCallbackSignature,
  type SignatureExplanation,
  type SignatureScheme,
} from "../../contract/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";

/** The variable the callback secret comes from, as an explanation names it. */
export const CALLBACK_SECRET_NAME = "H2H_CALLBACK_SECRET";

/** Why a stored callback's signature failed; undefined when it verified or was not checked. */
export function explainStoredSignature(
  callback: Pick<StoredCallback, "bodyBase64" | "headers" | "signature">,
  scheme: SignatureScheme,
  secret: string | null | undefined,
): SignatureExplanation | undefined {
  if (scheme.scheme === "none" || !secret) return undefined;
  if (callback.signature === "valid" || callback.signature === "not-checked") return undefined;
  return explainCallbackSignature(
    Buffer.from(callback.bodyBase64, "base64"),
    callback.headers[scheme.header.toLowerCase()],
    secret,
    CALLBACK_SECRET_NAME,
    scheme,
  );
}
