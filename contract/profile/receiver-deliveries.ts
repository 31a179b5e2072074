/**
 * The callbacks the receiver battery plays towards a merchant's webhook receiver, built from the
 * profile alone: the body at the profile's paths (callbacks.*Path), signed as its scheme says
 * (callback-signature.ts), and the forged and malformed variants of it.
 */
import {
  CALLBACK_STATUSES,
  ORDER_KINDS,
  ORDER_STATUSES,
  type OrderKind,
  signCallbackBody,
} from "../schemas/index.ts";
import type { Profile } from "./profile.ts";

/** An order the receiver's system knows (H2H_RECEIVER_ORDERS), or one the battery makes up. */
export interface ReceiverOrder {
  id: string;
  amount: number;
  kind: OrderKind;
  merchantOrderID?: string | undefined;
}

/** One HTTP POST to the receiver: the raw body exactly as sent, and its headers. */
export interface Delivery {
  case: string;
  headers: Record<string, string>;
  body: string;
}

export const CALLBACK_CONTENT_TYPE = "application/json";

/** Sets a dotted path of a plain object, making the objects on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node[key] = typeof next === "object" && next !== null ? next : {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
}

export interface CallbackFields {
  status: string | undefined;
  /** When the status was entered (default: now). */
  dateUpdated?: Date;
  /**
   * Spaced out over lines, as many JSON encoders write it: a receiver that verifies a body it
   * parsed and serialised again, not the bytes that came, refuses it.
   */
  spaced?: boolean;
}

/** A callback body at the profile's paths; `status: undefined` leaves the status out. */
export function callbackBodyOf(profile: Profile, order: ReceiverOrder, fields: CallbackFields): string {
  const paths = profile.callbacks;
  const body: Record<string, unknown> = {};
  setPath(body, paths.idPath, order.id);
  if (paths.merchantOrderIdPath && order.merchantOrderID !== undefined)
    setPath(body, paths.merchantOrderIdPath, order.merchantOrderID);
  if (fields.status !== undefined) setPath(body, paths.statusPath, fields.status);
  if (paths.amountPath) setPath(body, paths.amountPath, order.amount);
  if (paths.currencyPath) setPath(body, paths.currencyPath, profile.methods[order.kind].currency);
  if (paths.dateUpdatedPath)
    setPath(body, paths.dateUpdatedPath, (fields.dateUpdated ?? new Date()).toISOString());
  // The reference provider's body names the order kind; a profile's own paths win.
  if (!("orderType" in body)) body.orderType = order.kind;
  return fields.spaced ? JSON.stringify(body, null, 2) : JSON.stringify(body);
}

/** The headers of a delivery of `body`, signed under `secret` as the profile's scheme says. */
export function signedHeaders(
  profile: Profile,
  body: string,
  secret: string | null,
  contentType = CALLBACK_CONTENT_TYPE,
): Record<string, string> {
  const scheme = profile.callbacks.signature;
  const headers: Record<string, string> = { "content-type": contentType };
  if (scheme.scheme === "hmac-sha256" && secret !== null)
    headers[scheme.header.toLowerCase()] = signCallbackBody(body, secret, scheme);
  return headers;
}

export function validDelivery(
  profile: Profile,
  secret: string | null,
  order: ReceiverOrder,
  status: string,
  label = `${status}, ${order.kind}`,
  spaced = false,
): Delivery {
  const body = callbackBodyOf(profile, order, { status, spaced });
  return { case: label, headers: signedHeaders(profile, body, secret), body };
}

/** The 4 callback statuses for both order kinds (§6); the second kind's bodies spaced out. */
export function validDeliveries(
  profile: Profile,
  secret: string | null,
  /** An order per kind and status (the i-th status): a status each, none after another one. */
  orderOf: (kind: OrderKind, i: number) => ReceiverOrder,
): Delivery[] {
  return ORDER_KINDS.flatMap((kind, k) =>
    CALLBACK_STATUSES.map((status, i) =>
      validDelivery(
        profile,
        secret,
        orderOf(kind, i),
        status,
        `${status}, ${kind}${k > 0 ? " (spaced JSON)" : ""}`,
        k > 0,
      ),
    ),
  );
}

/** One digit of the amount changed in the raw text (else one character of the id). */
export function tamperedBody(body: string, order: ReceiverOrder, profile: Profile): string {
  const amountText = JSON.stringify(order.amount);
  if (profile.callbacks.amountPath) {
    const at = body.indexOf(`:${amountText}`);
    if (at !== -1) {
      const digit = at + 1;
      const changed = body[digit] === "9" ? "1" : String(Number(body[digit]) + 1);
      return body.slice(0, digit) + changed + body.slice(digit + 1);
    }
  }
  const at = body.indexOf(JSON.stringify(order.id)) + 1;
  return body.slice(0, at) + (body[at] === "x" ? "y" : "x") + body.slice(at + 1);
}

