/** The §2.1 envelope, around every answer. */
import { randomUUID } from "node:crypto";
import type { RequestHandler, Response } from "express";

/** Gives each request its id (res.locals.requestId) and echoes it in the X-Request-Id header. */
export const assignRequestId: RequestHandler = (_req, res, next) => {
  const requestId = randomUUID();
  res.locals.requestId = requestId;
  res.set("X-Request-Id", requestId);
  next();
};

function requestIdOf(res: Response): string {
  return String(res.locals.requestId);
}

export function sendOk(res: Response, data: object): void {
  res.status(200).json({
    data,
    result: { codeError: "none", message: null, status: "success", "x-request-id": requestIdOf(res) },
  });
}

export function sendError(res: Response, httpStatus: number, codeError: string, message: string): void {
  res.status(httpStatus).json({
    data: null,
    result: { codeError, message, status: "error", "x-request-id": requestIdOf(res) },
  });
}
