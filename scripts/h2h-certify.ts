/**
 * `npx h2h-certify <command> [options]` (and every `npm run <command>`): every command of
 * scripts/commands/ under one name. A command is an exported `defineCommand({ name, summary, … })`
 * in a module of that folder: nothing else lists it. `--help` lists them with a line of summary
 * each; `<command> --help` is that command's own help; an unknown command is a usage error naming
 * the nearest known one. bin/h2h-certify.mjs registers tsx and runs {@link main}.
 */
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
// Types only: cli.ts loads the settings table and the contract, which `--help` need not pay for.
import type { CliOutput, Command } from "./cli.ts";
import { EXIT } from "./exit-codes.ts";

const COMMANDS_DIR = new URL("./commands/", import.meta.url);

/** A command as its module's text declares it, read without importing the module. */
export interface CommandEntry {
  /** The npm script's name (`npm run <name>`). */
  name: string;
  /** Shorter names it also answers to (`npx h2h-certify receiver`). */
  aliases: readonly string[];
  /** Its module in scripts/commands/. */
  file: string;
  /**
   * Its summary's line in the list, read from string literals (up to a `${}`); undefined when the
   * text does not settle it, and the list imports the module.
   */
  line: string | undefined;
}

/**
 * The head of a definition as the commands write it: name, then aliases, then summary. Read from
 * the text because importing a command loads its whole layer (certify, load, bench); compiled and
 * bundled, the definition reads `var name = defineCommand({`.
 */
const DEFINITION =
  /(?:export )?(?:const|var|let) \w+ = defineCommand\(\{\s*name:\s*"([^"\\]+)",\s*(?:aliases:\s*\[([^\]]*)\],\s*)?summary:\s*/g;

/**
 * The text of `"a" + "b" + \`c\`` at `from`, up to the first `${}` or anything not a literal;
 * `whole` says whether it is the whole expression.
 */
export function literalAt(text: string, from: number): { value: string; whole: boolean } {
  let value = "";
  let at = from;
  for (;;) {
    const quote = text[at];
    if (quote !== '"' && quote !== "'" && quote !== "`") return { value, whole: false };
    let end = at + 1;
    while (end < text.length && text[end] !== quote) end += text[end] === "\\" ? 2 : 1;
    const body = text.slice(at + 1, end);
    const placeholder = quote === "`" ? body.indexOf("${") : -1;
    value += unescaped(placeholder === -1 ? body : body.slice(0, placeholder));
    if (placeholder !== -1) return { value, whole: false };
    at = end + 1;
    const next = /^\s*\+\s*/.exec(text.slice(at));
    if (!next) return { value, whole: true };
    at += next[0].length;
  }
}

/** A literal's body with its escapes read (\n, \", \\ and the like). */
function unescaped(body: string): string {
  return body.replace(/\\(u\{[\da-fA-F]+\}|u[\da-fA-F]{4}|x[\da-fA-F]{2}|.)/gs, (_, code: string) => {
    if (code.startsWith("u{")) return String.fromCodePoint(Number.parseInt(code.slice(2, -1), 16));
    if (code.length > 1) return String.fromCharCode(Number.parseInt(code.slice(1), 16));
    return { n: "\n", t: "\t", r: "\r", "0": "\0" }[code] ?? code;
  });
}

/**
 * The list's line of a summary whose text is known up to `prefix`: {@link oneLine} of it, when
 * the rest cannot change it (its first clause ends, or runs past the width, within the prefix).
 */
export function lineOf(prefix: string, whole: boolean): string | undefined {
  if (whole) return oneLine(prefix);
  const line = oneLine(prefix);
  // The prefix's own end is no clause's end: what follows it is unknown.
  const settled = line.length < prefix.replace(/\s+/g, " ").trim().length || line.endsWith("…");
  return settled ? line : undefined;
}

/** Every command of scripts/commands/, by name, from the modules' text: no module is imported. */
export function commandEntries(): readonly CommandEntry[] {
  const entries: CommandEntry[] = [];
  const files = readdirSync(COMMANDS_DIR)
    // TypeScript in a checkout; in the installed package, the compiled .js (not its .d.ts).
    .filter((file) => /\.[jt]s$/.test(file) && !/\.(test|d)\.ts$/.test(file))
    .sort();
  for (const file of files) {
    const text = readFileSync(new URL(file, COMMANDS_DIR), "utf8");
    for (const match of text.matchAll(DEFINITION)) {
      const aliases = (match[2] ?? "")
        .split(",")
        .map((alias) => alias.trim().replace(/^"|"$/g, ""))
        .filter(Boolean);
      const { value, whole } = literalAt(text, (match.index ?? 0) + match[0].length);
      entries.push({ name: match[1] as string, aliases, file, line: lineOf(value, whole) });
    }
  }
  return entries.sort((a, b) => a.name.localeCompare(b.name));
}

