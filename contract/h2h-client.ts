/**
 * The HTTP client the suite talks to a target with (undici). Every call is recorded as an
 * {@link Exchange}, the evidence reports and HAR files are made of. Every call has a timeout,
 * and a transport failure names the URL and the cause.
 */
import { Agent, request } from "undici";
import { endpointPath, OPERATIONS_BY_KIND, type OperationName, ORDER_KIND, type OrderKind } from "./names.ts";

export interface ExchangeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body exactly as sent. */
  body: string;
}

export interface ExchangeResponse {
  status: number;
  headers: Record<string, string>;
  /** The body exactly as received (decoded as UTF-8). */
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface Exchange {
  /** Set by a recorder (`onExchange`), so evidence can point at the recorded copy. */
  id?: string;
  /** The endpoint called, when it is one of the four. */
  operation?: OperationName;
  startedAt: string;
  durationMs: number;
  request: ExchangeRequest;
  response: ExchangeResponse;
}

/** No answer: the target could not be reached, or did not answer in time. */
export class TransportError extends Error {
  readonly url: string;
  readonly causeCode: string;
  constructor(url: string, causeCode: string, detail: string) {
    super(`${url}: ${causeCode} (${detail})`);
    this.name = "TransportError";
    this.url = url;
    this.causeCode = causeCode;
  }
}

export interface H2hClientOptions {
  baseUrl: string;
  apiKey: string | undefined;
  /** Per-request timeout (connect, headers and body alike). */
  timeoutMs: number;
  /** Called with every completed exchange, e.g. to record it for the report. */
  onExchange?: (exchange: Exchange) => void;
}

export interface SendOptions {
  operation?: OperationName;
  /** Overrides the client's API key for this call; `null` sends no Authorization header. */
  apiKey?: string | null;
  /** Sends this text as the body instead of JSON-serialising `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The stable, documented code of a failed undici/Node call, e.g. ECONNREFUSED or UND_ERR_HEADERS_TIMEOUT. */
function causeOf(error: unknown): { code: string; detail: string } {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "UND_ERR") return { code, detail: current.message };
    if (current.name === "TimeoutError") return { code: "TIMEOUT", detail: current.message };
    current = (current as { cause?: unknown }).cause;
  }
  if (error instanceof AggregateError && error.errors[0]) return causeOf(error.errors[0]);
  return { code: "REQUEST_FAILED", detail: error instanceof Error ? error.message : String(error) };
}

export class H2hClient {
  readonly baseUrl: string;
  private readonly agent: Agent;

  constructor(private readonly options: H2hClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.baseUrl);
    } catch {
      throw new Error(`base URL "${options.baseUrl}" is not a valid URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new Error(`base URL "${options.baseUrl}" must be http:// or https://`);
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.agent = new Agent({ connect: { timeout: options.timeoutMs }, keepAliveTimeout: 4_000 });
  }

  /** POSTs to a path under the base URL and records the exchange. */
  async post(path: string, body: unknown, send: SendOptions = {}): Promise<Exchange> {
    const url = `${this.baseUrl}${path}`;
    const apiKey = send.apiKey === undefined ? this.options.apiKey : send.apiKey;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (apiKey !== null && apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
    Object.assign(headers, send.headers);
    const text = send.rawBody ?? JSON.stringify(body);
    const startedAt = new Date();
    const started = performance.now();
    try {
      const response = await request(url, {
        method: "POST",
        dispatcher: this.agent,
        headers,
        body: text,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const responseText = await response.body.text();
      const exchange: Exchange = {
        ...(send.operation ? { operation: send.operation } : {}),
        startedAt: startedAt.toISOString(),
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        request: { method: "POST", url, headers, body: text },
        response: {
          status: response.statusCode,
          headers: flattenHeaders(response.headers),
          body: responseText,
          json: parseJson(responseText),
        },
      };
      this.options.onExchange?.(exchange);
      return exchange;
    } catch (error) {
      if (error instanceof Error) {
        const { code, detail } = causeOf(error);
        throw new TransportError(url, code, detail);
      }
      throw error;
    }
  }

  /** Calls one of the four endpoints. */
  call(
    operation: OperationName,
    body: unknown,
    send: SendOptions & { orderId?: string } = {},
  ): Promise<Exchange> {
    return this.post(endpointPath(operation, send.orderId), body, { ...send, operation });
  }

  /** Creates an order of a kind (§4.1, §4.3). */
  createOrder(kind: OrderKind, body: unknown, send?: SendOptions): Promise<Exchange> {
    return this.call(OPERATIONS_BY_KIND[kind].create, body, send);
  }

  /** Confirms an order of a kind with a code (§4.2, §4.4). */
  confirmOrder(kind: OrderKind, orderId: string, code: string, send?: SendOptions): Promise<Exchange> {
    return this.call(OPERATIONS_BY_KIND[kind].confirm, { code }, { ...send, orderId });
  }

  createMobileCommerceOrder(body: unknown, send?: SendOptions): Promise<Exchange> {
    return this.createOrder(ORDER_KIND.mobile_commerce, body, send);
  }

  confirmMobileCommerceOrder(orderId: string, code: string, send?: SendOptions): Promise<Exchange> {
    return this.confirmOrder(ORDER_KIND.mobile_commerce, orderId, code, send);
  }

  createQuasiEcomOrder(body: unknown, send?: SendOptions): Promise<Exchange> {
    return this.createOrder(ORDER_KIND.quasi_ecom, body, send);
  }

  confirmQuasiEcomOrder(orderId: string, code: string, send?: SendOptions): Promise<Exchange> {
    return this.confirmOrder(ORDER_KIND.quasi_ecom, orderId, code, send);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
