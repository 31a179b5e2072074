/**
 * The load scenarios' one list (load/scenarios/index.ts) and what follows from it stay in step: each
 * scenario's k6 options, H2H_SCENARIO in the settings table and the wording of its rate and think
 * defaults there, docs/load.md's table, and the load workflow's scenario input.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT, parseSetting, SETTINGS } from "../../run-setup/index.ts";
import {
  LOAD_SCENARIOS,
  type LoadScenario,
  REGENERATE_SCENARIO_DOCS,
  SCENARIO_NAMES,
  withScenariosTable,
} from "../scenarios/index.ts";
import { type BundledProfile, parseLoadConfig } from "./config.ts";
import { buildOptions, describeScenario, STEP_TAG } from "./scenarios.ts";

const profile: BundledProfile = {
  methods: {
    mobile_commerce: { methodID: 101, amount: 1500, requires: { clientID: false, clientMetadata: [] } },
    quasi_ecom: { methodID: 201, amount: 2500.5, requires: { clientID: false, clientMetadata: [] } },
  },
  codes: { succeeded: "1111" },
  expectedStatus: {
    createMobileCommerceOrder: "payment_pending",
    confirmMobileCommerceOrder: "waiting_for_terminal",
    createQuasiEcomOrder: "created",
    confirmQuasiEcomOrder: "created",
  },
  requestTimeoutMs: 5000,
};
const env = { H2H_BASE_URL: "http://127.0.0.1:8080", H2H_API_KEY: "k", H2H_RUN_ID: "run-1" };
const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), "utf8");

describe("the load scenarios' list", () => {
  it("names each scenario once, in lower case, and H2H_SCENARIO takes exactly those", () => {
    expect(new Set(SCENARIO_NAMES).size).toBe(SCENARIO_NAMES.length);
    for (const name of SCENARIO_NAMES) {
      expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(parseSetting("scenario", { H2H_SCENARIO: name })).toBe(name);
    }
    expect(() => parseSetting("scenario", { H2H_SCENARIO: "marathon" })).toThrow(
      `H2H_SCENARIO="marathon": must be one of ${SCENARIO_NAMES.join(", ")}`,
    );
  });

  it.each(LOAD_SCENARIOS.map((scenario): [string, LoadScenario] => [scenario.name, scenario]))(
    "%s: its defaults pass the settings table, and it becomes k6 options it describes",
    (name, scenario) => {
      const { rate, duration, thinkSeconds } = scenario.defaults;
      expect(parseSetting("rate", { H2H_RATE: String(rate) })).toBe(rate);
      expect(parseSetting("duration", { H2H_DURATION: duration })).toBe(duration);
      expect(parseSetting("thinkSeconds", { H2H_THINK_S: String(thinkSeconds) })).toBe(thinkSeconds);
      if (scenario.maxRate) expect(rate).toBeLessThanOrEqual(scenario.maxRate.rate);

      const config = parseLoadConfig({ ...env, H2H_SCENARIO: name }, profile);
      expect(config).toMatchObject({ scenario: name, rate, duration, thinkSeconds });
      const options = buildOptions(config, ["mobile_commerce", "quasi_ecom"]);
      const k6Scenario = options.scenarios?.[name];
      expect(k6Scenario?.executor).toMatch(/^(constant|ramping)-arrival-rate$/);
      if (k6Scenario?.executor === "ramping-arrival-rate") {
        expect(k6Scenario.stages.length).toBeGreaterThan(0);
        for (const stage of k6Scenario.stages) {
          expect(stage.target).toBeGreaterThan(0);
          expect(stage.duration).toMatch(/^\d+s$/);
        }
      }
      // A stepped scenario is judged step by step; any other over the whole run.
      const stepped = Object.keys(options.thresholds ?? {}).some((metric) => metric.includes(`${STEP_TAG}:`));
      expect(stepped).toBe(scenario.steps !== undefined);
      expect(describeScenario(config, ["mobile_commerce"])).toMatch(new RegExp(`^${name}: \\S`));
    },
  );

  it("is what the settings table's rate and think defaults say, scenario by scenario", () => {
    // "smoke 1.5 (at most 2); else 10": the named scenarios' values, and one for all the others.
    const said = (text: string, name: string) =>
      Number(new RegExp(`\\b${name} ([\\d.]+)`).exec(text)?.[1] ?? /\belse ([\d.]+)/.exec(text)?.[1]);
    for (const scenario of LOAD_SCENARIOS) {
      expect(said(SETTINGS.rate.defaultText, scenario.name), `H2H_RATE's default for ${scenario.name}`).toBe(
        scenario.defaults.rate,
      );
      expect(
        said(SETTINGS.thinkSeconds.defaultText, scenario.name),
        `H2H_THINK_S's default for ${scenario.name}`,
      ).toBe(scenario.defaults.thinkSeconds);
    }
  });

  it("is what docs/load.md's scenarios table shows", () => {
    const doc = read("docs/load.md");
    expect(
      withScenariosTable(doc, LOAD_SCENARIOS) === doc,
      `docs/load.md's scenarios table differs from load/scenarios/; regenerate it from the project root with:\n${REGENERATE_SCENARIO_DOCS}`,
    ).toBe(true);
  });

  it("holds the load workflow's scenario input: its defaults, any choices, and the names it gives", () => {
    const workflow = read(".github/workflows/load.yml");
    const inputs = scenarioInputs(workflow);
    expect(inputs.length).toBeGreaterThan(0);
    for (const input of inputs) {
      if (input.default !== undefined) expect(SCENARIO_NAMES).toContain(input.default);
      // A choice list, should one come back, lists every scenario.
      if (input.options !== undefined) expect(input.options).toEqual(SCENARIO_NAMES);
      for (const name of input.namedInDescription) expect(SCENARIO_NAMES).toContain(name);
    }
    const fallback = /inputs\.scenario \|\| '([^']+)'/.exec(workflow)?.[1];
    expect(fallback === undefined || (SCENARIO_NAMES as readonly string[]).includes(fallback)).toBe(true);
  });
});

interface ScenarioInput {
  default: string | undefined;
  options: string[] | undefined;
  /** The names a description lists before its "…". */
  namedInDescription: string[];
}

/** Each `scenario:` input block of a workflow, read line by line (the workflow's own YAML is plain). */
function scenarioInputs(workflow: string): ScenarioInput[] {
  const lines = workflow.split("\n");
  const inputs: ScenarioInput[] = [];
  lines.forEach((line, index) => {
    const head = /^(\s+)scenario:\s*$/.exec(line);
    if (!head) return;
    const indent = (head[1] ?? "").length;
    const block: string[] = [];
    for (const next of lines.slice(index + 1)) {
      if (next.trim() !== "" && next.length - next.trimStart().length <= indent) break;
      block.push(next.trim());
    }
    const field = (name: string) =>
      block
        .find((entry) => entry.startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim()
        .replace(/^"(.*)"$/, "$1");
    const options = field("options");
    const description = field("description") ?? "";
    inputs.push({
      default: field("default"),
      options: options?.replace(/^\[|\]$/g, "").split(/,\s*/),
      namedInDescription: description.includes("…")
        ? (description.split("…")[0] ?? "")
            .replace(/^[^:]*:/, "")
            .split(",")
            .map((name) => name.trim())
            .filter((name) => name !== "")
        : [],
    });
  });
  return inputs;
}
