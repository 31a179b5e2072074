/**
 * k6 options for each scenario, and the thresholds that fail a run. Latency thresholds are per
 * endpoint, grouped by the `name` tag every request carries: a raw URL (which holds the order id)
 * never becomes a metric tag. k6-safe: no Node.js API.
 *
 * What each scenario sends is its own file's (load/scenarios/): this file turns one into k6's
 * executor, VU pool and thresholds.
 */
import type { Options, Scenario } from "k6/options";
import { OPERATIONS_BY_KIND, type OperationName, type OrderKind } from "../../contract/schemas/names.ts";
import {
  durationSeconds,
  type ShapeInput,
  type StressStep,
  scenarioNamed,
  stressSteps as stepsOfStress,
} from "../scenarios/index.ts";
import type { LoadConfig } from "./config.ts";
import { API_FAILED_METRIC, REQUEST_KIND_TAG } from "./metric-names.ts";

/** The operations flows of these kinds call: each kind's create and confirm. */
export function operationsOf(kinds: readonly OrderKind[]): OperationName[] {
  return kinds.flatMap((kind) => [OPERATIONS_BY_KIND[kind].create, OPERATIONS_BY_KIND[kind].confirm]);
}

export { durationSeconds, type StressStep };

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

/** The stress scenario's steps for a run's rate and duration. */
export function stressSteps(config: Pick<LoadConfig, "rate" | "duration">): StressStep[] {
  return stepsOfStress({ rate: config.rate, durationS: durationSeconds(config.duration) });
}

/** What a run's scenario's shape is computed from. */
export function shapeInput(config: Pick<LoadConfig, "rate" | "duration" | "thinkSeconds">): ShapeInput {
  const { rate, duration, thinkSeconds } = config;
  return { rate, duration, durationS: durationSeconds(duration), thinkSeconds };
}

/** The run's steps when its scenario is stepped (stress), each judged on its own; else undefined. */
export function stepsOf(
  config: Pick<LoadConfig, "scenario" | "rate" | "duration">,
): StressStep[] | undefined {
  return scenarioNamed(config.scenario).steps?.({
    rate: config.rate,
    durationS: durationSeconds(config.duration),
  });
}

/** The stress step whose settled window holds this moment, or undefined (ramp, warm-up, graceful stop). */
export function settledStepAt(steps: readonly StressStep[], elapsedS: number): StressStep | undefined {
  for (const step of steps) if (elapsedS >= step.settledFromS && elapsedS < step.endS) return step;
  return undefined;
}

/** The tag that carries the stress step on every sample of its settled window. */
export const STEP_TAG = "step";

export function buildScenario(config: LoadConfig): Scenario {
  const arrival = scenarioNamed(config.scenario).arrival(shapeInput(config));
  if (arrival.executor === "constant-arrival-rate")
    return {
      executor: "constant-arrival-rate",
      ...arrivalRate(arrival.rate),
      duration: config.duration,
      ...arrivalVUs(config, arrival.rate),
    };
  return rampingArrival(config, arrival.stages, arrival.startRate);
}

/** A ramping-arrival-rate scenario from `startRate` (default: a quarter of the rate) through `[target rate, seconds]` stages. */
function rampingArrival(
  config: LoadConfig,
  stages: readonly (readonly [target: number, seconds: number])[],
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

function stepThresholds(
  config: LoadConfig,
  steps: readonly StressStep[],
  kinds: readonly OrderKind[],
): Thresholds {
  const thresholds: Thresholds = {};
  // k6 stops the run at the first step whose latency or failure rate breaks (abortOnFail); a
  // step's submetric is empty, and so not evaluated, until its settled window starts.
  const abort = (rule: string) => [{ threshold: rule, abortOnFail: true }];
  // Each endpoint over the whole run, for the summary's latency table (judged per step below).
  for (const operation of operationsOf(kinds)) thresholds[latencyMetric(operation)] = ["max>=0"];
  for (const step of steps) {
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
  const steps = stepsOf(config);
  if (steps !== undefined) thresholds = stepThresholds(config, steps, kinds);
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
  const shape = scenarioNamed(config.scenario).describe(shapeInput(config));
  const mix =
    kinds.length > 1
      ? `, ${share(config.mobileShare)} mobile commerce and ${share(1 - config.mobileShare)} quasi-ecom`
      : `, ${kinds[0] === "mobile_commerce" ? "mobile commerce" : "quasi-ecom"}`;
  const finals = `; confirmed to end ${share(1 - config.failureShare - config.appealShare)} succeeded, ${share(config.failureShare)} failed_by_terminal, ${share(config.appealShare)} succeeded_by_appeal`;
  return `${config.scenario}: ${shape}${mix}${finals} (at most ${config.maxVUs} VUs)`;
}
