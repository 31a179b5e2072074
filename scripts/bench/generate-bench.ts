/**
 * How long the generated probes take to build, without any network: the quick and thorough order
 * sets of the reference methods (json-schema-faker included) and the negative cases of every
 * method. The first run in a fresh process (what `npm run certify` pays once) is reported apart
 * from the median of the repeated runs that follow.
 */
import {
  createRequestSchema,
  deriveNegativeCases,
  type GenerationDepth,
  generateOrders,
} from "../../contract/index.ts";
import { REFERENCE_ORDER_METHODS } from "../../fixtures/providers/reference/index.ts";
import { median } from "./measure.ts";

export interface Timing {
  /** The first run in this process, ms. */
  firstMs: number;
  /** Median of the repeated runs after it, ms. */
  medianMs: number;
  /** What one run made (orders or cases). */
  count: number;
}

export interface GenerateBenchResult {
  quick: Timing;
  thorough: Timing;
  negatives: Timing;
  rounds: number;
}

function time(run: () => number, rounds: number): Timing {
  const started = performance.now();
  const count = run();
  const firstMs = performance.now() - started;
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    run();
    samples.push(performance.now() - t);
  }
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { firstMs: round(firstMs), medianMs: round(median(samples)), count };
}

const generate = (depth: GenerationDepth, seed: number) =>
  generateOrders({
    seed,
    depth,
    methods: REFERENCE_ORDER_METHODS,
    callbackUrl: "http://127.0.0.1:9/cb/bench",
  });

export function runGenerateBench(rounds: number): GenerateBenchResult {
  let seed = 1;
  const quick = time(() => generate("quick", seed++).length, rounds);
  const thorough = time(() => generate("thorough", seed++).length, rounds);
  const bases = generate("quick", 0).filter((order) => order.index === 0);
  const negatives = time(() => {
    let count = 0;
    for (const order of bases) {
      const derived = deriveNegativeCases(createRequestSchema(order.kind), order.body, {
        method: order.method,
        methods: REFERENCE_ORDER_METHODS,
      });
      count += derived.cases.length;
    }
    return count;
  }, rounds);
  return { quick, thorough, negatives, rounds };
}
