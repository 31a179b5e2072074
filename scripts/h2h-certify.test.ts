/**
 * `npx h2h-certify`, the one command line: it finds every command in scripts/commands/ (each
 * exported defineCommand, and nothing else), every npm script runs it by `exec`, its help lists
 * every command without importing one, a mistyped command is a usage error naming the nearest
 * one, and a subcommand is the command itself (its own help, in a child process, as a user runs it).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { type CliOutput, type Command, EXIT, helpText } from "./cli.ts";
import { commandEntries, literalAt, loadCommands, main, nearestCommand, oneLine } from "./h2h-certify.ts";

fileTimeout(60_000);

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  scripts: Record<string, string>;
  bin: Record<string, string>;
};

/** The npm scripts that run a command (the rest are tools: tsc, biome, vitest), by the command they name. */
const SCRIPT_COMMANDS = Object.entries(PACKAGE.scripts).flatMap(([name, line]) => {
  const command = /^exec node bin\/h2h-certify\.mjs ([\w:-]+)$/.exec(line)?.[1];
  return command ? [{ name, command }] : [];
});

/** Every exported command of every module in scripts/commands/, imported: what the scan must find. */
async function exportedCommands(): Promise<Command[]> {
  const files = readdirSync(new URL("./commands/", import.meta.url)).filter(
    (file) => file.endsWith(".ts") && !file.endsWith(".test.ts"),
  );
  const modules = await Promise.all(
    files.map((file) => import(new URL(`./commands/${file}`, import.meta.url).href) as Promise<object>),
  );
  return modules.flatMap((module) =>
    Object.values(module).filter(
      (value): value is Command =>
        typeof value === "object" &&
        value !== null &&
        typeof (value as Command).name === "string" &&
        typeof (value as Command).run === "function",
    ),
  );
}

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");

function capture(): CliOutput & { out: (line: string) => void; stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (line) => stdout.push(line), err: (line) => stderr.push(line) };
}

/** `npx h2h-certify ARGS` from the checkout, in a child process. */
function npx(args: string[]): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("npx", ["--no-install", "h2h-certify", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("exit", (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}

describe("npx h2h-certify", () => {
  it("finds every command exported by scripts/commands/, by the name its definition gives", async () => {
    const found = commandEntries();
    const exported = await exportedCommands();
    expect(exported.length).toBeGreaterThan(10);
    expect(found.map((entry) => entry.name).sort()).toEqual(exported.map((command) => command.name).sort());
    const loaded = await loadCommands();
    for (const [i, entry] of found.entries()) {
      const command = loaded[i] as Command;
      expect(command.name).toBe(entry.name);
      expect(entry.aliases, entry.name).toEqual(command.aliases ?? []);
    }
  });

  it("lists every command without importing it: each summary's line is read from its module's text", async () => {
    const loaded = await loadCommands();
    for (const [i, entry] of commandEntries().entries()) {
      const summary = (loaded[i] as Command).summary;
      // Undefined would make --help import the command's whole layer; a literal summary keeps it fast.
      expect(entry.line, `${entry.file}: write the summary's first clause as string literals`).toBe(
        oneLine(summary),
      );
    }
  });

  it("is what every npm script of a command runs, by exec (signals reach the command), by its own name", () => {
    expect(PACKAGE.bin["h2h-certify"]).toBe("bin/h2h-certify.mjs");
    for (const { name, command } of SCRIPT_COMMANDS) expect(command).toBe(name);
    expect(SCRIPT_COMMANDS.map((script) => script.name).sort()).toEqual(
      commandEntries()
        .map((entry) => entry.name)
        .sort(),
    );
    // No script runs a command any other way (a wrapper file, a shell in between).
    const others = Object.entries(PACKAGE.scripts).filter(
      ([name, line]) =>
        /bin\/h2h-certify|scripts\/[\w-]+\.ts/.test(line) && !SCRIPT_COMMANDS.some((s) => s.name === name),
    );
    expect(others).toEqual([]);
  });

  it("reads a summary's literals with their escapes, and stops at the first placeholder", () => {
    const text = 'summary: "a \\"b\\"\\n" + \'c\\\'d\' +\n  `e \u0024{f} g`,';
    const from = text.indexOf('"');
    expect(literalAt(text, from)).toEqual({ value: 'a "b"\nc\'de ', whole: false });
    expect(literalAt('"one" + "two",', 0)).toEqual({ value: "onetwo", whole: true });
    expect(literalAt("SUMMARY,", 0)).toEqual({ value: "", whole: false });
  });

  it("answers to an alias as to its command: receiver is certify:receiver", async () => {
    const output = capture();
    expect(await main(["receiver", "--help"], output)).toBe(EXIT.ok);
    expect(output.stdout.join("\n")).toMatch(/certify:receiver/);
    expect(output.stdout.join("\n")).toMatch(/H2H_RECEIVER_URL/);
  });

  it("lists every command with its summary on one line under --help, exit 0", async () => {
    const output = capture();
    expect(await main(["--help"], output)).toBe(EXIT.ok);
    expect(output.stderr).toEqual([]);
    const lines = output.stdout.join("\n").split("\n");
    expect(lines[0]).toBe("usage: npx h2h-certify <command> [options]");
    for (const command of await loadCommands()) {
      const { name } = command;
      const summary = oneLine(command.summary);
      expect(lines).toContainEqual(
        expect.stringMatching(new RegExp(`^  ${name} +${escapeRegExp(summary)}$`)),
      );
    }
  });

  it("refuses no command with the list on stderr, exit 64", async () => {
    const output = capture();
    expect(await main([], output)).toBe(EXIT.usage);
    expect(output.stdout).toEqual([]);
    expect(output.stderr.join("\n")).toMatch(/^usage: npx h2h-certify <command> \[options\]\n/);
  });

  it("refuses an unknown command in one line naming it and the nearest command, exit 64", async () => {
    const output = capture();
    expect(await main(["certfy", "--help"], output)).toBe(EXIT.usage);
    expect(output.stdout).toEqual([]);
    expect(output.stderr).toEqual([
      'error: unknown command "certfy" (nearest: certify); npx h2h-certify --help lists them',
    ]);
    expect(await nearestCommand("load-build")).toBe("load:build");
    expect(await nearestCommand("provider-cleanroom")).toBe("provider:cleanroom");
  });

  it("cuts a summary to its first clause, outside parentheses, and a long one at a word", () => {
    expect(oneLine("Starts it (on a port: any)\nand prints it; Ctrl-C stops it.")).toBe(
      "Starts it (on a port: any) and prints it",
    );
    expect(oneLine("Writes the h2h-certify.json report.")).toBe("Writes the h2h-certify.json report");
    const long = oneLine(`${"word ".repeat(40)}end.`);
    expect(long.length).toBeLessThanOrEqual(90);
    expect(long).toMatch(/word…$/);
  });

  it("runs a subcommand as the command itself: certify --help, and a mistyped one, in a child", async () => {
    const [help, unknown] = await Promise.all([npx(["certify", "--help"]), npx(["certfy"])]);
    const { certify } = await import("./commands/certify.ts");
    expect(help.stderr).toBe("");
    expect(help.stdout).toBe(`${helpText(certify as never)}\n`);
    expect(help.exitCode).toBe(EXIT.ok);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toBe(
      'error: unknown command "certfy" (nearest: certify); npx h2h-certify --help lists them\n',
    );
    expect(unknown.exitCode).toBe(EXIT.usage);
  });
});
