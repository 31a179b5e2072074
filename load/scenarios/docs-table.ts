/** docs/load.md's table of scenarios, generated from the list and held to it by a test (load/lib/scenario-list.test.ts). */
import { durationSeconds, type LoadScenario } from "./scenario.ts";

const cell = (text: string) => text.replace(/\|/g, "\\|");

/** The table: each scenario's name, what it sends, and what it sends with its defaults. */
export function scenariosMarkdown(scenarios: readonly LoadScenario[]): string {
  return [
    "| scenario | what it sends | default |",
    "|---|---|---|",
    ...scenarios.map((scenario) => {
      const { rate, duration, thinkSeconds } = scenario.defaults;
      const shape = scenario.describe({ rate, duration, durationS: durationSeconds(duration), thinkSeconds });
      return `| \`${scenario.name}\` | ${cell(scenario.sends)} | ${cell(shape)} |`;
    }),
  ].join("\n");
}

const DOCS_START = "<!-- scenarios:start -->";
const DOCS_END = "<!-- scenarios:end -->";

/** docs/load.md with its scenarios block replaced by the list's table; the rest as it is. */
export function withScenariosTable(doc: string, scenarios: readonly LoadScenario[]): string {
  const start = doc.indexOf(DOCS_START);
  const end = doc.indexOf(DOCS_END);
  if (start === -1 || end < start) throw new Error(`no ${DOCS_START} … ${DOCS_END} block`);
  return `${doc.slice(0, start + DOCS_START.length)}\n${scenariosMarkdown(scenarios)}\n${doc.slice(end)}`;
}

/** The command that rewrites docs/load.md's scenarios block from the list (run from the project root). */
export const REGENERATE_SCENARIO_DOCS = "npm run docs";
