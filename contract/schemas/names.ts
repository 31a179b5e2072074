/**
 * The contract's names, in one table: operations and their paths, order kinds, statuses, the
 * envelope markers, the request enums, the webhook sink's callback-URL grammar, and the JSON path
 * reader every layer uses to find a field.
 *
 * Schema-free on purpose (no zod, no Node.js API): the k6 load bundles import it as they are, and
 * the zod schemas in `schemas.ts` are built from it, so a name is written here and nowhere else.
 * Section numbers (§) refer to the API description the README links.
 */

// --- order kinds and operations (§4) -----------------------------------------------------------

/** The two kinds of pay-in order; also the keys of a profile's `methods`. */
export const ORDER_KINDS = ["mobile_commerce", "quasi_ecom"] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

/** Each order kind's name, for code that names one kind (`ORDER_KIND.quasi_ecom`). */
export const ORDER_KIND = Object.fromEntries(ORDER_KINDS.map((kind) => [kind, kind])) as {
  readonly [Kind in OrderKind]: Kind;
};

/** A record with one entry per order kind. */
export function byOrderKind<T>(entry: (kind: OrderKind) => T): Record<OrderKind, T> {
  return Object.fromEntries(ORDER_KINDS.map((kind) => [kind, entry(kind)])) as Record<OrderKind, T>;
}

/** The other order kind (there are two). */
export function otherOrderKind(kind: OrderKind): OrderKind {
  return kind === ORDER_KIND.mobile_commerce ? ORDER_KIND.quasi_ecom : ORDER_KIND.mobile_commerce;
}

/** Whether an operation creates an order or confirms one. */
export type OperationStep = "create" | "confirm";

/**
 * The four operations: their order kind, step, section, path (relative to `{base_url}`, `{id}`
 * where the order id goes) and the status the API description observed each answering with (§3).
 */
export const OPERATIONS = {
  createMobileCommerceOrder: {
    kind: "mobile_commerce",
    step: "create",
    section: "4.1",
    path: "/api/v1/payin/mobile-commerce/h2h",
    observedStatus: "payment_pending",
  },
  confirmMobileCommerceOrder: {
    kind: "mobile_commerce",
    step: "confirm",
    section: "4.2",
    path: "/api/v1/orders/{id}/mobile-commerce-confirm/h2h",
    observedStatus: "waiting_for_terminal",
  },
  createQuasiEcomOrder: {
    kind: "quasi_ecom",
    step: "create",
    section: "4.3",
    path: "/api/v1/payin/quasi-ecom/h2h",
    observedStatus: "created",
  },
  confirmQuasiEcomOrder: {
    kind: "quasi_ecom",
    step: "confirm",
    section: "4.4",
    path: "/api/v1/orders/{id}/ecom-confirm/h2h",
    observedStatus: "created",
  },
} as const satisfies Record<
  string,
  { kind: OrderKind; step: OperationStep; section: string; path: string; observedStatus: OrderStatus }
>;
export type OperationName = keyof typeof OPERATIONS;

/** The operation names in the API description's order (§4.1 to §4.4). */
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

/** Each operation's name, for code that names one operation (`OPERATION.createQuasiEcomOrder`). */
export const OPERATION = Object.fromEntries(OPERATION_NAMES.map((name) => [name, name])) as {
  readonly [Name in OperationName]: Name;
};

/** Path relative to `{base_url}` per operation, with `{id}` for the order id where there is one. */
export const ENDPOINT_PATHS = Object.fromEntries(
  OPERATION_NAMES.map((name) => [name, OPERATIONS[name].path]),
) as { readonly [Name in OperationName]: (typeof OPERATIONS)[Name]["path"] };

/** The concrete path of an endpoint, with the order id percent-encoded into `{id}`. */
export function endpointPath(operation: OperationName, orderId?: string): string {
  const path: string = OPERATIONS[operation].path;
  if (!path.includes("{id}")) return path;
  if (orderId === undefined) throw new Error(`${operation} needs an order id for its path ${path}`);
  return path.replace("{id}", encodeURIComponent(orderId));
}

/** The create and confirm operations of each order kind. */
export const OPERATIONS_BY_KIND = Object.fromEntries(
  ORDER_KINDS.map((kind) => {
    const of = (step: OperationStep) =>
      OPERATION_NAMES.find((name) => OPERATIONS[name].kind === kind && OPERATIONS[name].step === step);
    return [kind, { create: of("create"), confirm: of("confirm") }];
  }),
) as Readonly<Record<OrderKind, { readonly create: OperationName; readonly confirm: OperationName }>>;

