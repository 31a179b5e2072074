/**
 * Callback delivery of a run that `npm run load` did not drive: k6 processes elsewhere (the k6
 * operator's pods, execution segments) sent their orders' callbacks and trigger notes to one
 * standalone sink (`npm run sink`). The sink tallied both per order; this asks it for the run's
 * tally and reports delivery and latency as a load run does. The denominators are the orders the
 * k6 processes noted as confirmed, each counted once whatever pod confirmed it.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { request } from "undici";
import { CONFIRMED_STATUSES, type ConfirmedStatus } from "../../contract/index.ts";
import type { RunTally, SinkIntake } from "../../webhook-sink/index.ts";
import { analyseDelivery, type DeliveryReport } from "./delivery.ts";

/** The report file of a delivery counted from a sink, beside a load run's. */
export const SINK_DELIVERY_FILE = "h2h-load-delivery.json";

export interface SinkDeliveryOptions {
  /** The callback URL the k6 processes used (`<sink>/callbacks/<token>`). */
  callbackUrl: string;
  runId: string;
  /** The profile's callbackMs: a callback is late past it after its trigger. */
  windowMs: number;
  deliveryTarget: number;
  reportDir: string;
  requestTimeoutMs?: number;
}

export interface SinkDeliveryResult {
  delivery: DeliveryReport;
  /** Trigger notes the sink took, all runs. */
  notes: number;
  passed: boolean;
  file: string;
}

/** The sink's base URL and token, from a callback URL `<base>/callbacks/<token>`. */
export function sinkOfCallbackUrl(callbackUrl: string): { base: string; token: string } {
  const url = new URL(callbackUrl);
  const match = /^(.*)\/callbacks\/([A-Za-z0-9_-]{16,128})\/?$/.exec(url.pathname);
  if (!match) throw new Error(`${callbackUrl} is not a sink callback URL (<sink>/callbacks/<token>)`);
  return { base: `${url.origin}${match[1]}`, token: match[2] as string };
}

export async function deliveryFromSink(options: SinkDeliveryOptions): Promise<SinkDeliveryResult> {
  const { base, token } = sinkOfCallbackUrl(options.callbackUrl);
  const query = `${base}/api/delivery?runId=${encodeURIComponent(options.runId)}&windowMs=${options.windowMs}`;
  const where = `${base}/api/delivery?runId=${encodeURIComponent(options.runId)}`;
  const ask = async () => {
    try {
      const response = await request(query, {
        headers: { authorization: `Bearer ${token}` },
        headersTimeout: options.requestTimeoutMs ?? 30_000,
        bodyTimeout: options.requestTimeoutMs ?? 30_000,
      });
      if (response.statusCode !== 200) {
        await response.body.text();
        throw new Error(`HTTP ${response.statusCode}`);
      }
      return (await response.body.json()) as { tally: RunTally; intake: SinkIntake; notes: number };
    } catch (error) {
      // The token is in the callback URL only: the error names the query without it.
      throw new Error(`the sink's delivery query ${where} failed: ${(error as Error).message}`);
    }
  };
  // Callbacks of the last orders may still be on their way: wait for them up to the callback timeout.
  const deadline = Date.now() + options.windowMs;
  let answer = await ask();
  const missing = (a: typeof answer) =>
    Object.values(a.tally.triggered).reduce((n, c) => n + c, 0) -
    Object.values(a.tally.byExpected).reduce((n, e) => n + e.delivered, 0);
  while (missing(answer) > 0 && Date.now() < deadline) {
    await new Promise((resolveWait) => setTimeout(resolveWait, 500));
    answer = await ask();
  }
  const confirmed = Object.fromEntries(
    CONFIRMED_STATUSES.map((final) => [final, answer.tally.triggered[final] ?? 0]),
  ) as Record<ConfirmedStatus, number>;
  const delivery = analyseDelivery(answer.tally, confirmed, answer.intake);
  const measured = delivery.confirmed > 0;
  const passed = measured && delivery.ratio >= options.deliveryTarget;
  const dir = join(resolve(options.reportDir), "load");
  await mkdir(dir, { recursive: true });
  const file = join(dir, SINK_DELIVERY_FILE);
  const { samples: _samples, ...kept } = delivery;
  await writeFile(
    file,
    `${JSON.stringify({ runId: options.runId, sink: base, deliveryTarget: options.deliveryTarget, passed, delivery: kept }, null, 2)}\n`,
  );
  return { delivery, notes: answer.notes, passed, file };
}
