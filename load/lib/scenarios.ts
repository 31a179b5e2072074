/**
 * k6 options for each scenario, and the thresholds that fail a run. Latency thresholds are per
 * endpoint, grouped by the `name` tag every request carries: a raw URL (which holds the order id)
 * never becomes a metric tag. k6-safe: no Node.js API.
 */
import type { Options, Scenario } from "k6/options";
import { OPERATIONS_BY_KIND, type OrderKind } from "../../contract/names.ts";
import type { LoadConfig } from "./config.ts";

/** Seconds in a k6 duration such as "1h30m", "45s" or "500ms". */
export function durationSeconds(duration: string): number {
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+)(ms|s|m|h)/g)) {
    const n = Number(amount);
    total += unit === "ms" ? n / 1000 : unit === "s" ? n : unit === "m" ? n * 60 : n * 3600;
  }
  return total;
}

/** A number of seconds as a k6 stage duration, at least "1s". */
const k6Duration = (s: number) => `${Math.max(1, Math.round(s))}s`;

function arrivalVUs(config: LoadConfig, peakRate: number) {
  // One iteration makes two requests; a VU per expected concurrent iteration, bounded by maxVUs.
  const preAllocated = Math.min(config.maxVUs, Math.max(2, Math.ceil(peakRate / 2)));
  return { preAllocatedVUs: preAllocated, maxVUs: Math.max(preAllocated, config.maxVUs) };
}

/** A ramping-arrival-rate scenario from a quarter of the rate through `[target rate, seconds]` stages. */
function rampingArrival(config: LoadConfig, stages: [target: number, seconds: number][]): Scenario {
  return {
    executor: "ramping-arrival-rate",
    startRate: Math.max(1, Math.round(config.rate / 4)),
    timeUnit: "1s",
    stages: stages.map(([target, seconds]) => ({ target, duration: k6Duration(seconds) })),
    ...arrivalVUs(config, Math.max(...stages.map(([target]) => target))),
  };
}

export function buildScenario(config: LoadConfig): Scenario {
  const total = durationSeconds(config.duration);
  const rate = config.rate;
  switch (config.scenario) {
    case "smoke":
      return { executor: "constant-vus", vus: 2, duration: config.duration };
    case "load":
    case "soak":
      return {
        executor: "constant-arrival-rate",
        rate,
        timeUnit: "1s",
        duration: config.duration,
        ...arrivalVUs(config, rate),
      };
    case "stress":
      // Up to the target rate, hold, then past it to twice and three times the target.
      return rampingArrival(config, [
        [rate, total * 0.25],
        [rate, total * 0.25],
        [rate * 2, total * 0.25],
        [rate * 3, total * 0.25],
      ]);
    case "spike": {
      // A quiet baseline, a sudden jump to five times the target, and back.
      const quiet = Math.max(1, Math.round(rate / 4));
      return rampingArrival(config, [
        [quiet, total * 0.3],
        [rate * 5, Math.min(10, total * 0.1)],
        [rate * 5, total * 0.2],
        [quiet, Math.min(10, total * 0.1)],
        [quiet, total * 0.3],
      ]);
    }
  }
}

/** Options for a script that runs flows of the given kinds. */
export function buildOptions(config: LoadConfig, kinds: readonly OrderKind[]): Options {
  const thresholds: NonNullable<Options["thresholds"]> = {
    http_req_failed: ["rate<0.01"],
    checks: ["rate>0.99"],
  };
  for (const kind of kinds) {
    for (const operation of Object.values(OPERATIONS_BY_KIND[kind]))
      thresholds[`http_req_duration{name:${operation}}`] = [`p(95)<${config.p95Ms}`];
  }
  return {
    scenarios: { [config.scenario]: buildScenario(config) },
    thresholds,
    // Keeps the run id on every sample, so runs can be told apart in any output.
    tags: { h2h_run: config.runId },
    summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"],
    discardResponseBodies: false,
  };
}