/** A string's letters in the other case ("sha256=" → "SHA256="). */
const otherCase = (text: string) =>
  [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");

export interface Forgeries {
  /** The signature does not hold: must never be acknowledged. */
  signature: Delivery[];
  /** The digest is right but its prefix is not the scheme's: only where the scheme fixes one. */
  prefix: Delivery[];
  /** A valid signature over a callback older than the replay window: only where the profile declares one. */
  replay: Delivery[];
}

/** The forged deliveries of an order's callback; none when the profile's callbacks are unsigned. */
export function forgedDeliveries(
  profile: Profile,
  secret: string,
  order: ReceiverOrder,
  other: ReceiverOrder,
  now: Date = new Date(),
): Forgeries {
  const scheme = profile.callbacks.signature;
  if (scheme.scheme !== "hmac-sha256") return { signature: [], prefix: [], replay: [] };
  const header = scheme.header.toLowerCase();
  const body = callbackBodyOf(profile, order, { status: "succeeded" });
  const otherBody = callbackBodyOf(profile, other, { status: "succeeded" });
  const contentType = { "content-type": CALLBACK_CONTENT_TYPE };
  const signed = (value: string) => ({ ...contentType, [header]: value });
  const digest = signCallbackBody(body, secret, scheme).slice(scheme.prefix.length);
  const signature: Delivery[] = [
    { case: "no signature", headers: contentType, body },
    {
      case: "a signature with another secret",
      headers: signed(signCallbackBody(body, `${secret}-not-the-secret`, scheme)),
      body,
    },
    {
      case: "a signature over another body",
      headers: signed(signCallbackBody(otherBody, secret, scheme)),
      body,
    },
    {
      case: "the body changed after signing",
      headers: signed(signCallbackBody(body, secret, scheme)),
      body: tamperedBody(body, order, profile),
    },
  ];
  const prefix: Delivery[] = [];
  if (scheme.prefix !== "") {
    prefix.push({ case: "the digest without the prefix", headers: signed(digest), body });
    const wrong = scheme.prefix === "sha1=" ? "sha512=" : "sha1=";
    prefix.push({ case: `the prefix ${JSON.stringify(wrong)}`, headers: signed(wrong + digest), body });
    if (otherCase(scheme.prefix) !== scheme.prefix)
      prefix.push({
        case: `the prefix in another case (${JSON.stringify(otherCase(scheme.prefix))})`,
        headers: signed(otherCase(scheme.prefix) + digest),
        body,
      });
  }
  const replay: Delivery[] = [];
  const window = profile.callbacks.replayWindowSeconds;
  if (window !== undefined && profile.callbacks.dateUpdatedPath) {
    // A minute past the window: no clock of the receiver's is that far off.
    const dateUpdated = new Date(now.getTime() - (window + 60) * 1000);
    const old = callbackBodyOf(profile, order, { status: "succeeded", dateUpdated });
    replay.push({
      case: `a valid callback ${window + 60} s old (window ${window} s)`,
      headers: signed(signCallbackBody(old, secret, scheme)),
      body: old,
    });
  }
  return { signature, prefix, replay };
}

/** A status that is none of the API description's (§3) nor the profile's own. */
export function unknownStatusOf(profile: Profile): string {
  const known = new Set<string>([...ORDER_STATUSES, ...(profile.gaps.extraStatuses ?? [])]);
  let status = "not_a_status";
  while (known.has(status)) status = `${status}_`;
  return status;
}

/** One mebibyte of body: a callback padded to 1 MB. */
export const LARGE_BODY_BYTES = 1024 * 1024;

/** The malformed deliveries: each validly signed, so that only its content is wrong. */
export function malformedDeliveries(
  profile: Profile,
  secret: string | null,
  order: ReceiverOrder,
): Delivery[] {
  const sign = (label: string, body: string, contentType = CALLBACK_CONTENT_TYPE): Delivery => ({
    case: label,
    headers: signedHeaders(profile, body, secret, contentType),
    body,
  });
  const valid = callbackBodyOf(profile, order, { status: "succeeded" });
  const padded = `${valid.slice(0, -1)},"padding":"${"x".repeat(LARGE_BODY_BYTES - valid.length - 13)}"}`;
  return [
    sign("not JSON", `{"id": ${JSON.stringify(order.id)}, status: succeeded`),
    sign("an empty body", ""),
    sign("a 1 MB body", padded),
    sign("Content-Type text/plain", valid, "text/plain"),
    sign("no status", callbackBodyOf(profile, order, { status: undefined })),
    sign(
      `the status "${unknownStatusOf(profile)}"`,
      callbackBodyOf(profile, order, { status: unknownStatusOf(profile) }),
    ),
  ];
}

/** Which malformed cases a receiver may take without breaking a rule the suite can ground. */
export const ADVISORY_MALFORMED_CASES: Readonly<Record<string, string>> = {
  "a 1 MB body":
    "the API description sets no size for a callback: refusing a 1 MB one is advisable, not a rule",
  "Content-Type text/plain":
    "the API description does not name the callbacks' Content-Type: refusing another one is advisable, not a rule",
};
