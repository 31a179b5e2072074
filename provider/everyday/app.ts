/** The sandbox as an Express 5 app: the four §4 endpoints behind a Bearer key. */
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import type { z } from "zod";
import { deliverCallback } from "./callbacks.ts";
import {
  CALLBACK_SECRET,
  DEFAULTS,
  MERCHANTS,
  METHODS,
  type Merchant,
  type Method,
  ORDER_TYPES,
  type OrderKind,
} from "./config.ts";
import { assignRequestId, sendOk } from "./envelope.ts";
import { ApiError, ERROR_CODES, errorHandler, notFound } from "./errors.ts";
import { formatDate, type Order, OrderBook } from "./orders.ts";
import {
  confirmation,
  describeIssues,
  type MobileCommerceCreation,
  mobileCommerceCreation,
  type QuasiEcomCreation,
  quasiEcomCreation,
} from "./schemas.ts";

export interface EverydayOptions {
  /** An order not confirmed within this is expired (default 6000). */
  lifetimeMs?: number;
  /** From an accepted code to the final status (default 300). */
  processingDelayMs?: number;
  /** From failed_by_terminal to succeeded_by_appeal (default 1000). */
  appealDelayMs?: number;
  /** Waits between callback attempts (default 500, 1000, 2000: 4 attempts). */
  callbackRetryDelaysMs?: readonly number[];
  /** An attempt not answered within this counts as failed (default 3000). */
  callbackTimeoutMs?: number;
  /** "loopback" (default): callbacks go to loopback hosts only; "any": anywhere. */
  callbackHosts?: "loopback" | "any";
  /** Aborting it stops every timer and callback of the app. */
  signal?: AbortSignal;
  /** One line per request and per callback attempt (default: none). */
  log?: (line: string) => void;
}

const merchantsByKey = new Map<string, Merchant>(Object.values(MERCHANTS).map((m) => [m.apiKey, m]));

/** `Authorization: Bearer <key>`: the merchant goes to res.locals.merchant, or 401. */
const authenticate: RequestHandler = (req, res, next) => {
  const header = req.get("authorization")?.trim();
  const key = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const merchant = key === undefined ? undefined : merchantsByKey.get(key);
  if (merchant === undefined) {
    res.set("WWW-Authenticate", 'Bearer realm="everyday-sandbox"');
    throw new ApiError(
      401,
      ERROR_CODES.unauthorized,
      header ? "unknown API key" : "missing Authorization: Bearer <API key>",
    );
  }
  res.locals.merchant = merchant;
  next();
};

function merchantOf(res: Response): Merchant {
  return res.locals.merchant as Merchant;
}

/** express.json() leaves req.body undefined when there is no body or it is not declared JSON. */
const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (req.body === undefined) {
    const hasBody = req.get("transfer-encoding") !== undefined || Number(req.get("content-length") ?? 0) > 0;
    if (hasBody) {
      throw new ApiError(415, ERROR_CODES.unsupportedMediaType, "Content-Type must be application/json");
    }
    throw new ApiError(400, ERROR_CODES.validation, "body: a JSON object is required");
  }
  next();
};

function parseBody<T>(schema: z.ZodType<T>, req: Request): T {
  const parsed = schema.safeParse(req.body);
  if (!parsed.success) throw new ApiError(400, ERROR_CODES.validation, describeIssues(parsed.error));
  return parsed.data;
}

/** The method of this kind, the amount within its limits, and its conditional fields. */
function methodFor(kind: OrderKind, body: MobileCommerceCreation | QuasiEcomCreation): Method {
  const method = METHODS.find((m) => m.methodID === body.methodID && m.kind === kind);
  if (method === undefined) {
    throw new ApiError(400, ERROR_CODES.validation, `methodID: ${body.methodID} is not a ${kind} method`);
  }
  if (body.amount < method.minAmount || body.amount > method.maxAmount) {
    throw new ApiError(
      400,
      ERROR_CODES.validation,
      `amount: must be between ${method.minAmount} and ${method.maxAmount} ${method.currency}`,
    );
  }
  if (method.requiresClientID && body.clientID === undefined) {
    throw new ApiError(400, ERROR_CODES.validation, `clientID: required for method ${method.methodID}`);
  }
  const clientMetadata = "clientMetadata" in body ? body.clientMetadata : undefined;
  for (const field of method.requiresClientMetadata) {
    if (clientMetadata?.[field] === undefined) {
      throw new ApiError(
        400,
        ERROR_CODES.validation,
        `clientMetadata.${field}: required for method ${method.methodID}`,
      );
    }
  }
  return method;
}