/** The entry a name or alias stands for. */
function entryOf(name: string): CommandEntry | undefined {
  return commandEntries().find((entry) => entry.name === name || entry.aliases.includes(name));
}

/** The command of an entry: its module imported, and the exported definition of that name. */
export async function loadCommand(entry: CommandEntry): Promise<Command> {
  const module = (await import(new URL(entry.file, COMMANDS_DIR).href)) as Record<string, unknown>;
  const found = Object.values(module).find(
    (value) =>
      typeof value === "object" && value !== null && (value as { name?: unknown }).name === entry.name,
  );
  if (!found) throw new Error(`scripts/commands/${entry.file} exports no command named ${entry.name}`);
  return found as Command;
}

/** Every command, imported: for docs/commands.md and the tests, never for `--help`. */
export async function loadCommands(): Promise<Command[]> {
  return Promise.all(commandEntries().map(loadCommand));
}

const USAGE = "usage: npx h2h-certify <command> [options]";

/** How long a summary may be in the list: with the names, about a terminal's width. */
const SUMMARY_WIDTH = 90;

/**
 * A summary on one line, for the list: its first clause (up to a `.`, `;` or `:` outside
 * parentheses), cut at a word with `…` when still longer than {@link SUMMARY_WIDTH}.
 */
export function oneLine(summary: string): string {
  const flat = summary.replace(/\s+/g, " ").trim();
  let depth = 0;
  let end = flat.length;
  for (let i = 0; i < flat.length; i++) {
    const c = flat[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === "." || c === ";" || c === ":") && /\s/.test(flat[i + 1] ?? " ")) {
      end = i;
      break;
    }
  }
  const clause = flat.slice(0, end);
  if (clause.length <= SUMMARY_WIDTH) return clause;
  const cut = clause.lastIndexOf(" ", SUMMARY_WIDTH - 1);
  return `${clause.slice(0, cut > 0 ? cut : SUMMARY_WIDTH - 1).replace(/[,\s]+$/, "")}…`;
}

/** The list of commands with their summaries; only a summary the text does not settle imports its module. */
export async function commandList(): Promise<string> {
  const entries = commandEntries();
  const lines = await Promise.all(
    entries.map(async (entry) => entry.line ?? oneLine((await loadCommand(entry)).summary)),
  );
  const width = Math.max(...entries.map((entry) => entry.name.length)) + 2;
  const aliases = entries.flatMap((entry) => entry.aliases.map((alias) => `${alias} (${entry.name})`));
  return [
    USAGE,
    "",
    "Certifies a payment provider's host-to-host pay-in API: contract, callbacks and load.",
    "Each command is also `npm run <command> -- [options]`.",
    "",
    "commands:",
    ...entries.map((entry, i) => `  ${entry.name.padEnd(width)}${lines[i]}`),
    "",
    ...(aliases.length > 0 ? [`aliases: ${aliases.join(", ")}`] : []),
    "npx h2h-certify <command> --help shows a command's options, environment and exit codes.",
  ].join("\n");
}

/** The known command nearest `name`, when one is near. */
export async function nearestCommand(name: string): Promise<string | undefined> {
  const { nearestName } = await import("../contract/index.ts");
  return nearestName(
    name,
    commandEntries().map((entry) => entry.name),
  );
}

const CONSOLE: CliOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** Runs `h2h-certify` with its arguments; sets and returns the exit code. */
export async function main(
  argv: readonly string[] = process.argv.slice(2),
  output: CliOutput = CONSOLE,
): Promise<number> {
  const [name, ...rest] = argv;
  let code: number;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    // No command at all is bad usage: the list goes to stderr, exit 64.
    const list = await commandList();
    if (name === undefined) output.err(list);
    else output.out(list);
    code = name === undefined ? EXIT.usage : EXIT.ok;
  } else {
    const entry = entryOf(name);
    if (!entry) {
      const nearest = await nearestCommand(name);
      output.err(
        `error: unknown command "${name}"${nearest ? ` (nearest: ${nearest})` : ""}; npx h2h-certify --help lists them`,
      );
      code = EXIT.usage;
    } else {
      const [command, { runCli }] = await Promise.all([loadCommand(entry), import("./cli.ts")]);
      code = await runCli(command, rest, output);
    }
  }
  process.exitCode = code;
  return code;
}

// Run itself (`node dist/scripts/h2h-certify.js <command>`, the compiled dispatcher in a checkout,
// which bench:certify times); the bin imports it and calls main.
function runsItself(): boolean {
  try {
    return realpathSync(process.argv[1] ?? "") === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}
if (runsItself()) await main();
