/**
 * Callbacks per second the webhook sink accepts and persists (concurrent keep-alive senders),
 * measured in the same run against a bare node:http server that answers 200 without storing.
 * Afterwards the sink's store is counted: every acknowledged callback must be there.
 */
import { STATUS, signCallbackBody } from "../../contract/index.ts";
import { REFERENCE_CALLBACK_SECRET, REFERENCE_SIGNATURE } from "../../fixtures/providers/reference/index.ts";
import { SinkClient } from "../../webhook-sink/index.ts";
import { assertValidRuns, measureThroughput, startChildServer, type Throughput } from "./measure.ts";

export interface SinkBenchOptions {
  /** Callbacks sent to each server: a fixed count, so every answer is counted and none is cut off. */
  callbacks: number;
  connections: number;
}

export interface SinkBenchResult {
  bare: Throughput;
  sink: Throughput;
  ratio: number;
  acknowledged: number;
  stored: number;
}

const BODY = JSON.stringify({
  id: "2f0f6f0e-1111-4a4a-9b9b-000000000001",
  merchantOrderID: "bench-1",
  status: STATUS.succeeded,
  amount: 1500,
  currency: "RUB",
  orderType: "mobile_commerce",
  dateUpdated: "2026-11-22T03:00:00.000Z",
});

export async function runSinkBench(options: SinkBenchOptions): Promise<SinkBenchResult> {
  const headers = {
    "content-type": "application/json",
    "x-signature": signCallbackBody(BODY, REFERENCE_CALLBACK_SECRET, REFERENCE_SIGNATURE),
  };
  const shape = {
    body: BODY,
    headers,
    connections: options.connections,
    durationSeconds: 0,
    requests: options.callbacks,
  };

  const bareServer = await startChildServer("bare-ack");
  let bare: Throughput;
  try {
    bare = await measureThroughput(bareServer.url, { ...shape, path: "/callbacks/x" });
  } finally {
    await bareServer.stop();
  }

  const sinkServer = await startChildServer("sink");
  try {
    const [callbackUrl, token] = sinkServer.extra as [string, string];
    const sink = await measureThroughput(sinkServer.url, { ...shape, path: callbackUrl });
    const client = new SinkClient(sinkServer.url, token);
    const { stored } = await client.stats();
    await client.close();
    assertValidRuns({ bare, sink });
    return {
      bare,
      sink,
      ratio: Math.round((sink.requestsPerSecond / bare.requestsPerSecond) * 1000) / 1000,
      acknowledged: sink.acknowledged,
      stored,
    };
  } finally {
    await sinkServer.stop();
  }
}
