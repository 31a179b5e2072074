/**
 * `npx h2h-certify <command> [options]`: every command of scripts/commands/ under one name, the
 * npm scripts' names for its subcommands. `--help` lists them with a line of summary each;
 * `<command> --help` is that command's own help; an unknown command is a usage error naming the
 * nearest known one. bin/h2h-certify.mjs registers tsx and runs {@link main}.
 */
import { type CliOutput, type Command, EXIT, runCli } from "./cli.ts";

/**
 * Each command by its npm script's name, imported only when it runs: a command's module loads its
 * whole layer (certify, load, bench), which `--help` alone need not pay for but to list them all.
 */
export const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  certify: async () => (await import("./commands/certify.ts")).certify as unknown as Command,
  provider: async () => (await import("./commands/provider.ts")).provider as unknown as Command,
  "provider:cleanroom": async () =>
    (await import("./commands/cleanroom-provider.ts")).cleanroomProvider as unknown as Command,
  sink: async () => (await import("./commands/sink.ts")).sink as unknown as Command,
  load: async () => (await import("./commands/load.ts")).load as unknown as Command,
  "load:build": async () => (await import("./commands/load-build.ts")).loadBuild as unknown as Command,
  mutants: async () => (await import("./commands/mutants.ts")).mutants as unknown as Command,
  compare: async () => (await import("./commands/compare.ts")).compare as unknown as Command,
  openapi: async () => (await import("./commands/openapi.ts")).openapi as unknown as Command,
  "profile:schema": async () =>
    (await import("./commands/profile-schema.ts")).profileSchema as unknown as Command,
  "stress:certify": async () =>
    (await import("./commands/stress-certify.ts")).stressCertify as unknown as Command,
  "image:provider": async () =>
    (await import("./commands/image-provider.ts")).imageProvider as unknown as Command,
  "bench:certify": async () =>
    (await import("./commands/bench-certify.ts")).benchCertify as unknown as Command,
  "bench:generate": async () =>
    (await import("./commands/bench-generate.ts")).benchGenerate as unknown as Command,
  "bench:load-overhead": async () =>
    (await import("./commands/bench-load-overhead.ts")).benchLoadOverhead as unknown as Command,
  "bench:masking": async () =>
    (await import("./commands/bench-masking.ts")).benchMasking as unknown as Command,
  "bench:provider": async () =>
    (await import("./commands/bench-provider.ts")).benchProvider as unknown as Command,
  "bench:sink": async () => (await import("./commands/bench-sink.ts")).benchSink as unknown as Command,
};

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
    "npx h2h-certify <command> --help shows a command's options, environment and exit codes.",
  ].join("\n");
}

/** Edit distance, for the known command nearest a mistyped one. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return previous[b.length] as number;
}

/** The known command nearest `name`. */
export function nearestCommand(name: string): string {
  const names = Object.keys(COMMANDS);
  return names.reduce((best, candidate) =>
    distance(name, candidate) < distance(name, best) ? candidate : best,
  ) as string;
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
  } else if (!Object.hasOwn(COMMANDS, name)) {
    output.err(
      `error: unknown command "${name}" (nearest: ${nearestCommand(name)}); npx h2h-certify --help lists them`,
    );
    code = EXIT.usage;
  } else {
    code = await runCli(await (COMMANDS[name] as () => Promise<Command>)(), rest, output);
  }
  process.exitCode = code;
  return code;
}
