/**
 * The one runner of every command in scripts/: it parses the arguments (node:util parseArgs),
 * answers `--help`, refuses a bad argument as a usage error naming it, turns an escaped error
 * into one clear line (never a bare stack trace), and owns the exit codes. A command is a
 * {@link defineCommand} exported by a module of scripts/commands/; scripts/h2h-certify.ts finds it.
 */
import { parseArgs } from "node:util";
import { terminalSafe } from "../contract/kit/index.ts";
import {
  environmentHelp,
  type ParseSettingsOptions,
  parseSettings,
  type RunSettings,
  SETTINGS,
  type SettingKey,
  type SettingReader,
  type SettingSpec,
} from "../run-setup/index.ts";
import { EXIT } from "./exit-codes.ts";

export { EXIT } from "./exit-codes.ts";

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Bad usage, said in `message`; exits 64. */
export class UsageError extends Error {
  override name = "UsageError";
}

export interface OptionSpec {
  /** `number` is a string option whose value must be a number. */
  type: "string" | "number" | "boolean";
  /** May be given more than once; the values come as a list. */
  multiple?: boolean;
  /** The value's placeholder in the help (`N`, `FILE`). */
  value?: string;
  /** The only values accepted. */
  choices?: readonly string[];
  /** One line of help, with the default. */
  description: string;
}

type ValueOf<Spec extends OptionSpec> = Spec["type"] extends "boolean"
  ? boolean
  : Spec["type"] extends "number"
    ? number
    : Spec["choices"] extends readonly (infer Choice)[]
      ? Choice
      : string;

/** The parsed options: each absent unless given. */
export type OptionValues<Options extends Record<string, OptionSpec>> = {
  [Name in keyof Options]?: Options[Name]["multiple"] extends true
    ? ValueOf<Options[Name]>[]
    : ValueOf<Options[Name]>;
};

type ErrorClass = abstract new (...args: never[]) => Error;

/** The arguments that are not options (files a command reads), when a command takes any. */
export interface OperandSpec {
  /** Their placeholder in the usage line (`REPORT.json…`). */
  value: string;
  /** The fewest a run needs. */
  min: number;
  /** One line of help. */
  description: string;
}

export interface Command<Options extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  /** The npm script's name (`npm run <name>`); a string literal, read without importing the module. */
  name: string;
  /** Shorter names `npx h2h-certify` also takes; a literal list, written between name and summary. */
  aliases?: readonly string[];
  /** What the command does, for the help; string literals keep `npx h2h-certify --help` from importing it. */
  summary: string;
  options: Options;
  /** Arguments that are not options; without this, any such argument is a usage error. */
  operands?: OperandSpec;
  /** Whose settings of the table (run-setup/settings-table.ts) the command reads; its help lists them. */
  settings?: SettingReader;
  /** Help lines on the variables the command reads besides the table's (K6_BIN). */
  environment?: readonly string[];
  /** What each exit code the command uses means for it (0 and 64 are implied). */
  exitCodes?: Partial<Record<ExitCode, string>>;
  /** Errors of the layers below that mean an exit code of their own (a bad profile: 64). */
  knownErrors?: readonly (readonly [ErrorClass, ExitCode])[];
  run(options: OptionValues<Options>, operands: readonly string[]): Promise<ExitCode>;
}

/** Types a command: its options' types flow into `run`. */
export function defineCommand<const Options extends Record<string, OptionSpec>>(
  command: Command<Options>,
): Command<Options> {
  return command;
}

/** Where a command's own lines go; tests hand in their own. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

const CONSOLE: CliOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };

const HELP_OPTION: OptionSpec = { type: "boolean", description: "show this help and exit" };

/** The usage line of a command's help: `usage: npm run <name> -- [options] OPERANDS`. */
export function usageLine(command: Command): string {
  const operands = command.operands ? ` ${command.operands.value}` : "";
  const options = Object.keys(command.options).length > 0 ? " [options]" : "";
  return `usage: npm run ${command.name}${options || operands ? ` --${options}${operands}` : " [-- --help]"}`;
}

/** An option as the help writes it: `--seed N`, `--format text|json`, `--list-checks`. */
export function flagText(name: string, spec: OptionSpec): string {
  const placeholder = spec.value ?? spec.choices?.join("|") ?? (spec.type === "number" ? "N" : "VALUE");
  return `--${name}${spec.type === "boolean" ? "" : ` ${placeholder}`}`;
}

