/**
 * `npx h2h-certify`, the one command line: its help lists every command the npm scripts run, a
 * mistyped command is a usage error naming the nearest one, and a subcommand is the command itself
 * (its own help, through the bin in a child process, as a user runs it).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { type CliOutput, EXIT, helpText } from "./cli.ts";
import { COMMANDS, main, nearestCommand, oneLine } from "./h2h-certify.ts";

fileTimeout(60_000);

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  scripts: Record<string, string>;
  bin: Record<string, string>;
};

/** The npm scripts that run a command of scripts/ (the rest are tools: tsc, biome, vitest). */
const SCRIPT_COMMANDS = Object.entries(PACKAGE.scripts)
  .filter(([, line]) => /^exec node --import \.\/scripts\/tsx\.mjs scripts\/[\w-]+\.ts$/.test(line))
  .map(([name]) => name);

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
  it("has a subcommand for every npm script that runs a command, of that command's name", async () => {
    expect(PACKAGE.bin["h2h-certify"]).toBe("bin/h2h-certify.mjs");
    expect(SCRIPT_COMMANDS.length).toBeGreaterThan(10);
    expect(Object.keys(COMMANDS).sort()).toEqual([...SCRIPT_COMMANDS].sort());
    for (const [name, load] of Object.entries(COMMANDS)) expect((await load()).name).toBe(name);
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
    for (const name of SCRIPT_COMMANDS) {
      const summary = oneLine((await (COMMANDS[name] as () => Promise<{ summary: string }>)()).summary);
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
    expect(nearestCommand("load-build")).toBe("load:build");
    expect(nearestCommand("provider-cleanroom")).toBe("provider:cleanroom");
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
