/**
 * Sustained mobile-commerce order creations per second on the reference provider, measured in
 * the same run against a bare node:http server answering a fixed JSON body of the same size.
 * Both servers run in a child process each; the load generator runs here. The ratio
 * (provider / bare) is the figure: it cancels out how fast this machine happens to be.
 */

import { endpointPath, OPERATION } from "../../contract/index.ts";
import { buildMobileCommerceOrderRequest } from "../../fixtures/index.ts";
import { REFERENCE_API_KEYS } from "../../fixtures/providers/reference/index.ts";
import {
  assertValidRuns,
  type LoadShape,
  measureThroughput,
  median,
  startChildServer,
  type Throughput,
} from "./measure.ts";

export interface ProviderBenchOptions {
  durationSeconds: number;
  connections: number;
  warmupSeconds: number;
  /** Rounds of (bare, provider), each on fresh servers; the figures are the means over rounds. */
  rounds: number;
}

export interface ProviderBenchResult {
  bare: Throughput;
  provider: Throughput;
  /** Per round: bare and provider requests per second. */
  rounds: { bare: number; provider: number }[];
  /** The median of the rounds' ratios (provider / bare): one disturbed round does not move it. */
  ratio: number;
  /** The most RSS the provider's process held in any round. */
  providerPeakRssBytes: number | undefined;
}

async function measureOnce(
  kind: "bare" | "provider",
  shape: Omit<LoadShape, "durationSeconds">,
  options: ProviderBenchOptions,
): Promise<{ throughput: Throughput; peakRssBytes: number | undefined }> {
  const server = await startChildServer(kind);
  try {
    if (options.warmupSeconds > 0)
      await measureThroughput(server.url, { ...shape, durationSeconds: options.warmupSeconds });
    const throughput = await measureThroughput(server.url, {
      ...shape,
      durationSeconds: options.durationSeconds,
    });
    return { throughput, ...(await server.stop()) };
  } finally {
    // A no-op after the stop above (the child has exited); here for a measure that threw.
    await server.stop();
  }
}

/** The creation every bench request sends: one mobile-commerce order, the same body each time. */
function creationShape(
  connections: number,
  body = buildMobileCommerceOrderRequest({ methodID: 101, amount: 1500 }),
) {
  return {
    path: endpointPath(OPERATION.createMobileCommerceOrder),
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}` },
    connections,
  };
}

export async function runProviderBench(options: ProviderBenchOptions): Promise<ProviderBenchResult> {
  const shape = creationShape(options.connections);
  // Alternating rounds spread whatever else the machine does over both servers alike.
  const rounds: { bare: Throughput; provider: Throughput }[] = [];
  let providerPeakRssBytes: number | undefined;
  for (let round = 0; round < options.rounds; round++) {
    const bare = (await measureOnce("bare", shape, options)).throughput;
    const measured = await measureOnce("provider", shape, options);
    const provider = measured.throughput;
    if (measured.peakRssBytes !== undefined)
      providerPeakRssBytes = Math.max(providerPeakRssBytes ?? 0, measured.peakRssBytes);
    assertValidRuns({ bare, provider });
    rounds.push({ bare, provider });
  }
  const mean = (pick: (r: (typeof rounds)[number]) => Throughput): Throughput => {
    const all = rounds.map(pick);
    const avg = (f: (t: Throughput) => number) =>
      Math.round(all.reduce((sum, t) => sum + f(t), 0) / all.length);
    return {
      requestsPerSecond: avg((t) => t.requestsPerSecond),
      requests: all.reduce((sum, t) => sum + t.requests, 0),
      acknowledged: all.reduce((sum, t) => sum + t.acknowledged, 0),
      non2xx: 0,
      errors: 0,
      timeouts: all.reduce((sum, t) => sum + t.timeouts, 0),
      p99LatencyMs: Math.max(...all.map((t) => t.p99LatencyMs)),
    };
  };
  const bare = mean((r) => r.bare);
  const provider = mean((r) => r.provider);
  return {
    bare,
    provider,
    rounds: rounds.map((r) => ({ bare: r.bare.requestsPerSecond, provider: r.provider.requestsPerSecond })),
    ratio:
      Math.round(median(rounds.map((r) => r.provider.requestsPerSecond / r.bare.requestsPerSecond)) * 1000) /
      1000,
    providerPeakRssBytes,
  };
}

export interface ProviderSoakOptions {
  durationSeconds: number;
  connections: number;
  /** Send a fresh merchantOrderID with every order (each one is remembered for good). */
  uniqueMerchantOrderIds: boolean;
  /** Sampling of the provider's RSS. */
  sampleEverySeconds: number;
}

export interface ProviderSoakResult {
  throughput: Throughput;
  /** RSS samples, in seconds since the provider listened. */
  samples: { atSeconds: number; bytes: number; heapUsedBytes: number }[];
  /** The first sample at or after a minute: what the rest is compared with. */
  afterFirstMinute: { atSeconds: number; bytes: number; heapUsedBytes: number } | undefined;
  /** The largest sample after the first minute, relative to it (0.2 = 20 % more). */
  growthAfterFirstMinute: number | undefined;
  peakRssBytes: number | undefined;
}

/**
 * The provider at its capacity for a long time (as many creations as the connections get
 * answered), with its RSS sampled: whether the order book stays bounded once orders expire and
 * are evicted after their retention (lifetime 30 s + retention 10 s by default).
 */
export async function runProviderSoak(options: ProviderSoakOptions): Promise<ProviderSoakResult> {
  const server = await startChildServer("provider", 20_000, {
    BENCH_RSS_EVERY_MS: String(options.sampleEverySeconds * 1000),
  });
  try {
    const body = buildMobileCommerceOrderRequest({
      methodID: 101,
      amount: 1500,
      ...(options.uniqueMerchantOrderIds ? { merchantOrderID: "soak-[<id>]" } : {}),
    });
    const throughput = await measureThroughput(server.url, {
      ...creationShape(options.connections, body),
      durationSeconds: options.durationSeconds,
      uniqueIds: options.uniqueMerchantOrderIds,
    });
    assertValidRuns({ provider: throughput });
    const { peakRssBytes } = await server.stop();
    const samples = server.rssSamples.map((s) => ({
      atSeconds: Math.round(s.atMs / 1000),
      bytes: s.bytes,
      heapUsedBytes: s.heapUsedBytes,
    }));
    const afterFirstMinute = samples.find((s) => s.atSeconds >= 60);
    const later = samples.filter((s) => afterFirstMinute && s.atSeconds > afterFirstMinute.atSeconds);
    const growthAfterFirstMinute =
      afterFirstMinute && later.length > 0
        ? Math.max(...later.map((s) => s.bytes)) / afterFirstMinute.bytes - 1
        : undefined;
    return { throughput, samples, afterFirstMinute, growthAfterFirstMinute, peakRssBytes };
  } finally {
    await server.stop();
  }
}
