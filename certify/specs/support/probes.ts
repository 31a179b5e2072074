/**
 * What the generated and stateful probes share: bounded concurrency, the exact body
 * sent, fresh merchantOrderIDs for resends, the callbacks of one order, one check judged over many
 * cases, and how a failure is reproduced (seed, `--only` command, minimal request, curl).
 */
import {
  type Check,
  type Exchange,
  type GeneratedOrder,
  type H2hClient,
  type OperationName,
  orderMethodsOf,
  toCurl,
} from "../../../contract/index.ts";
import type { StoredCallback } from "../../../webhook-sink/index.ts";
import { rerunCommand } from "../../engine/probe-settings.ts";
import type { BlockedBy, Reproduction } from "../../engine/run-context.ts";
import type { SpecTarget } from "./target.ts";
import { verify } from "./verify.ts";

/** How many probe requests (or request sequences) are in flight at once. */
export const PROBE_CONCURRENCY = 16;

/** At most `size` pieces of work at a time, however many callers share it. */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly size: number) {}

  async run<R>(work: () => Promise<R>): Promise<R> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  /**
   * Called from inside `run`: gives the slot up while `work` only waits (a sleep), and takes one
   * again after, so that pieces waiting out the same moment all wait at once.
   */
  async outside<R>(work: () => Promise<R>): Promise<R> {
    this.running -= 1;
    this.waiting.shift()?.();
    try {
      return await work();
    } finally {
      if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
      this.running += 1;
    }
  }
}

/**
 * Runs `work` over `items`, at most `limit` at a time (a number, or a {@link Limiter} shared with
 * other work, so that side-by-side groups together stay within one bound); results in order.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number | Limiter,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (limit instanceof Limiter) return Promise.all(items.map((item, i) => limit.run(() => work(item, i))));
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every method the profile lists, both flows. */
export function probedMethods(target: SpecTarget) {
  return orderMethodsOf(target.profile);
}

/**
 * The date card expiry is counted from: the first day of the current year, so that the same seed
 * sends the same cards all year long, and a card is never expired (years are 1-5 ahead of it).
 */
export function cardExpiryBase(): Date {
  return new Date(Date.UTC(new Date().getUTCFullYear(), 0, 1));
}

/** Sends a body exactly as given (the bytes of `json`), to one of the four endpoints; `probeOf` names the check it probes. */
export function sendRaw(
  client: H2hClient,
  operation: OperationName,
  json: string,
  orderId?: string,
  probeOf?: string,
): Promise<Exchange> {
  return client.call(operation, undefined, {
    rawBody: json,
    ...(orderId !== undefined ? { orderId } : {}),
    ...(probeOf !== undefined ? { probeOf } : {}),
  });
}

/**
 * A body whose generated merchantOrderID is made unique again for a resend: the part that makes it
 * unique (`<prefix>-<methodID>-<index>`) is replaced by `<prefix>-<stamp>` of the same length, so
 * a resend is not refused as a duplicate and a merchantOrderID at its maximum length stays at it.
 * `letter` keeps the stamps of different probes apart; the original never has one (it has a "-").
 */
export function withFreshMerchantOrderId(
  body: Record<string, unknown>,
  unique: string,
  prefix: string,
  letter: string,
  serial: number,
): Record<string, unknown> {
  const moid = body.merchantOrderID;
  if (typeof moid !== "string" || !moid.includes(unique)) return body;
  const room = unique.length - prefix.length - 1;
  const stamp = `${letter}${serial.toString(36)}`.padStart(room, "0").slice(-room);
  return { ...body, merchantOrderID: moid.replace(unique, `${prefix}-${stamp}`) };
}

/** The unique part of a generated order's merchantOrderID. */
export function uniquePartOf(order: GeneratedOrder, prefix: string): string {
  return `${prefix}-${order.method.methodID}-${order.index}`;
}

/**
 * A copy-paste curl of a request as the client sent it, masked; the key comes from the
 * environment variable that holds it (`--oauth2-bearer "$H2H_API_KEY"`), so it runs as pasted.
 */
export function curlOf(target: SpecTarget, exchange: Exchange): string {
  const authorization = exchange.request.headers.authorization ?? "";
  const second = target.secondApiKey !== undefined && authorization === `Bearer ${target.secondApiKey}`;
  return toCurl(
    {
      method: exchange.request.method,
      url: exchange.request.url,
      headers: exchange.request.headers,
      body: exchange.request.body,
    },
    (text) => target.masker.text(text),
    { bearerFrom: second ? "H2H_API_KEY_2" : "H2H_API_KEY" },
  );
}

