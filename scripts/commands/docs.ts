/** `npm run docs`: rewrites the generated parts of docs/ from the settings table and the commands. */
import { readFile, writeFile } from "node:fs/promises";
import { checksMarkdown, listChecks, withChecksTable } from "../../certify/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { LOAD_SCENARIOS, withScenariosTable } from "../../load/scenarios/index.ts";
import { withSettingsTable } from "../../run-setup/index.ts";
import { defineCommand, EXIT } from "../cli.ts";
import { withCommandsReference } from "../commands-doc.ts";
import { loadCommands } from "../h2h-certify.ts";

const ROOT = new URL("../../", import.meta.url);

/** Each generated page, and how it is made from its text as it is. */
export const GENERATED_DOCS = {
  "docs/environment.md": async (doc: string) => withSettingsTable(doc),
  "docs/commands.md": async (doc: string) => withCommandsReference(doc, await loadCommands()),
  "docs/load.md": async (doc: string) => withScenariosTable(doc, LOAD_SCENARIOS),
  "docs/checks.md": async (doc: string) => withChecksTable(doc, REFERENCE_PROFILE),
  "docs/receiver.md": async (doc: string) => withReceiverChecksTable(doc),
} as const;

/** docs/receiver.md with its table of the receiver battery's checks, between its receiver-checks marks. */
function withReceiverChecksTable(doc: string): string {
  const start = "<!-- receiver-checks:start -->";
  const end = "<!-- receiver-checks:end -->";
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from === -1 || to < from) throw new Error(`docs/receiver.md has no ${start} … ${end} block`);
  const table = checksMarkdown(listChecks(REFERENCE_PROFILE, "receiver"));
  return `${doc.slice(0, from + start.length)}\n${table}\n${doc.slice(to)}`;
}

export const docs = defineCommand({
  name: "docs",
  summary:
    "Rewrites the generated parts of docs/: environment.md's table of settings (run-setup/settings-table.ts),\n" +
    "commands.md's reference of every command (scripts/commands/), load.md's scenarios (load/scenarios/)\n" +
    "and the tables of checks of checks.md and receiver.md (contract/checks/).",
  options: {
    check: { type: "boolean", description: "write nothing; exit 1 if a generated page is not up to date" },
  },
  exitCodes: { [EXIT.failed]: "--check: a generated page is out of date (run npm run docs)" },
  async run(options) {
    let stale = 0;
    for (const [page, generate] of Object.entries(GENERATED_DOCS)) {
      const file = new URL(page, ROOT);
      const doc = await readFile(file, "utf8");
      const fresh = await generate(doc);
      if (fresh === doc) console.log(`${page} is up to date`);
      else if (options.check) {
        console.log(`${page} is out of date: run npm run docs`);
        stale++;
      } else {
        await writeFile(file, fresh);
        console.log(`${page} rewritten`);
      }
    }
    return stale > 0 ? EXIT.failed : EXIT.ok;
  },
});
