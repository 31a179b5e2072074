/** The sandbox's refusals: one class for them, and the error middleware that answers them. */
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import { sendError } from "./envelope.ts";

/** A refusal with its HTTP status and codeError; the error middleware answers it. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly httpStatus: number,
    readonly codeError: string,
    message: string,
  ) {
    super(message);
  }
}

/** The codes of every refusal, named once. */
export const ERROR_CODES = {
  unauthorized: "auth.invalid_key",
  validation: "request.invalid",
  malformedJson: "request.malformed_json",
  unsupportedMediaType: "request.unsupported_media_type",
  tooLarge: "request.too_large",
  routeNotFound: "route.not_found",
  orderNotFound: "order.not_found",
  duplicateMerchantOrderId: "order.duplicate_merchant_order_id",
  notConfirmable: "order.not_confirmable",
  wrongCode: "order.wrong_code",
  internal: "server.error",
} as const;

/** Any path or method the API does not have: 404 in the envelope (Express's own 404 is an HTML page). */
export const notFound: RequestHandler = (req: Request) => {
  throw new ApiError(404, ERROR_CODES.routeNotFound, `no route for ${req.method} ${req.path}`);
};

/** The shape of the errors body-parser (behind express.json()) raises. */
interface BodyParserError {
  type?: unknown;
  status?: unknown;
  expose?: unknown;
}

function bodyParserType(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const { type } = err as BodyParserError;
  return typeof type === "string" ? type : undefined;
}

/**
 * The last middleware: every error becomes the envelope with result.status "error". Errors of
 * express.json() get their own codes; anything unexpected is logged and answered 500.
 */
export function errorHandler(log: (line: string) => void): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    if (err instanceof ApiError) {
      sendError(res, err.httpStatus, err.codeError, err.message);
      return;
    }
    switch (bodyParserType(err)) {
      case "entity.parse.failed":
        sendError(res, 400, ERROR_CODES.malformedJson, "request body is not valid JSON");
        return;
      case "entity.too.large":
        sendError(res, 413, ERROR_CODES.tooLarge, "request body is larger than 100 KB");
        return;
      case "encoding.unsupported":
      case "charset.unsupported":
        sendError(res, 415, ERROR_CODES.unsupportedMediaType, "request body must be UTF-8 JSON");
        return;
      case "request.aborted":
      case "request.size.invalid":
        sendError(res, 400, ERROR_CODES.validation, "request body could not be read");
        return;
    }
    log(
      `unexpected error on ${req.method} ${req.originalUrl}: ${err instanceof Error ? err.stack : String(err)}`,
    );
    sendError(res, 500, ERROR_CODES.internal, "internal error");
  };
}