// --- statuses (§3, §6) ---------------------------------------------------------------------------

/**
 * §3: the seven statuses the API description names (the complete list is a gap, so a profile may add more),
 * with whether entering one triggers a callback (§6) and whether it is final (no confirmation or
 * expiry after it; only an appeal may still follow `failed_by_terminal`).
 */
export const STATUSES = {
  created: { triggersCallback: false, final: false },
  payment_pending: { triggersCallback: false, final: false },
  waiting_for_terminal: { triggersCallback: false, final: false },
  succeeded: { triggersCallback: true, final: true },
  expired: { triggersCallback: true, final: true },
  failed_by_terminal: { triggersCallback: true, final: true },
  succeeded_by_appeal: { triggersCallback: true, final: true },
} as const satisfies Record<string, { triggersCallback: boolean; final: boolean }>;
export type OrderStatus = keyof typeof STATUSES;

/** Each status's name, for code that names one status (`STATUS.expired`). */
export const STATUS = Object.fromEntries(Object.keys(STATUSES).map((name) => [name, name])) as {
  readonly [Name in OrderStatus]: Name;
};

export const ORDER_STATUSES = Object.keys(STATUSES) as OrderStatus[];

type StatusWhere<Trait extends "triggersCallback" | "final"> = {
  [Name in OrderStatus]: (typeof STATUSES)[Name][Trait] extends true ? Name : never;
}[OrderStatus];

/** §6: the statuses whose entry triggers a callback, for both order kinds. */
export type CallbackStatus = StatusWhere<"triggersCallback">;
export const CALLBACK_STATUSES = ORDER_STATUSES.filter(
  (status) => STATUSES[status].triggersCallback,
) as CallbackStatus[];

/** The statuses an order ends in. */
export type FinalStatus = StatusWhere<"final">;
export const FINAL_STATUSES = ORDER_STATUSES.filter((status) => STATUSES[status].final) as FinalStatus[];

/** The final statuses a confirmation code can lead to (every final status but expiry). */
export type ConfirmedStatus = Exclude<FinalStatus, typeof STATUS.expired>;
export const CONFIRMED_STATUSES = FINAL_STATUSES.filter(
  (status) => status !== STATUS.expired,
) as ConfirmedStatus[];

// --- envelope markers (§2.1, §7) -----------------------------------------------------------------

/**
 * §7: a success says `codeError` "none", `message` null and `status` "success"; a failure says
 * anything else. `failureStatus` is what the reference provider writes on a failure (the contract
 * only requires it to differ from "success").
 */
export const ENVELOPE_MARKERS = {
  successCodeError: "none",
  successStatus: "success",
  failureStatus: "error",
} as const;

/** §2.1 / §7: the `result` of a success, with its request id. */
export function successResult(requestId: string) {
  return {
    codeError: ENVELOPE_MARKERS.successCodeError,
    message: null,
    status: ENVELOPE_MARKERS.successStatus,
    "x-request-id": requestId,
  };
}

// --- request enums (§4.1, §4.3) ------------------------------------------------------------------

/** §4.1 / §4.3 `trafficType`; the API description says the default is `mixed`. */
export const TRAFFIC_TYPES = ["ftd", "td", "mixed"] as const;

/** §4.1 / §4.3 `clientMetadata.*`: the conditional client fields. */
export const CLIENT_METADATA_FIELDS = ["phone", "operator", "name", "email"] as const;
export type ClientMetadataField = (typeof CLIENT_METADATA_FIELDS)[number];

// --- the webhook sink's callback URLs ------------------------------------------------------------

/**
 * A callback URL is `<sink>/callbacks/<token>` followed by variant segments, in any order:
 *   /run/<runId>      tag the callbacks with a run id
 *   /at/<ms>          when the order was made (ms since the epoch), for order-to-callback latency
 *   /expect/<status>  the final status the sender expects, for delivery ratios
 *   /refuse/<n>       answer 503 to the first n deliveries for an order (retry observation)
 *   /stall/<n>        hold the answer to the first n deliveries for an order, then 503
 *   /ack/<2xx>        acknowledge deliveries with this success status instead of 200 (204: no body)
 * and, for a load run's trigger note (not a callback: the sender says when it triggered one):
 *   /order/<id>       the target's order id the note is about
 *   /triggered/<ms>   when the request that triggers the callback was answered (ms since the epoch)
 */
