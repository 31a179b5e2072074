/**
 * `npx h2h-certify <command> [options]`: every command of scripts/commands/ under one name, the
 * npm scripts' names for its subcommands. `--help` lists them with a line of summary each;
 * `<command> --help` is that command's own help; an unknown command is a usage error naming the
 * nearest known one. bin/h2h-certify.mjs registers tsx and runs {@link main}.
 */
import { nearestName } from "../contract/index.ts";
import { type CliOutput, type Command, EXIT, runCli } from "./cli.ts";

/** Each command by its npm script's name, and the module of scripts/commands/ that defines it. */
const COMMAND_MODULES: Readonly<Record<string, string>> = {
  certify: "certify",
  "certify:receiver": "certify-receiver",
  provider: "provider",
  "provider:cleanroom": "cleanroom-provider",
  "provider:everyday": "everyday-provider",
  sink: "sink",
  observe: "observe",
  load: "load",
  "load:build": "load-build",
  mutants: "mutants",
  compare: "compare",
  openapi: "openapi",
  "profile:schema": "profile-schema",
  "stress:certify": "stress-certify",
  "image:provider": "image-provider",
  "bench:certify": "bench-certify",
  "bench:generate": "bench-generate",
  "bench:load-overhead": "bench-load-overhead",
  "bench:masking": "bench-masking",
  "bench:provider": "bench-provider",
  "bench:sink": "bench-sink",
  "bench:observe": "bench-observe",
};

/** Shorter names a command also answers to: `npx h2h-certify receiver`. */
export const ALIASES: Readonly<Record<string, string>> = { receiver: "certify:receiver" };

/** A module's command: the exported `defineCommand` of that name. */
function commandIn(module: Record<string, unknown>, name: string): Command {
  const found = Object.values(module).find(
    (value) => typeof value === "object" && value !== null && (value as { name?: unknown }).name === name,
  );
  if (!found)
    throw new Error(`scripts/commands/${COMMAND_MODULES[name]}.ts exports no command named ${name}`);
  return found as Command;
}

/**
 * Each command by its npm script's name, imported only when it runs: a command's module loads its
 * whole layer (certify, load, bench), which `--help` alone need not pay for but to list them all.
 */
export const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = Object.fromEntries(
  Object.entries(COMMAND_MODULES).map(([name, file]) => [
    name,
    async () => commandIn(await import(`./commands/${file}.ts`), name),
  ]),
);

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

/** The list of commands with their summaries. */
export async function commandList(): Promise<string> {
  const names = Object.keys(COMMANDS);
  const commands = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  const width = Math.max(...names.map((name) => name.length)) + 2;
  return [
    USAGE,
    "",
    "Certifies a payment provider's host-to-host pay-in API: contract, callbacks and load.",
    "Each command is also `npm run <command> -- [options]`.",
    "",
    "commands:",
    ...commands.map((command, i) => `  ${(names[i] as string).padEnd(width)}${oneLine(command.summary)}`),
    "",
    `aliases: ${Object.entries(ALIASES)
      .map(([alias, command]) => `${alias} (${command})`)
      .join(", ")}`,
    "npx h2h-certify <command> --help shows a command's options, environment and exit codes.",
  ].join("\n");
}

/** The known command nearest `name`, when one is near. */
export function nearestCommand(name: string): string | undefined {
  return nearestName(name, Object.keys(COMMANDS));
}

const CONSOLE: CliOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** Runs `h2h-certify` with its arguments; sets and returns the exit code. */
export async function main(
  argv: readonly string[] = process.argv.slice(2),
  output: CliOutput = CONSOLE,
): Promise<number> {
  const [given, ...rest] = argv;
  const name = given !== undefined && Object.hasOwn(ALIASES, given) ? ALIASES[given] : given;
  let code: number;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    // No command at all is bad usage: the list goes to stderr, exit 64.
    const list = await commandList();
    if (name === undefined) output.err(list);
    else output.out(list);
    code = name === undefined ? EXIT.usage : EXIT.ok;
  } else if (!Object.hasOwn(COMMANDS, name)) {
    const nearest = nearestCommand(name);
    output.err(
      `error: unknown command "${name}"${nearest ? ` (nearest: ${nearest})` : ""}; npx h2h-certify --help lists them`,
    );
    code = EXIT.usage;
  } else {
    code = await runCli(await (COMMANDS[name] as () => Promise<Command>)(), rest, output);
  }
  process.exitCode = code;
  return code;
}
