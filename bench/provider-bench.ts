/**
 * Sustained mobile-commerce order creations per second on the reference provider, measured in
 * the same run against a bare node:http server answering a fixed JSON body of the same size.
 * Both servers run in a child process each; the load generator runs here. The ratio
 * (provider / bare) is the figure: it cancels out how fast this machine happens to be.
 */

import { endpointPath, OPERATION } from "../contract/index.ts";
import { buildMobileCommerceOrderRequest } from "../fixtures/index.ts";
import { REFERENCE_API_KEYS } from "../fixtures/reference-provider/index.ts";
import {
  assertValidRuns,
  type LoadShape,
  measureThroughput,
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
  ratio: number;
}

async function measureOnce(
  kind: "bare" | "provider",
  shape: Omit<LoadShape, "durationSeconds">,
  options: ProviderBenchOptions,
) {
  const server = await startChildServer(kind);
  try {
    if (options.warmupSeconds > 0)
      await measureThroughput(server.url, { ...shape, durationSeconds: options.warmupSeconds });
    return await measureThroughput(server.url, { ...shape, durationSeconds: options.durationSeconds });
  } finally {
    await server.stop();
  }
}

export async function runProviderBench(options: ProviderBenchOptions): Promise<ProviderBenchResult> {
  const shape = {
    path: endpointPath(OPERATION.createMobileCommerceOrder),
    body: JSON.stringify(buildMobileCommerceOrderRequest({ methodID: 101, amount: 1500 })),
    headers: { "content-type": "application/json", authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}` },
    connections: options.connections,
  };
  // Alternating rounds spread whatever else the machine does over both servers alike.
  const rounds: { bare: Throughput; provider: Throughput }[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const bare = await measureOnce("bare", shape, options);
    const provider = await measureOnce("provider", shape, options);
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
    ratio: Math.round((provider.requestsPerSecond / bare.requestsPerSecond) * 1000) / 1000,
  };
}
