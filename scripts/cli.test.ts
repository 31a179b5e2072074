/**
 * The one CLI runner: every npm script answers `--help` with its usage and exit 0 (run as a user
 * runs it, a child process per script), and a bad argument is a usage error that names it and
 * exits 64. The runner's own rules are checked in-process.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { commandArgs, fileTimeout, runNode } from "../fixtures/testing/index.ts";
import { SETTINGS, type SettingSpec } from "../run-setup/index.ts";
import { type CliOutput, type Command, defineCommand, EXIT, helpText, runCli, UsageError } from "./cli.ts";
import { commandEntries, loadCommand } from "./h2h-certify.ts";

fileTimeout(60_000);

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  scripts: Record<string, string>;
};

/** The npm scripts that run a command of the bin (the rest are tools: tsc, biome, vitest). */
const COMMANDS = Object.entries(PACKAGE.scripts).flatMap(([name, line]) =>
  /^exec node bin\/h2h-certify\.mjs [\w:-]+$/.test(line) ? [{ name }] : [],
);

function run(command: string, args: string[]) {
  return runNode([...commandArgs(command), ...args], { cwd: ROOT });
}

function capture(): CliOutput & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
}

/** The command of an npm script's name, as the bin finds it. */
async function commandOf(name: string): Promise<Command> {
  const entry = commandEntries().find((found) => found.name === name);
  if (!entry) throw new Error(`no command named ${name} in scripts/commands/`);
  return loadCommand(entry);
}

describe("every npm run command", () => {
  it("is a command of scripts/commands/ of its npm script's name", async () => {
    expect(COMMANDS.map((c) => c.name).sort()).toEqual([
      "attest",
      "bench:certify",
      "bench:generate",
      "bench:load-overhead",
      "bench:masking",
      "bench:observe",
      "bench:provider",
      "bench:sink",
      "certify",
      "certify:receiver",
      "compare",
      "docs",
      "image:provider",
      "load",
      "load:build",
      "mutants",
      "observe",
      "openapi",
      "profile:schema",
      "provider",
      "provider:cleanroom",
      "provider:everyday",
      "sink",
      "stress:certify",
      "verify",
    ]);
    for (const { name } of COMMANDS) expect((await commandOf(name)).name).toBe(name);
  });

  it.each(COMMANDS)(
    "$name answers --help with its usage, every option and the exit codes, exit 0",
    async ({ name }) => {
      const command = await commandOf(name);
      const output = capture();
      expect(await runCli(command, ["--help"], output)).toBe(EXIT.ok);
      const [help] = output.lines;
      expect(output.lines).toHaveLength(1);
      expect(help?.startsWith(`usage: npm run ${name}`)).toBe(true);
      for (const option of [...Object.keys(command.options), "help"]) expect(help).toContain(`--${option}`);
      expect(help).toMatch(/exit codes:\n {3}0 {2}\S.*\n(.*\n)* {2}64 {2}bad usage/);
    },
  );

  it("refuses a negative value of every number option (--deadline -1) by name, exit 64", async () => {
    for (const { name: file } of COMMANDS) {
      const command = await commandOf(file);
      for (const [name, spec] of Object.entries(command.options)) {
        if (spec.type !== "number") continue;
        for (const args of [[`--${name}`, "-1"], [`--${name}=-0.5`]]) {
          const output = capture();
          expect(await runCli(command, args, output), `${file} ${args.join(" ")}`).toBe(EXIT.usage);
          expect(output.lines[0]).toMatch(new RegExp(`^error: --${name} -[\\d.]+: must not be negative`));
        }
      }
    }
  });

  it("has every flag of the table its settings name: a row's flag is an option of each command it names", async () => {
    for (const { name } of COMMANDS) {
      const command = await commandOf(name);
      const reader = command.settings;
      if (reader === undefined) continue;
      for (const spec of Object.values(SETTINGS) as SettingSpec[]) {
        if (!spec.flag || spec.parsedBy !== undefined || !(spec.flagIn ?? spec.readBy).includes(reader))
          continue;
        expect(command.options, `${name}: --${spec.flag} (${spec.variable})`).toHaveProperty([spec.flag]);
      }
    }
  });

  it("refuses a negative value of a table flag (--seed -1) by name, in the table's words, exit 64", async () => {
    const certify = await commandOf("certify");
    const output = capture();
    expect(await runCli(certify, ["--seed", "-1", "--check-profile"], output)).toBe(EXIT.usage);
    expect(output.lines[0]).toBe('error: --seed "-1" is not a seed: an integer from 0 to 2147483647');
  });

  it("does so as a user runs it, and refuses an unknown option with exit 64, naming it", async () => {
    const [help, bogus] = await Promise.all([run("openapi", ["--help"]), run("openapi", ["--bogus"])]);
    expect(help.exitCode).toBe(EXIT.ok);
    expect(help.stdout).toMatch(/^usage: npm run openapi -- \[options\]\n/);
    expect(help.stdout).toContain("--out FILE");
    expect(bogus.exitCode).toBe(EXIT.usage);
    expect(bogus.stdout).toBe("");
    expect(bogus.stderr).toContain("error: Unknown option '--bogus'");
    expect(bogus.stderr).toContain("usage: npm run openapi");
  });
});

