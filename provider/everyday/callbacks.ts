/** Callbacks (§6): signed POSTs to the order's webHook, retried on failure. */
import { createHmac, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

export const SIGNATURE_HEADER = "X-Everyday-Signature";
const SIGNATURE_PREFIX = "v1=";

/** The callback body: what changed, under payload. */
export interface CallbackBody {
  type: "order.status";
  payload: {
    orderId: string;
    merchantOrderId: string | null;
    merchantId: string;
    orderType: string;
    state: string;
    amount: number;
    currency: string;
    updatedAt: string;
  };
}

/** The X-Everyday-Signature value of a raw body: "v1=" and the hex HMAC-SHA256 with the secret. */
export function signCallback(rawBody: string, secret: string): string {
  return SIGNATURE_PREFIX + createHmac("sha256", secret).update(rawBody).digest("hex");
}

/** localhost, 127.0.0.0/8 and ::1. */
export function isLoopbackUrl(url: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return false;
  }
  return (
    hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

export interface DeliveryOptions {
  secret: string;
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  hosts: "loopback" | "any";
  signal: AbortSignal;
  log: (line: string) => void;
}

/**
 * Delivers one callback: the same body and signature on every attempt; any 2xx acknowledges it.
 * A non-2xx answer, a network error or no answer within timeoutMs is retried after the next delay,
 * counted from the end of the failed attempt. Resolves when acknowledged or given up; never rejects.
 */
export async function deliverCallback(
  url: string,
  body: CallbackBody,
  options: DeliveryOptions,
): Promise<boolean> {
  const label = `${body.payload.orderId} ${body.payload.state}`;
  if (options.hosts === "loopback" && !isLoopbackUrl(url)) {
    options.log(`callback ${label}: not sent, ${url} is not a loopback host`);
    return false;
  }
  const rawBody = JSON.stringify(body);
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": "everyday-sandbox-callbacks/1.0",
    [SIGNATURE_HEADER]: signCallback(rawBody, options.secret),
    "X-Everyday-Delivery": randomUUID(),
  };
  const attempts = options.retryDelaysMs.length + 1;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (options.signal.aborted) return false;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...headers, "X-Everyday-Attempt": String(attempt) },
        body: rawBody,
        redirect: "manual",
        signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
      });
      await response.body?.cancel();
      if (response.ok) {
        options.log(`callback ${label}: acknowledged ${response.status} on attempt ${attempt}`);
        return true;
      }
      options.log(`callback ${label}: attempt ${attempt} answered ${response.status}`);
    } catch (error) {
      options.log(
        `callback ${label}: attempt ${attempt} failed: ${error instanceof Error ? error.message : error}`,
      );
    }
    const delay = options.retryDelaysMs[attempt - 1];
    if (delay === undefined) break;
    try {
      await sleep(delay, undefined, { signal: options.signal, ref: false });
    } catch {
      return false;
    }
  }
  options.log(`callback ${label}: given up after ${attempts} attempts`);
  return false;
}