/** The §2.2 order record. */
function orderRecord(order: Order) {
  const { method } = order;
  const isLink = method.requisiteTypeCode === "payment_link";
  return {
    id: order.id,
    dateAdded: formatDate(order.dateAdded),
    dateUpdated: formatDate(order.dateUpdated),
    orderType: ORDER_TYPES[order.kind],
    status: order.status,
    currency: method.currency,
    merchantID: order.merchantID,
    idTransactionMerchant: order.merchantOrderID ?? null,
    amount: order.amount,
    amountComission: order.amountComission,
    usdtAmount: order.usdtAmount,
    usdtAmountComission: order.usdtAmountComission,
    exchangeRate: method.usdtRate,
    routingAttempts: [],
    paymentDetailsData: {
      methodID: method.methodID,
      requisiteTypeCode: method.requisiteTypeCode ?? "",
      mediatorName: method.mediatorName ?? null,
      bankCode: isLink ? null : "EVDY0000501",
      number: isLink ? null : `evd.${order.id.slice(4, 14)}@everyday`,
      numberAdditional: null,
      link: isLink ? `https://pay.everyday.example/l/${order.id}` : null,
    },
  };
}

/** The Express app. Its timers and callbacks run until options.signal is aborted. */
export function createEverydayApp(options: EverydayOptions = {}): Express {
  const log = options.log ?? (() => {});
  const signal = options.signal ?? new AbortController().signal;
  const delivery = {
    secret: CALLBACK_SECRET,
    retryDelaysMs: options.callbackRetryDelaysMs ?? DEFAULTS.callbackRetryDelaysMs,
    timeoutMs: options.callbackTimeoutMs ?? DEFAULTS.callbackTimeoutMs,
    hosts: options.callbackHosts ?? DEFAULTS.callbackHosts,
    signal,
    log,
  };
  const book = new OrderBook({
    lifetimeMs: options.lifetimeMs ?? DEFAULTS.lifetimeMs,
    processingDelayMs: options.processingDelayMs ?? DEFAULTS.processingDelayMs,
    appealDelayMs: options.appealDelayMs ?? DEFAULTS.appealDelayMs,
    signal,
    onCallbackStatus: (order, body) => {
      if (order.webHook !== undefined) void deliverCallback(order.webHook, body, delivery);
    },
  });

  const app = express();
  app.use(assignRequestId);
  if (options.log) {
    app.use((req, res, next) => {
      const started = Date.now();
      res.on("finish", () =>
        log(`${req.method} ${req.originalUrl} ${res.statusCode} ${Date.now() - started}ms`),
      );
      next();
    });
  }
  app.use(express.json());
  app.use("/api/v1", authenticate);

  function create(kind: OrderKind, body: MobileCommerceCreation | QuasiEcomCreation, res: Response): Order {
    return book.create({
      kind,
      merchant: merchantOf(res),
      method: methodFor(kind, body),
      amount: body.amount,
      merchantOrderID: body.merchantOrderID,
      webHook: body.metadata?.webHook,
      trafficType: body.trafficType,
      clientID: body.clientID,
    });
  }

  app.post("/api/v1/payin/mobile-commerce/h2h", requireJsonBody, (req, res) => {
    const order = create("mobile_commerce", parseBody(mobileCommerceCreation, req), res);
    sendOk(res, orderRecord(order));
  });

  app.post("/api/v1/payin/quasi-ecom/h2h", requireJsonBody, (req, res) => {
    const order = create("quasi_ecom", parseBody(quasiEcomCreation, req), res);
    sendOk(res, {
      id: order.id,
      status: order.status,
      ...(order.merchantOrderID === undefined ? {} : { merchantOrderID: order.merchantOrderID }),
    });
  });

  function confirmRoute(kind: OrderKind): RequestHandler<{ id: string }> {
    return (req, res) => {
      const { code } = parseBody(confirmation, req);
      const order = book.find(merchantOf(res), req.params.id);
      const timer = book.confirm(order, kind, code);
      sendOk(res, {
        id: order.id,
        status: order.status,
        currency: order.method.currency,
        amount: order.amount,
        timer,
        ...(order.merchantOrderID === undefined ? {} : { merchantOrderID: order.merchantOrderID }),
      });
    };
  }
  app.post(
    "/api/v1/orders/:id/mobile-commerce-confirm/h2h",
    requireJsonBody,
    confirmRoute("mobile_commerce"),
  );
  app.post("/api/v1/orders/:id/ecom-confirm/h2h", requireJsonBody, confirmRoute("quasi_ecom"));

  app.use(notFound);
  app.use(errorHandler(log));
  return app;
}
