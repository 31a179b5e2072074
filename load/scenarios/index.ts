/**
 * The load scenarios: one file each beside this one, and this list of them. Everything else is
 * derived from it: H2H_SCENARIO's parser (run-setup's settings table), `--scenario`'s choices, the
 * k6 options (load/lib/scenarios.ts) and docs/load.md's table.
 *
 * A package below run-setup (layer 8, docs/layout.md) and k6-safe: the settings table reads the list
 * without depending on load, and k6, which cannot list a folder, gets it bundled as a module.
 */
import { load } from "./load.ts";
import type { LoadScenario } from "./scenario.ts";
import { smoke } from "./smoke.ts";
import { soak } from "./soak.ts";
import { spike } from "./spike.ts";
import { stress } from "./stress.ts";

/** Every load scenario, in the order `--help` and the docs list them. */
export const LOAD_SCENARIOS = [smoke, load, stress, spike, soak] as const;

export type ScenarioName = (typeof LOAD_SCENARIOS)[number]["name"];

export const SCENARIO_NAMES: readonly ScenarioName[] = LOAD_SCENARIOS.map((scenario) => scenario.name);

/** The scenario when none is named: a few orders, never a load. */
export const DEFAULT_SCENARIO: ScenarioName = "smoke";

export function isScenarioName(name: string): name is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(name);
}

export function scenarioNamed(name: ScenarioName): LoadScenario {
  return LOAD_SCENARIOS.find((scenario) => scenario.name === name) as LoadScenario;
}

export { REGENERATE_SCENARIO_DOCS, withScenariosTable } from "./docs-table.ts";
export { durationSeconds, type LoadScenario, type ShapeInput, type StressStep } from "./scenario.ts";
export { stressSteps } from "./stress.ts";