/** How a failure of `check` is reproduced: the seed, the --only command, and what was sent. */
export function reproductionOf(
  target: SpecTarget,
  check: string,
  extra: Omit<Reproduction, "seed" | "command"> = {},
): Reproduction {
  return {
    seed: target.probes.seed,
    command: rerunCommand(target.rerun, target.probes.seed, check),
    ...extra,
  };
}

/** The request target (path and query) of a URL, with the sink's token segment made neutral. */
export function requestTargetOf(url: string): string {
  const parsed = new URL(url);
  return neutralToken(`${parsed.pathname}${parsed.search}`);
}

/**
 * `/callbacks/<token>/…` with the token replaced, so a URL given and a path received compare. A
 * public URL's path before it goes too: a tunnel may forward it or strip it, the provider cannot tell.
 */
export function neutralToken(path: string): string {
  return path.replace(/^(?:\/[^/?]*)*?\/callbacks\/[^/?]+/, "/callbacks/<token>");
}

/** The callbacks of one order's tag: waits for `count`, then `settleMs` more for late or extra ones. */
export async function callbacksOf(
  target: SpecTarget,
  tag: string,
  count: number,
  settleMs: number,
): Promise<StoredCallback[]> {
  const sink = target.sink();
  if (count > 0) {
    await sink.client.waitFor(
      { runId: tag },
      { timeoutMs: target.profile.timeouts.callbackMs, minCount: count },
    );
  }
  if (settleMs > 0) await sleep(settleMs);
  return sink.client.list({ runId: tag });
}

/** One case of a check judged over many: its input, evidence and, when it fails, how to reproduce it. */
export interface JudgedCase<Input> {
  /** What the case is, e.g. the generated order's name. */
  label: string;
  input: Input;
  evidence: readonly (Exchange | undefined)[];
  /** The exchange whose answer the check judges (default: the last of evidence); null: none. */
  subject?: Exchange | null;
  /** Ids of the callbacks the case looks at (`callback-<seq>`). */
  callbacks?: string[];
  /** Called for the first failing case only (it may send requests to shrink it). */
  reproduce?: () => Promise<Reproduction>;
  /** Why this case cannot be judged (its order's lifetime passed before its step): left out. */
  blockedBy?: BlockedBy;
}

/** The minimum of Vitest's test context that verify needs. */
type TaskContext = Parameters<typeof verify>[0];

/**
 * Judges one check over many cases as one test: it passes when every case passes; otherwise it
 * fails with the first failing case's finding and evidence, how many cases failed, and how to
 * reproduce the first (shrunk where the caller can).
 */
export async function verifyEach<Input>(
  ctx: TaskContext,
  target: SpecTarget,
  check: Check<Input>,
  cases: readonly JudgedCase<Input>[],
  informationalReason?: string,
): Promise<void> {
  if (cases.length === 0) throw new Error(`${check.name}: no case to judge`);
  const blocked = cases.filter((c) => c.blockedBy !== undefined);
  if (blocked.length === cases.length) {
    const first = blocked[0] as JudgedCase<Input>;
    verify(ctx, target, check, first.input, first.evidence, {
      blockedBy: first.blockedBy as BlockedBy,
      ...(first.subject !== undefined ? { subject: first.subject } : {}),
    });
    return;
  }
  const unblocked = blocked.length > 0 ? cases.filter((c) => c.blockedBy === undefined) : cases;
  const notJudged =
    blocked.length > 0
      ? `; ${blocked.length} not judged (${blocked[0]?.label}: ${blocked[0]?.blockedBy?.reason})`
      : "";
  const failing = unblocked.filter((c) => !check.run(c.input).ok);
  const shown = (failing[0] ?? unblocked[unblocked.length - 1]) as JudgedCase<Input>;
  const reproduction = failing.length > 0 && shown.reproduce ? await shown.reproduce() : undefined;
  const summary =
    failing.length === 0
      ? `all ${unblocked.length} passed${notJudged}; e.g. ${shown.label}`
      : `${failing.length} of ${unblocked.length} failed${notJudged} (${failing
          .slice(0, 4)
          .map((c) => c.label)
          .join("; ")}${failing.length > 4 ? "; …" : ""}); first, ${shown.label}`;
  try {
    verify(ctx, target, check, shown.input, shown.evidence, {
      ...(shown.subject !== undefined ? { subject: shown.subject } : {}),
      ...(shown.callbacks ? { callbacks: shown.callbacks } : {}),
      ...(reproduction ? { reproduction } : {}),
      ...(informationalReason ? { informationalReason } : {}),
    });
  } finally {
    const meta = ctx.task.meta.h2h;
    if (meta && meta.outcome !== "not evaluated") meta.detail = `${summary}: ${meta.detail}`;
  }
}
