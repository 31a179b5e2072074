/**
 * k6 options for each scenario, and the thresholds that fail a run. Latency thresholds are per
 * endpoint, grouped by the `name` tag every request carries: a raw URL (which holds the order id)
 * never becomes a metric tag. k6-safe: no Node.js API.
 *
 * What each scenario sends:
 *   smoke   a trickle: `rate` orders/s (default 1.5, at most 2) for 30 s, a payer's think time
 *           (default 1 s) between the order and its confirmation code
 *   load    a constant arrival rate of `rate` orders/s for `duration`
 *   soak    the same as load, for longer (default 30 min)
 *   stress  steps of rising arrival rate (×1.5 per step from `rate`), each judged on its own;
 *           k6 stops at the first step that breaks a threshold
 *   spike   a quiet baseline, a sudden jump to five times `rate`, and back
 */
import type { Options, Scenario } from "k6/options";
import { OPERATIONS_BY_KIND, type OperationName, type OrderKind } from "../../contract/schemas/names.ts";
import type { LoadConfig } from "./config.ts";
import { API_FAILED_METRIC, REQUEST_KIND_TAG } from "./metric-names.ts";

/** The operations flows of these kinds call: each kind's create and confirm. */
export function operationsOf(kinds: readonly OrderKind[]): OperationName[] {
  return kinds.flatMap((kind) => [OPERATIONS_BY_KIND[kind].create, OPERATIONS_BY_KIND[kind].confirm]);
}

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

/** k6 arrival rates are whole iterations per time unit: a fractional rate per second becomes one per minute. */
export function arrivalRate(perSecond: number): { rate: number; timeUnit: string } {
  return Number.isInteger(perSecond)
    ? { rate: perSecond, timeUnit: "1s" }
    : { rate: Math.max(1, Math.round(perSecond * 60)), timeUnit: "1m" };
}

/** The iteration time the VU pool is sized for before any think time (k6 adds VUs up to maxVUs when it is longer). */
const EXPECTED_ITERATION_S = 0.02;

/** VUs allocated before the start for an arrival rate: enough for iterations of 20 ms plus the think time. */
export function defaultPreAllocatedVUs(rate: number, thinkSeconds = 0): number {
  return Math.max(2, Math.ceil(rate * (EXPECTED_ITERATION_S + thinkSeconds)));
}

function arrivalVUs(config: LoadConfig, peakRate: number) {
  const preAllocated =
    config.preAllocatedVUs ?? Math.min(config.maxVUs, defaultPreAllocatedVUs(peakRate, config.thinkSeconds));
  return { preAllocatedVUs: preAllocated, maxVUs: Math.max(preAllocated, config.maxVUs) };
}

/** One step of the stress scenario: its rate, and the settled window (after the warm-up) it is judged on. */
export interface StressStep {
  index: number;
  /** Orders per second the step holds. */
  rate: number;
  /** Seconds since the scenario's start. */
  startS: number;
  /** Judged from here (the ramp to the new rate and a warm-up are not). */
  settledFromS: number;
  endS: number;
}

/** A stress step is about this long; a run of `duration` has duration / STRESS_STEP_S of them (at least 3). */
export const STRESS_STEP_S = 15;
export const STRESS_FACTOR = 1.5;

export function stressSteps(config: Pick<LoadConfig, "rate" | "duration">): StressStep[] {
  const total = durationSeconds(config.duration);
  const count = Math.max(3, Math.floor(total / STRESS_STEP_S));
  const length = total / count;
  const warmUp = Math.min(3, length / 3);
  const steps: StressStep[] = [];
  let rate = config.rate;
  for (let index = 0; index < count; index++) {
    const startS = index * length;
    steps.push({ index, rate, startS, settledFromS: startS + warmUp, endS: startS + length });
    rate = Math.max(rate + 1, Math.round(rate * STRESS_FACTOR));
  }
  return steps;
}

/** The stress step whose settled window holds this moment, or undefined (ramp, warm-up, graceful stop). */
export function settledStepAt(steps: readonly StressStep[], elapsedS: number): StressStep | undefined {
  for (const step of steps) if (elapsedS >= step.settledFromS && elapsedS < step.endS) return step;
  return undefined;
}

/** The tag that carries the stress step on every sample of its settled window. */
export const STEP_TAG = "step";