/** The help: usage, summary, options, environment, exit codes. */
export function helpText(command: Command): string {
  const options = { ...command.options, help: HELP_OPTION };
  const flags = Object.entries(options).map(
    ([name, spec]) => [flagText(name, spec), spec.description] as const,
  );
  const width = Math.max(...flags.map(([flag]) => flag.length), command.operands?.value.length ?? 0) + 2;
  // Integer keys iterate in ascending order: the codes come out sorted.
  const exitCodes = { [EXIT.ok]: "done", [EXIT.usage]: "bad usage", ...command.exitCodes };
  return [
    usageLine(command),
    "",
    command.summary,
    "",
    ...(command.operands
      ? ["arguments:", `  ${command.operands.value.padEnd(width)}${command.operands.description}`, ""]
      : []),
    "options:",
    ...flags.map(([flag, description]) => `  ${flag.padEnd(width)}${description}`),
    ...environmentSection(command),
    "",
    "exit codes:",
    ...Object.entries(exitCodes).map(([code, meaning]) => `  ${code.padStart(2)}  ${meaning}`),
  ].join("\n");
}

/** The table's settings the command reads (H2H_DEBUG with them), then its own lines. */
function environmentSection(command: Command): string[] {
  const table = command.settings === undefined ? [] : environmentHelp(command.settings);
  const lines = [...table, ...(command.environment ?? [])];
  return lines.length > 0 ? ["", "environment:", ...lines.map((line) => `  ${line}`)] : [];
}