export interface CallbackUrlVariant {
  runId?: string;
  sentAtMs?: number;
  expectedStatus?: string;
  refuse?: number;
  stall?: number;
  /** The 2xx status the sink acknowledges with (default 200). */
  ack?: number;
  /** A trigger note's order id and trigger moment (ms since the epoch). */
  orderId?: string;
  triggeredAtMs?: number;
}

/** A parsed variant: what the sink records with each callback. */
export interface CallbackVariant {
  runId: string | null;
  sentAtMs: number | null;
  expectedStatus: string | null;
  refuse: number;
  stall: number;
  ack: number;
  /** Set on a trigger note only. */
  orderId: string | null;
  triggeredAtMs: number | null;
}

/** The first path segment of every callback URL. */
export const CALLBACKS_SEGMENT = "callbacks";

/** The sink's bare callback URL, from its base URL and token. */
export function sinkCallbackUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${CALLBACKS_SEGMENT}/${token}`;
}

/** A sink callback URL (as {@link sinkCallbackUrl} makes it) with variant segments appended. */
export function callbackUrlWith(callbackUrl: string, variant: CallbackUrlVariant = {}): string {
  return [
    callbackUrl.replace(/\/+$/, ""),
    variant.runId !== undefined ? `/run/${encodeURIComponent(variant.runId)}` : "",
    variant.sentAtMs !== undefined ? `/at/${Math.round(variant.sentAtMs)}` : "",
    variant.expectedStatus !== undefined ? `/expect/${variant.expectedStatus}` : "",
    variant.refuse ? `/refuse/${variant.refuse}` : "",
    variant.stall ? `/stall/${variant.stall}` : "",
    variant.ack !== undefined && variant.ack !== 200 ? `/ack/${variant.ack}` : "",
    variant.orderId !== undefined ? `/order/${encodeURIComponent(variant.orderId)}` : "",
    variant.triggeredAtMs !== undefined ? `/triggered/${Math.round(variant.triggeredAtMs)}` : "",
  ].join("");
}

/** What {@link parseCallbackVariant} answers for a segment whose percent-escape does not decode (`%zz`). */
export const MALFORMED_ESCAPE = "malformed-escape";

/**
 * Parses the variant segments after `/callbacks/<token>`; undefined when they break the grammar,
 * {@link MALFORMED_ESCAPE} when a value's percent-escape does not decode (a hostile or broken
 * sender, not a wrong URL: the sink answers it differently).
 */
export function parseCallbackVariant(
  segments: readonly string[],
): CallbackVariant | typeof MALFORMED_ESCAPE | undefined {
  const variant: CallbackVariant = {
    runId: null,
    sentAtMs: null,
    expectedStatus: null,
    refuse: 0,
    stall: 0,
    ack: 200,
    orderId: null,
    triggeredAtMs: null,
  };
  if (segments.length % 2 !== 0) return undefined;
  for (let i = 0; i < segments.length; i += 2) {
    const key = segments[i];
    let value: string;
    try {
      value = decodeURIComponent(segments[i + 1] as string);
    } catch {
      return MALFORMED_ESCAPE;
    }
    if (key === "run" && /^[\w.-]{1,100}$/.test(value)) variant.runId = value;
    else if (key === "at" && /^\d{1,15}$/.test(value)) variant.sentAtMs = Number(value);
    else if (key === "expect" && /^[a-z_]{1,40}$/.test(value)) variant.expectedStatus = value;
    else if ((key === "refuse" || key === "stall") && /^\d{1,3}$/.test(value)) variant[key] = Number(value);
    else if (key === "ack" && /^2\d\d$/.test(value)) variant.ack = Number(value);
    else if (key === "order" && value.length > 0 && value.length <= 200) variant.orderId = value;
    else if (key === "triggered" && /^\d{1,15}$/.test(value)) variant.triggeredAtMs = Number(value);
    else return undefined;
  }
  return variant;
}

// --- reading JSON --------------------------------------------------------------------------------

/** Reads a dotted path (`a.b.c`) from parsed JSON; undefined where any step is missing. */
export function readPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split(".")) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}