export function buildScenario(config: LoadConfig): Scenario {
  const total = durationSeconds(config.duration);
  const rate = config.rate;
  switch (config.scenario) {
    case "smoke":
    case "load":
    case "soak":
      return {
        executor: "constant-arrival-rate",
        ...arrivalRate(rate),
        duration: config.duration,
        ...arrivalVUs(config, rate),
      };
    case "stress": {
      // Stepped, not a smooth ramp: each step holds its rate long enough to be judged on its own.
      const steps = stressSteps(config);
      return rampingArrival(
        config,
        steps.flatMap((step): [number, number][] => [
          [step.rate, 1],
          [step.rate, step.endS - step.startS - 1],
        ]),
        rate,
      );
    }
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

/** A ramping-arrival-rate scenario from `startRate` (default: a quarter of the rate) through `[target rate, seconds]` stages. */
function rampingArrival(
  config: LoadConfig,
  stages: [target: number, seconds: number][],
  startRate = Math.max(1, Math.round(config.rate / 4)),
): Scenario {
  return {
    executor: "ramping-arrival-rate",
    startRate,
    timeUnit: "1s",
    stages: stages.map(([target, seconds]) => ({ target, duration: k6Duration(seconds) })),
    ...arrivalVUs(config, Math.max(...stages.map(([target]) => target))),
  };
}

/**
 * Thresholds that only make k6 keep a submetric for the summary (they cannot fail): in stress,
 * the steps' checks and iterations and each endpoint's latency over the run. Reports leave them
 * out of the threshold list.
 */
export const BOOKKEEPING_RULES: readonly string[] = ["rate>=0", "count>=0", "max>=0"];

export function isBookkeeping(rule: string): boolean {
  return BOOKKEEPING_RULES.includes(rule.replace(/\s+/g, ""));
}

type Thresholds = NonNullable<Options["thresholds"]>;

/**
 * An endpoint's latency metric: answered requests with an expected status only (k6's
 * expected_response), so a refused connection's 0 ms never counts as a fast answer.
 */
export function latencyMetric(operation: string, stepTag?: string): string {
  return `http_req_duration{name:${operation},${stepTag ? `${stepTag},` : ""}expected_response:true}`;
}

/** The endpoint a latency metric's name is of (this harness's or an older one without expected_response). */
export function endpointOfLatencyMetric(metric: string): string | undefined {
  return /^http_req_duration\{name:([^,}]+)(?:,expected_response:true)?\}$/.exec(metric)?.[1];
}

function stressThresholds(config: LoadConfig, kinds: readonly OrderKind[]): Thresholds {
  const thresholds: Thresholds = {};
  // k6 stops the run at the first step whose latency or failure rate breaks (abortOnFail); a
  // step's submetric is empty, and so not evaluated, until its settled window starts.
  const abort = (rule: string) => [{ threshold: rule, abortOnFail: true }];
  // Each endpoint over the whole run, for the summary's latency table (judged per step below).
  for (const operation of operationsOf(kinds)) thresholds[latencyMetric(operation)] = ["max>=0"];
  for (const step of stressSteps(config)) {
    const tag = `${STEP_TAG}:${step.index}`;
    for (const operation of operationsOf(kinds))
      thresholds[latencyMetric(operation, tag)] = abort(`p(95)<${config.p95Ms}`);
    thresholds[`http_req_failed{${tag},${REQUEST_KIND_TAG}:api}`] = abort("rate<0.01");
    thresholds[`checks{${tag}}`] = ["rate>=0"];
    thresholds[`iterations{${tag}}`] = ["count>=0"];
  }
  return thresholds;
}

/** k6's client certificates (tlsAuth) for the run's H2H_CLIENT_CERT / H2H_CLIENT_KEY. */
export function tlsAuthOf(
  config: Pick<LoadConfig, "tls">,
  readText: (path: string) => string,
): Options["tlsAuth"] | undefined {
  if (!config.tls) return undefined;
  return [
    {
      // No `domains`: the certificate is offered to every host, as certify's client does.
      cert: readText(config.tls.certFile),
      key: readText(config.tls.keyFile),
      ...(config.tls.password !== undefined ? { password: config.tls.password } : {}),
    },
  ];
}

/**
 * Options for a script that runs flows of the given kinds; `readText` reads the client
 * certificate and key files (k6's open() in a script).
 */
export function buildOptions(
  config: LoadConfig,
  kinds: readonly OrderKind[],
  readText: (path: string) => string = () => {
    throw new Error("buildOptions: no file reader for the client certificate (H2H_CLIENT_CERT)");
  },
): Options {
  let thresholds: Thresholds;
  if (config.scenario === "stress") thresholds = stressThresholds(config, kinds);
  else {
    thresholds = { [API_FAILED_METRIC]: ["rate<0.01"], checks: ["rate>0.99"] };
    for (const operation of operationsOf(kinds))
      thresholds[latencyMetric(operation)] = [`p(95)<${config.p95Ms}`];
  }
  return {
    scenarios: { [config.scenario]: buildScenario(config) },
    thresholds,
    // Keeps the run id on every sample, so runs can be told apart in any output.
    tags: { h2h_run: config.runId },
    summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"],
    // MTLS. Extra trusted CAs have no k6 option: the harness sets SSL_CERT_FILE.
    ...(config.tls ? { tlsAuth: tlsAuthOf(config, readText) } : {}),
  };
}

const share = (n: number) => `${Math.round(n * 1000) / 10} %`;

/** What a run sends, in one sentence, for the console and the reports. */
export function describeScenario(config: LoadConfig, kinds: readonly OrderKind[]): string {
  const rate = `${config.rate} orders/s`;
  const think =
    config.thinkSeconds > 0
      ? `, ${config.thinkSeconds} s think time between each order and its confirmation`
      : "";
  const shape = (() => {
    switch (config.scenario) {
      case "smoke":
      case "load":
      case "soak":
        return `${rate} for ${config.duration}${think}`;
      case "stress": {
        const steps = stressSteps(config);
        return `steps of ${steps.map((s) => s.rate).join(", ")} orders/s, about ${Math.round(durationSeconds(config.duration) / steps.length)} s each, until a threshold breaks${think}`;
      }
      case "spike":
        return `${Math.max(1, Math.round(config.rate / 4))} orders/s, a jump to ${config.rate * 5} orders/s and back, over ${config.duration}${think}`;
    }
  })();
  const mix =
    kinds.length > 1
      ? `, ${share(config.mobileShare)} mobile commerce and ${share(1 - config.mobileShare)} quasi-ecom`
      : `, ${kinds[0] === "mobile_commerce" ? "mobile commerce" : "quasi-ecom"}`;
  const finals = `; confirmed to end ${share(1 - config.failureShare - config.appealShare)} succeeded, ${share(config.failureShare)} failed_by_terminal, ${share(config.appealShare)} succeeded_by_appeal`;
  return `${config.scenario}: ${shape}${mix}${finals} (at most ${config.maxVUs} VUs)`;
}
