/**
 * What observe mode's proxy costs: latency added (p50, p99 of sequential requests) and throughput
 * (concurrent keep-alive requests), against a bare undici forwarder in the same run, both in front
 * of the same upstream, a node:http server answering a fixed envelope.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { ObserveSession, startObserveProxy } from "../../certify/index.ts";
import { SAMPLE_ORDER_RECORD, sampleSuccessEnvelope } from "../../fixtures/index.ts";
import { assertValidRuns, measureThroughput, type Throughput } from "./measure.ts";

export interface ObserveBenchOptions {
  /** Sequential requests timed for latency, through each. */
  requests: number;
  /** Concurrent requests for throughput, through each. */
  loadRequests: number;
  connections: number;
}

export interface Latency {
  p50Ms: number;
  p99Ms: number;
}

export interface ObserveBenchResult {
  direct: Latency;
  bare: Latency & { throughput: Throughput };
  observe: Latency & { throughput: Throughput };
  addedP50Ms: number;
  /** The session's exchanges at the end, and this process's RSS before and after (MiB): what it costs to keep them. */
  memory: { exchanges: number; rssBeforeMiB: number; rssAfterMiB: number };
  addedP99Ms: number;
  ratio: number;
}

const FIXED_BODY = JSON.stringify(sampleSuccessEnvelope(SAMPLE_ORDER_RECORD));
const PATH = "/api/v1/orders/2f0f6f0e-1111-4a4a-9b9b-000000000001/ecom-confirm/h2h";
const BODY = JSON.stringify({ code: "1111" });
const HEADERS = { "content-type": "application/json", authorization: "Bearer bench-key-0123456789" };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/** The baseline: a forwarder that only passes bytes, no copy kept, no judging. */
function bareForwarder(upstream: string, agent: Agent): Server {
  return createServer(async (req, res) => {
    try {
      const answer = await request(`${upstream}${req.url}`, {
        method: req.method as "POST",
        headers: {
          "content-type": req.headers["content-type"] ?? "",
          authorization: req.headers.authorization ?? "",
        },
        body: req,
        dispatcher: agent,
      });
      res.writeHead(answer.statusCode, { "content-type": String(answer.headers["content-type"] ?? "") });
      for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch {
      res.writeHead(502).end();
    }
  });
}

async function latency(base: string, count: number): Promise<Latency> {
  const agent = new Agent();
  const times: number[] = [];
  try {
    for (let i = 0; i < count + 50; i++) {
      const began = performance.now();
      const answer = await request(`${base}${PATH}`, {
        method: "POST",
        headers: HEADERS,
        body: BODY,
        dispatcher: agent,
      });
      await answer.body.text();
      // The first 50 warm up connections and the JIT.
      if (i >= 50) times.push(performance.now() - began);
    }
  } finally {
    await agent.close();
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 1000) / 1000;
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}

export async function runObserveBench(options: ObserveBenchOptions): Promise<ObserveBenchResult> {
  const upstreamServer = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(FIXED_BODY),
      });
      res.end(FIXED_BODY);
    });
  });
  const upstream = await listen(upstreamServer);
  const bareAgent = new Agent();
  const bareServer = bareForwarder(upstream, bareAgent);
  const bareUrl = await listen(bareServer);
  const observeAgent = new Agent();
  // Spilling as `observe` does: the figures include writing each exchange to the run folder.
  const spillDir = mkdtempSync(join(tmpdir(), "h2h-observe-bench-"));
  const session = new ObserveSession(65_536, spillDir);
  const proxy = await startObserveProxy({
    upstream,
    dispatcher: observeAgent,
    session,
    sinkUrlFor: undefined,
    port: 0,
  });
  const rssMiB = () => Math.round(process.memoryUsage().rss / 1024 / 1024);
  const rssBeforeMiB = rssMiB();
  try {
    const direct = await latency(upstream, options.requests);
    // Interleaved: a machine that slows down part way slows both alike.
    const bareLatency = await latency(bareUrl, options.requests);
    const observeLatency = await latency(proxy.url, options.requests);
    const shape = {
      path: PATH,
      body: BODY,
      headers: HEADERS,
      connections: options.connections,
      durationSeconds: 0,
      requests: options.loadRequests,
    };
    const bareThroughput = await measureThroughput(bareUrl, shape);
    const observeThroughput = await measureThroughput(proxy.url, shape);
    assertValidRuns({ bare: bareThroughput, observe: observeThroughput });
    const round = (n: number) => Math.round(n * 1000) / 1000;
    return {
      direct,
      bare: { ...bareLatency, throughput: bareThroughput },
      observe: { ...observeLatency, throughput: observeThroughput },
      addedP50Ms: round(observeLatency.p50Ms - bareLatency.p50Ms),
      addedP99Ms: round(observeLatency.p99Ms - bareLatency.p99Ms),
      ratio: round(observeThroughput.requestsPerSecond / bareThroughput.requestsPerSecond),
      memory: { exchanges: session.exchangeCount, rssBeforeMiB, rssAfterMiB: rssMiB() },
    };
  } finally {
    await proxy.stop();
    await close(bareServer);
    await close(upstreamServer);
    await bareAgent.close();
    await observeAgent.close();
    rmSync(spillDir, { recursive: true, force: true });
  }
}
