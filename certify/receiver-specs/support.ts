/**
 * What a receiver spec file knows: the run context the receiver battery provides, the masker,
 * the exchange recorder, and one way to deliver a callback and time the receiver's answer.
 */
import { basename } from "node:path";
import {
  type Delivery,
  type Exchange,
  ExchangeRecorder,
  type OrderKind,
  type Profile,
  type ReceiverAnswer,
  type ReceiverOrder,
} from "../../contract/index.ts";
import type { Masker } from "../../contract/kit/index.ts";
import { runMasker } from "../../run-setup/index.ts";
import { RECEIVER_CONTEXT_KEY, type ReceiverRunContext } from "../engine/receiver-context.ts";
import { provided } from "../engine/spec-context.ts";

/** The most of an answer read and kept: a receiver's acknowledgement is short. */
const ANSWER_LIMIT_BYTES = 64 * 1024;
/** The most of a request body kept in the reports (the 1 MB delivery is cut, its size said). */
const RECORDED_BODY_CHARS = 4 * 1024;

export interface Delivered {
  answer: ReceiverAnswer;
  exchange: Exchange;
}

export interface ReceiverTarget {
  context: ReceiverRunContext;
  profile: Profile;
  masker: Masker;
  secret: string | null;
  /** The profile's callback timeout: the time a receiver has to acknowledge. */
  timeoutMs: number;
  /** The n-th order of a kind: from H2H_RECEIVER_ORDERS, else an id the receiver never saw. */
  orderOf(kind: OrderKind, n?: number): ReceiverOrder;
  /** An order no merchant made: an id of this run that no file lists. */
  unknownOrder(kind: OrderKind, label: string): ReceiverOrder;
  deliver(delivery: Delivery): Promise<Delivered>;
}

function receiverContext(): ReceiverRunContext {
  const context = provided<ReceiverRunContext>(RECEIVER_CONTEXT_KEY);
  if (context === undefined)
    throw new Error("no receiver run context: the receiver specs are run by `npm run certify:receiver`");
  return context;
}

/** Reads an answer's body up to the limit, then lets the rest go. */
async function bodyOf(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= ANSWER_LIMIT_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, ANSWER_LIMIT_BYTES).toString("utf8");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const recordedBody = (body: string) =>
  body.length > RECORDED_BODY_CHARS
    ? `${body.slice(0, RECORDED_BODY_CHARS)}… (cut here in the reports: ${Buffer.byteLength(body)} bytes were sent)`
    : body;

export function loadReceiverTarget(file: string): ReceiverTarget {
  const context = receiverContext();
  const { profile } = context;
  const masker = runMasker({ callbackSecret: context.callbackSecret, baseUrl: context.receiverUrl });
  const recorder = new ExchangeRecorder(basename(file).replace(/\.spec\.[jt]s$/, ""), masker, context.runDir);
  const timeoutMs = profile.timeouts.callbackMs;
  const made = (kind: OrderKind, label: string): ReceiverOrder => ({
    id: `h2h-${label}-${context.runId}-${kind}`,
    amount: profile.methods[kind].amount,
    kind,
    merchantOrderID: `h2h-${label}-${context.runId}-${kind}-m`,
  });
  return {
    context,
    profile,
    masker,
    secret: context.callbackSecret,
    timeoutMs,
    orderOf(kind, n = 0) {
      const known = (context.orders ?? []).filter((order) => order.kind === kind);
      return known.length > 0 ? (known[n % known.length] as ReceiverOrder) : made(kind, `order${n}`);
    },
    unknownOrder: (kind, label) => made(kind, `unknown-${label}`),
    async deliver(delivery) {
      const startedAt = new Date();
      const started = performance.now();
      let status: number | undefined;
      let error: string | undefined;
      let durationMs = 0;
      let headers: Record<string, string> = {};
      let body = "";
      try {
        const response = await fetch(context.receiverUrl, {
          method: "POST",
          headers: delivery.headers,
          body: delivery.body,
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
        // The acknowledgement is the status line: the time to it is what the provider waits.
        durationMs = performance.now() - started;
        status = response.status;
        headers = Object.fromEntries(response.headers);
        body = await bodyOf(response).catch(() => "");
      } catch (thrown) {
        durationMs = performance.now() - started;
        const e = thrown as { name?: string; message?: string; cause?: { code?: string; message?: string } };
        error =
          e.name === "TimeoutError"
            ? `no answer within ${timeoutMs} ms`
            : (e.cause?.code ?? e.cause?.message ?? e.message ?? String(thrown));
      }
      const answer: ReceiverAnswer = { case: delivery.case, status, durationMs, error };
      const exchange = recorder.record({
        startedAt: startedAt.toISOString(),
        durationMs: Math.round(durationMs),
        request: {
          method: "POST",
          url: context.receiverUrl,
          headers: delivery.headers,
          body: recordedBody(delivery.body),
        },
        response: { status: status ?? 0, headers, body, json: parseJson(body) },
      });
      return { answer, exchange };
    },
  };
}
