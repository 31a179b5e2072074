/**
 * Sustained mobile-commerce order creations per second on the reference provider, measured in
 * the same run against a bare node:http server answering a fixed JSON body of the same size.
 * Both servers run in a child process each; the load generator runs here. The ratio
 * (provider / bare) is the figure: it cancels out how fast this machine happens to be.
 */

import { endpointPath } from "../contract/endpoints.ts";
import { buildMobileCommerceOrderRequest } from "../fixtures/payloads.ts";
import { REFERENCE_API_KEYS } from "../fixtures/reference-provider/conventions.ts";
import { assertValidRuns, measureThroughput, startChildServer, type Throughput } from "./measure.ts";

export interface ProviderBenchOptions {
  durationSeconds: number;
  connections: number;
  warmupSeconds: number;
}

export interface ProviderBenchResult {
  bare: Throughput;
  provider: Throughput;
  ratio: number;
}

export async function runProviderBench(options: ProviderBenchOptions): Promise<ProviderBenchResult> {
  const shape = {
    path: endpointPath("createMobileCommerceOrder"),
    body: JSON.stringify(buildMobileCommerceOrderRequest({ methodID: 101, amount: 1500 })),
    headers: { "content-type": "application/json", authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}` },
    connections: options.connections,
  };
  const measured: Partial<Record<"bare" | "provider", Throughput>> = {};
  for (const kind of ["bare", "provider"] as const) {
    const server = await startChildServer(kind);
    try {
      if (options.warmupSeconds > 0)
        await measureThroughput(server.url, { ...shape, durationSeconds: options.warmupSeconds });
      measured[kind] = await measureThroughput(server.url, {
        ...shape,
        durationSeconds: options.durationSeconds,
      });
    } finally {
      await server.stop();
    }
  }
  const bare = measured.bare as Throughput;
  const provider = measured.provider as Throughput;
  assertValidRuns({ bare, provider });
  return {
    bare,
    provider,
    ratio: Math.round((provider.requestsPerSecond / bare.requestsPerSecond) * 1000) / 1000,
  };
}