describe("a blank variable", () => {
  afterEach(() => vi.unstubAllEnvs());

  // A blank H2H_BASELINE_REPORT or H2H_DEPTH in a nightly job would silently drop its regression
  // detection or its depth: each is refused, naming it (--check-profile sends nothing).
  it.each([
    "H2H_SEED",
    "H2H_DEPTH",
    "H2H_BASELINE_REPORT",
    "H2H_TARGET_STARTUP_S",
    "H2H_TARGET_ENV",
    "H2H_TARGET_READY",
    "H2H_DEBUG",
  ])("%s is refused by certify, exit 64, naming it", async (name) => {
    const { certify } = await import("./commands/certify.ts");
    for (const blank of ["", "  "]) {
      vi.stubEnv(name, blank);
      const output = capture();
      expect(await runCli(certify, ["--check-profile"], output)).toBe(EXIT.usage);
      expect(output.lines[0]).toBe(
        `error: ${name} is set but empty: give it a value, or unset it (unset ${name}) to use its default`,
      );
    }
  });
});

describe("runCli", () => {
  const command = defineCommand({
    name: "demo",
    summary: "A command for this test.",
    options: {
      count: { type: "number", description: "how many" },
      colour: { type: "string", choices: ["red", "blue"], description: "which colour" },
      tag: { type: "string", multiple: true, value: "TAG", description: "tags" },
      loud: { type: "boolean", description: "say it loud" },
    },
    exitCodes: { [EXIT.failed]: "it said no" },
    async run(options) {
      if (options.colour === "blue") throw new Error("blue is broken");
      if (options.colour === "red") throw new UsageError("red is not for this");
      return options.loud ? EXIT.failed : EXIT.ok;
    },
  });

  it("hands the command typed options and returns its exit code", async () => {
    const seen: unknown[] = [];
    const echo = defineCommand({
      ...command,
      async run(options) {
        seen.push(options);
        return EXIT.ok;
      },
    });
    const output = capture();
    expect(await runCli(echo, ["--count", "2.5", "--tag", "a", "--tag", "b", "--loud"], output)).toBe(0);
    expect(seen).toEqual([{ count: 2.5, tag: ["a", "b"], loud: true }]);
    expect(await runCli(command, ["--loud"], output)).toBe(EXIT.failed);
  });

  it.each([
    [["--count", "many"], '--count: "many" is not a number'],
    [["--count", "0x10"], '--count: "0x10" is not a number'],
    [["--count", "1e2"], '--count: "1e2" is not a number'],
    [["--count", "-1"], "--count -1: must not be negative (decimal digits, e.g. --count 12)"],
    [["--count=-2.5"], "--count -2.5: must not be negative"],
    [["--colour", "green"], "--colour green: must be one of red, blue"],
    [["--count"], "--count"],
    [["extra"], "extra"],
    [["--colour", "red"], "red is not for this"],
  ])("makes %j a usage error: exit 64, naming what was wrong", async (args, named) => {
    const output = capture();
    expect(await runCli(command, args, output)).toBe(EXIT.usage);
    expect(output.lines[0]).toMatch(/^error: /);
    expect(output.lines[0]).toContain(named);
    expect(output.lines[1]).toBe("usage: npm run demo -- [options]  (--help for details)");
  });

  it("hands a command that takes operands its operands; too few is a usage error naming them", async () => {
    const seen: (readonly string[])[] = [];
    const files = defineCommand({
      name: "files",
      summary: "A command with operands.",
      operands: { value: "FILE…", min: 2, description: "two or more files" },
      options: { loud: { type: "boolean", description: "say it loud" } },
      async run(_options, operands) {
        seen.push(operands);
        return EXIT.ok;
      },
    });
    expect(await runCli(files, ["a.json", "--loud", "b.json"], capture())).toBe(EXIT.ok);
    expect(seen).toEqual([["a.json", "b.json"]]);
    const output = capture();
    expect(await runCli(files, ["a.json"], output)).toBe(EXIT.usage);
    expect(output.lines).toEqual([
      "error: give at least 2 FILE… (two or more files); got 1",
      "usage: npm run files -- [options] FILE…  (--help for details)",
    ]);
    const help = capture();
    await runCli(files, ["--help"], help);
    expect(help.lines[0]).toContain("arguments:\n  FILE…   two or more files\n");
  });

  it("turns an unexpected error into one line and exit 1, and a known one into its own code", async () => {
    const output = capture();
    expect(await runCli(command, ["--colour", "blue"], output)).toBe(EXIT.failed);
    expect(output.lines).toEqual(["error: blue is broken"]);
    const knowing = defineCommand({ ...command, knownErrors: [[Error, EXIT.missingTool]] });
    expect(await runCli(knowing, ["--colour", "blue"], capture())).toBe(EXIT.missingTool);
  });

  it("prints the help with every option, its value, and the exit codes the command uses", async () => {
    const output = capture();
    expect(await runCli(command, ["--help", "--count", "x"], output)).toBe(0);
    expect(output.lines).toEqual([helpText(command as never)]);
    expect(output.lines[0]).toBe(
      [
        "usage: npm run demo -- [options]",
        "",
        "A command for this test.",
        "",
        "options:",
        "  --count N          how many",
        "  --colour red|blue  which colour",
        "  --tag TAG          tags",
        "  --loud             say it loud",
        "  --help             show this help and exit",
        "",
        "exit codes:",
        "   0  done",
        "   1  it said no",
        "  64  bad usage",
      ].join("\n"),
    );
  });
});