/** An option of a setting of the table: its help, and that it wins over the variable. */
export function settingOption<const Key extends SettingKey>(key: Key, value?: string) {
  const spec: SettingSpec = SETTINGS[key];
  const plain = (text: string) => text.replace(/`/g, "");
  return {
    type: "string",
    value: value ?? spec.flagValue ?? "VALUE",
    description: `${plain(spec.help)} (default: ${spec.variable}, else ${plain(spec.defaultText)})`,
  } as const;
}

/** The table's settings whose flag `command` has (and parses itself: not the k6 scripts'). */
function flaggedSettings(command: SettingReader): [SettingKey, string][] {
  return (Object.keys(SETTINGS) as SettingKey[]).flatMap((key) => {
    const spec: SettingSpec = SETTINGS[key];
    const has = spec.flag !== undefined && (spec.flagIn ?? spec.readBy).includes(command);
    return has && spec.parsedBy === undefined ? [[key, spec.flag as string] as [SettingKey, string]] : [];
  });
}

/**
 * The options of every flag of the table `command` has: a row with `flag` and the command in
 * `readBy` is an option of it, with no line in the command's module.
 */
export function settingOptions(command: SettingReader): Record<string, OptionSpec> {
  return Object.fromEntries(flaggedSettings(command).map(([key, flag]) => [flag, settingOption(key)]));
}

/** The table's flags among a command's parsed options, by setting, for {@link commandSettings}. */
export function settingFlags(
  command: SettingReader,
  options: Readonly<Record<string, unknown>>,
): NonNullable<ParseSettingsOptions["flags"]> {
  return Object.fromEntries(
    flaggedSettings(command).map(([key, flag]) => [key, options[flag] as string | undefined]),
  );
}

/**
 * A command's settings, from this process's environment and the flags given: the one place an
 * npm script reads H2H_* variables. A bad value is a SettingsError naming it (exit 64).
 */
export function commandSettings(
  command: SettingReader,
  flags: ParseSettingsOptions["flags"] = {},
): RunSettings {
  return parseSettings(process.env, { command, flags });
}

type Parsed<Options extends Record<string, OptionSpec>> = {
  options: OptionValues<Options>;
  operands: string[];
  help?: boolean;
};

/** Parses argv against the command's options and operands; a bad argument is a UsageError naming it. */
function parseOptions<Options extends Record<string, OptionSpec>>(
  command: Command<Options>,
  argv: readonly string[],
): Parsed<Options> {
  const config = Object.fromEntries(
    Object.entries({ ...command.options, help: HELP_OPTION }).map(([name, spec]) => [
      name,
      {
        type: spec.type === "boolean" ? ("boolean" as const) : ("string" as const),
        multiple: spec.multiple ?? false,
      },
    ]),
  );
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: negativeValuesJoined(command, argv),
      options: config,
      strict: true,
      allowPositionals: command.operands !== undefined,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  // --help wins over whatever else is wrong with the arguments.
  if (values.help) return { options: {}, operands: [], help: true };
  const parsed: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(values)) {
    const spec = name === "help" ? HELP_OPTION : (command.options[name] as OptionSpec);
    const convert = (value: string | boolean) => {
      if (typeof value === "boolean") return value;
      if (spec.choices && !spec.choices.includes(value))
        throw new UsageError(`--${name} ${value}: must be one of ${spec.choices.join(", ")}`);
      return spec.type === "number" ? numberFlag(name, value) : value;
    };
    parsed[name] = Array.isArray(raw) ? raw.map(convert) : raw === undefined ? undefined : convert(raw);
  }
  const operands = command.operands;
  if (operands && positionals.length < operands.min)
    throw new UsageError(
      `give at least ${operands.min} ${operands.value} (${operands.description}); got ${positionals.length}`,
    );
  return { options: parsed as OptionValues<Options>, operands: positionals };
}

/**
 * `--deadline -1` as `--deadline=-1`: parseArgs takes a value starting with a dash for an option
 * and calls it "ambiguous"; joined, {@link numberFlag} or the table's parser (`--seed`) refuses it by name.
 */
function negativeValuesJoined(command: Command, argv: readonly string[]): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    const type = name === undefined ? undefined : command.options[name]?.type;
    if (type !== undefined && type !== "boolean" && next !== undefined && /^-[\d.]/.test(next)) {
      args.push(`${arg}=${next}`);
      i++;
    } else args.push(arg);
  }
  return args;
}

/** A number from an option's value; names the option when it is not one. */
export function numberFlag(name: string, value: string): number {
  // No number option takes a negative value.
  if (/^\s*-/.test(value))
    throw new UsageError(`--${name} ${value}: must not be negative (decimal digits, e.g. --${name} 12)`);
  // Plain decimal notation only: Number() would take 0x10 as 16, 1e2 as 100 and "" as 0.
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value.trim()))
    throw new UsageError(`--${name}: "${value}" is not a number (decimal digits, e.g. 12 or 2.5)`);
  return Number(value);
}

/** A comma-separated list of numbers (`--callback-retries 100,200`); an empty one is no item. */
export function numberListFlag(name: string, value: string): number[] {
  return value === "" ? [] : value.split(",").map((part) => numberFlag(name, part));
}

/** The options of a command that starts a server: where it listens. */
export const LISTEN_OPTIONS = {
  port: { type: "number", description: "port to listen on (default: a free port)" },
  host: { type: "string", value: "ADDR", description: "address to listen on (default: 127.0.0.1)" },
} as const satisfies Record<string, OptionSpec>;

/**
 * Runs a command with the process's arguments: `--help` prints the help (exit 0); a usage error
 * prints the message and the usage line (exit 64); an error the command knows gets its exit code,
 * any other error exit 1 (with the stack under H2H_DEBUG). Sets and returns the exit code.
 */
export async function runCli<Options extends Record<string, OptionSpec>>(
  command: Command<Options>,
  argv: readonly string[] = process.argv.slice(2),
  output: CliOutput = CONSOLE,
): Promise<number> {
  const code = await exitCodeOf(command, argv, output);
  process.exitCode = code;
  return code;
}

async function exitCodeOf<Options extends Record<string, OptionSpec>>(
  command: Command<Options>,
  argv: readonly string[],
  output: CliOutput,
): Promise<number> {
  try {
    const { help, options, operands } = parseOptions(command, argv);
    if (help) {
      output.out(helpText(command as unknown as Command));
      return EXIT.ok;
    }
    return await command.run(options, operands);
  } catch (error) {
    // A message may quote what a target or a file said: control characters escaped.
    const message = (error instanceof Error ? error.message : String(error))
      .split("\n")
      .map((line) => terminalSafe(line, 2_000))
      .join("\n");
    if (error instanceof UsageError) {
      output.err(`error: ${message}`);
      output.err(`${usageLine(command as unknown as Command)}  (--help for details)`);
      return EXIT.usage;
    }
    output.err(`error: ${message}`);
    const known = command.knownErrors?.find(([type]) => error instanceof type);
    if (known) return known[1];
    if (process.env[SETTINGS.debug.variable]?.trim())
      output.err(String(error instanceof Error ? error.stack : error));
    return EXIT.failed;
  }
}
