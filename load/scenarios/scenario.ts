/**
 * What a load scenario file exports: its name, its defaults, the arrival of orders it makes from the
 * run's settings, and its words for the console and docs/load.md. load/lib turns it into k6's options.
 * k6-safe and import-free: the settings table (run-setup/) and the k6 code both read it.
 */

/** The run's settings a scenario's shape is computed from. */
export interface ShapeInput {
  /** Orders per second (the scenario's default when no flag is given). */
  rate: number;
  /** The run's duration, k6 style ("2m"), and the same in seconds. */
  duration: string;
  durationS: number;
  /** Seconds between an order and its confirmation code. */
  thinkSeconds: number;
}

/** A ramping stage: reach `target` orders/s over `seconds`. */
export type Stage = readonly [target: number, seconds: number];

/** How orders arrive: k6's arrival-rate executors, which send whatever the target's latency. */
export type Arrival =
  | { executor: "constant-arrival-rate"; rate: number }
  | { executor: "ramping-arrival-rate"; startRate?: number; stages: readonly Stage[] };

/** One step of a stepped scenario: its rate, and the settled window (after the warm-up) it is judged on. */
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

export interface LoadScenario {
  /** H2H_SCENARIO's value (`--scenario`): lower case, digits and `-`. */
  name: string;
  /** What it sends and what for: docs/load.md's table. Markdown; `--rate`, `--duration`, `--think` are the flags. */
  sends: string;
  defaults: { rate: number; duration: string; thinkSeconds: number };
  /** The most orders per second it takes (`--rate`), and what to use instead above it. */
  maxRate?: { rate: number; instead: string };
  arrival(input: ShapeInput): Arrival;
  /**
   * A stepped scenario: each step is judged on its own (its p95 and failure rate abort the run at
   * the first that breaks) and the run reports the capacity. Without it the run is judged whole.
   */
  steps?(input: Pick<ShapeInput, "rate" | "durationS">): StressStep[];
  /** What a run of it sends, e.g. "10 orders/s for 2m", for the console, the reports and the docs' default. */
  describe(input: ShapeInput): string;
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

/** A scenario file's export, its name kept as a literal type for the list's union of names. */
export const defineScenario = <const Scenario extends LoadScenario>(scenario: Scenario): Scenario => scenario;

/** ", 1 s think time between each order and its confirmation" when there is one. */
export const thinkText = (input: Pick<ShapeInput, "thinkSeconds">): string =>
  input.thinkSeconds > 0
    ? `, ${input.thinkSeconds} s think time between each order and its confirmation`
    : "";
