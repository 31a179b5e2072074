/** Every exchange of the run as a HAR 1.2 file, to replay a failure or hand it to the provider. */
import type { RecordedExchange } from "../../../contract/index.ts";
import { reconnectedNote } from "../../engine/reconnects.ts";
import type { RunReport } from "../../engine/run-model.ts";
import { type CallbackEvidence, relativeToTrigger } from "../callback-evidence.ts";
import { REPORT_FILES } from "../report-files.ts";
import { probeSettingsLine } from "../reproduction.ts";
import { JsonArrayStream, jsonChunks } from "./json-chunks.ts";
import type { ReportWriter } from "./writer.ts";

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  422: "Unprocessable Entity",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

const headerList = (headers: Record<string, string>) =>
  Object.entries(headers).map(([name, value]) => ({ name, value }));

function entry(exchange: RecordedExchange) {
  const requestType = exchange.request.headers["content-type"] ?? "application/json";
  const responseType = exchange.response.headers["content-type"] ?? "";
  return {
    startedDateTime: exchange.startedAt,
    time: exchange.durationMs,
    request: {
      method: exchange.request.method,
      url: exchange.request.url,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: headerList(exchange.request.headers),
      queryString: [],
      postData: { mimeType: requestType, text: exchange.request.body },
      headersSize: -1,
      bodySize: Buffer.byteLength(exchange.request.body),
    },
    response: {
      status: exchange.response.status,
      statusText: STATUS_TEXT[exchange.response.status] ?? "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: headerList(exchange.response.headers),
      content: {
        size: Buffer.byteLength(exchange.response.body),
        mimeType: responseType,
        text: exchange.response.body,
      },
      redirectURL: "",
      headersSize: -1,
      bodySize: Buffer.byteLength(exchange.response.body),
    },
    cache: {},
    timings: { send: 0, wait: exchange.durationMs, receive: 0 },
    comment: `exchange ${exchange.id}${exchange.operation ? ` (${exchange.operation})` : ""}${
      exchange.rateLimited
        ? `; sent again after ${exchange.rateLimited.length} 429 answer(s), waited ${exchange.rateLimited
            .map((a) => `${a.waitedMs} ms (Retry-After ${a.retryAfter ?? "–"})`)
            .join(", ")}`
        : ""
    }${exchange.reconnected ? `; ${reconnectedNote(exchange)}` : ""}`,
    // The 429s waited out before this answer (a custom field: HAR allows those with "_").
    ...(exchange.rateLimited ? { _rateLimited: exchange.rateLimited } : {}),
    ...(exchange.reconnected ? { _reconnected: exchange.reconnected } : {}),
  };
}

/**
 * A callback as an entry of its own: the provider's request to the sink as received, and the
 * sink's answer (its status; the sink's answer body is not kept). Its comment says which
 * scenario it belongs to, when it arrived after the trigger, and the signature verdict.
 */
function callbackEntry(callback: CallbackEvidence) {
  const mimeType = callback.headers["content-type"] ?? "application/octet-stream";
  const query = (() => {
    try {
      return [...new URL(callback.url).searchParams].map(([name, value]) => ({ name, value }));
    } catch {
      return [];
    }
  })();
  return {
    startedDateTime: callback.receivedAt,
    time: 0,
    request: {
      method: callback.method,
      url: callback.url,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: headerList(callback.headers),
      queryString: query,
      postData: {
        mimeType,
        text: callback.body,
        ...(callback.bodyEncoding === "base64" ? { comment: "not UTF-8: the raw bytes, base64" } : {}),
      },
      headersSize: -1,
      bodySize: callback.bodyBytes,
    },
    response: {
      status: callback.answeredWith,
      statusText: STATUS_TEXT[callback.answeredWith] ?? "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [],
      content: { size: -1, mimeType: "application/json", comment: "the sink's answer body is not recorded" },
      redirectURL: "",
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    comment: [
      `callback ${callback.id} received by the webhook sink (delivery #${callback.delivery}`,
      callback.status ? ` of status ${callback.status}` : "",
      callback.orderId ? ` for order ${callback.orderId}` : "",
      ")",
      callback.trigger
        ? `; ${callback.trigger.scenario}, ${relativeToTrigger(callback.trigger.arrivedAfterMs)}`
        : "",
      `; signature ${callback.signature}`,
    ].join(""),
  };
}

/**
 * Exchanges the suite made, and callbacks the provider made, in the order they happened: sorted
 * by time (stable, exchanges first on a tie), each entry made only as it is written.
 */
function entriesInOrder(report: RunReport): JsonArrayStream {
  const order = [
    ...report.exchanges.map((exchange, index) => ({ at: exchange.startedAt, index, callback: false })),
    ...report.callbacks.map((callback, index) => ({ at: callback.receivedAt, index, callback: true })),
  ].sort((a, b) => a.at.localeCompare(b.at));
  return new JsonArrayStream(function* () {
    for (const { index, callback } of order)
      yield callback
        ? callbackEntry(report.callbacks[index] as CallbackEvidence)
        : entry(report.exchanges[index] as RecordedExchange);
  });
}

export const harWriter: ReportWriter = {
  kind: "har",
  fileName: REPORT_FILES.har,
  format: "json",
  chunks: ({ report }) =>
    jsonChunks(
      {
        log: {
          version: "1.2",
          creator: { name: report.tool.name, version: report.tool.version },
          comment: `h2h-certify run ${report.runId} against ${report.target.baseUrl}${report.probes ? `; ${probeSettingsLine(report)}` : ""}; secrets masked`,
          entries: entriesInOrder(report),
        },
      },
      // The document, its log, the entries: one entry at a time.
      3,
    ),
};
