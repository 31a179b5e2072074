/** The orders, in memory: creation, confirmation, expiry and the statuses that send callbacks. */
import { randomBytes } from "node:crypto";
import type { CallbackBody } from "./callbacks.ts";
import { CODES, COMMISSION_RATE, type Merchant, type Method, ORDER_TYPES, type OrderKind } from "./config.ts";
import { ApiError, ERROR_CODES } from "./errors.ts";

export type Status =
  | "payment_pending"
  | "created"
  | "waiting_for_terminal"
  | "succeeded"
  | "expired"
  | "failed_by_terminal"
  | "succeeded_by_appeal";

/** The statuses whose entry sends a callback (§6). */
const CALLBACK_STATUSES = new Set<Status>([
  "succeeded",
  "expired",
  "failed_by_terminal",
  "succeeded_by_appeal",
]);

export interface Order {
  id: string;
  kind: OrderKind;
  merchantID: string;
  merchantOrderID: string | undefined;
  method: Method;
  amount: number;
  amountComission: number;
  usdtAmount: number;
  usdtAmountComission: number;
  status: Status;
  /** Whether an accepted code was submitted. */
  confirmed: boolean;
  dateAdded: Date;
  dateUpdated: Date;
  expiresAt: number;
  webHook: string | undefined;
  trafficType: string;
  clientID: string | undefined;
}

export interface NewOrder {
  kind: OrderKind;
  merchant: Merchant;
  method: Method;
  amount: number;
  merchantOrderID: string | undefined;
  webHook: string | undefined;
  trafficType: string;
  clientID: string | undefined;
}

/** Half up to `decimals` places (with the usual EPSILON nudge for values like 1.005). */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round((value + Number.EPSILON) * factor) / factor;
}

/** Dates are UTC with milliseconds, written with an explicit +00:00 offset. */
export function formatDate(date: Date): string {
  return date.toISOString().replace("Z", "+00:00");
}

/** "ord_" and 20 lowercase hex digits. */
function newOrderId(): string {
  return `ord_${randomBytes(10).toString("hex")}`;
}

export interface OrderBookSettings {
  lifetimeMs: number;
  processingDelayMs: number;
  appealDelayMs: number;
  signal: AbortSignal;
  /** Called when an order enters a callback status. */
  onCallbackStatus: (order: Order, body: CallbackBody) => void;
}

export class OrderBook {
  private readonly orders = new Map<string, Order>();
  /** merchantID + "\n" + merchantOrderID → order id. */
  private readonly byMerchantOrderId = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly settings: OrderBookSettings) {
    settings.signal.addEventListener("abort", () => {
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
    });
  }

  create(input: NewOrder): Order {
    const merchantKey = `${input.merchant.merchantID}\n${input.merchantOrderID}`;
    if (input.merchantOrderID !== undefined && this.byMerchantOrderId.has(merchantKey)) {
      throw new ApiError(
        409,
        ERROR_CODES.duplicateMerchantOrderId,
        `merchantOrderID ${JSON.stringify(input.merchantOrderID)} is already used by another order`,
      );
    }
    const now = new Date();
    const amountComission = roundTo(input.amount * COMMISSION_RATE, 2);
    const order: Order = {
      id: newOrderId(),
      kind: input.kind,
      merchantID: input.merchant.merchantID,
      merchantOrderID: input.merchantOrderID,
      method: input.method,
      amount: input.amount,
      amountComission,
      usdtAmount: roundTo(input.amount / input.method.usdtRate, 4),
      usdtAmountComission: roundTo(amountComission / input.method.usdtRate, 4),
      status: input.kind === "mobile_commerce" ? "payment_pending" : "created",
      confirmed: false,
      dateAdded: now,
      dateUpdated: now,
      expiresAt: now.getTime() + this.settings.lifetimeMs,
      webHook: input.webHook,
      trafficType: input.trafficType,
      clientID: input.clientID,
    };
    this.orders.set(order.id, order);
    if (input.merchantOrderID !== undefined) this.byMerchantOrderId.set(merchantKey, order.id);
    this.later(this.settings.lifetimeMs, () => this.expire(order));
    return order;
  }

  /** The merchant's order, or 404: another merchant's order is not found either. */
  find(merchant: Merchant, id: string): Order {
    const order = this.orders.get(id);
    if (order === undefined || order.merchantID !== merchant.merchantID) {
      throw new ApiError(404, ERROR_CODES.orderNotFound, `order ${id} not found`);
    }
    return order;
  }

  /**
   * Submits a code through the path of `kind`. Returns the seconds that were left of the order's
   * lifetime. Refuses an order of the other kind, or one not awaiting a code, with 409; a wrong
   * code with 422, the order still awaiting the right one.
   */
  confirm(order: Order, kind: OrderKind, code: string): number {
    if (order.kind !== kind) {
      throw new ApiError(409, ERROR_CODES.notConfirmable, `order ${order.id} is not a ${kind} order`);
    }
    const msLeft = order.expiresAt - Date.now();
    if (msLeft <= 0 && !order.confirmed) this.expire(order);
    if (order.confirmed || order.status === "expired") {
      throw new ApiError(
        409,
        ERROR_CODES.notConfirmable,
        `order ${order.id} is ${order.status}: it awaits no code`,
      );
    }
    const outcome = outcomeOf(code);
    if (outcome === undefined) {
      throw new ApiError(422, ERROR_CODES.wrongCode, "wrong confirmation code");
    }
    order.confirmed = true;
    if (order.kind === "mobile_commerce") this.enter(order, "waiting_for_terminal");
    this.later(this.settings.processingDelayMs, () => {
      this.enter(order, outcome[0]);
      const appeal = outcome[1];
      if (appeal !== undefined) this.later(this.settings.appealDelayMs, () => this.enter(order, appeal));
    });
    return Math.ceil(msLeft / 1000);
  }

  private expire(order: Order): void {
    if (!order.confirmed && order.status !== "expired") this.enter(order, "expired");
  }

  private enter(order: Order, status: Status): void {
    order.status = status;
    order.dateUpdated = new Date();
    if (CALLBACK_STATUSES.has(status)) this.settings.onCallbackStatus(order, callbackBody(order));
  }

  private later(ms: number, task: () => void): void {
    if (this.settings.signal.aborted) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      task();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}

function outcomeOf(code: string): readonly [Status, Status?] | undefined {
  switch (code) {
    case CODES.succeeded:
      return ["succeeded"];
    case CODES.failedByTerminal:
      return ["failed_by_terminal"];
    case CODES.appeal:
      return ["failed_by_terminal", "succeeded_by_appeal"];
    default:
      return undefined;
  }
}

function callbackBody(order: Order): CallbackBody {
  return {
    type: "order.status",
    payload: {
      orderId: order.id,
      merchantOrderId: order.merchantOrderID ?? null,
      merchantId: order.merchantID,
      orderType: ORDER_TYPES[order.kind],
      state: order.status,
      amount: order.amount,
      currency: order.method.currency,
      updatedAt: formatDate(order.dateUpdated),
    },
  };
}
