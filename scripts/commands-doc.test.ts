/**
 * docs/commands.md's reference of every command is generated from the definitions in
 * scripts/commands/: the page holds what `npm run docs` writes, and a definition's option,
 * settings and exit codes reach it with no line of the page edited by hand.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { defineCommand, EXIT } from "./cli.ts";
import { commandsMarkdown, withCommandsReference } from "./commands-doc.ts";
import { loadCommands } from "./h2h-certify.ts";

fileTimeout(60_000);

describe("docs/commands.md", () => {
  it("is what the command definitions generate between its commands marks", async () => {
    const doc = readFileSync(new URL("../docs/commands.md", import.meta.url), "utf8");
    expect(
      withCommandsReference(doc, await loadCommands()) === doc,
      "docs/commands.md's reference differs from the definitions in scripts/commands/: run npm run docs",
    ).toBe(true);
  });

  it("writes a command's usage, options (pipes escaped), settings and exit codes", () => {
    const scratch = defineCommand({
      name: "scratch:thing",
      aliases: ["thing"],
      summary: "Does a thing\nin two lines.",
      options: {
        mode: { type: "string", choices: ["a", "b"], description: "which | mode" },
        dry: { type: "boolean", description: "do nothing" },
      },
      settings: "sink",
      exitCodes: { [EXIT.failed]: "the thing failed" },
      run: async () => EXIT.ok,
    });
    const text = commandsMarkdown([scratch]);
    expect(text).toContain("### scratch:thing");
    expect(text).toContain(
      "`npm run scratch:thing -- [options]`, or `npx h2h-certify scratch:thing` (also `npx h2h-certify thing`)",
    );
    expect(text).toContain("Does a thing in two lines.");
    expect(text).toContain("| `--mode a\\|b` | which \\| mode |");
    expect(text).toContain("| `--dry` | do nothing |");
    expect(text).toMatch(/Settings \(\[environment\.md\]\(environment\.md\)\): .*`H2H_SINK_TOKEN`/);
    expect(text).toContain("Exit codes: `0` done; `1` the thing failed; `64` bad usage.");
  });
});
