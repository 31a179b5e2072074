/**
 * docs/commands.md's reference of every command, generated from the command definitions of
 * scripts/commands/ as docs/environment.md's table is from the settings table: the options, the
 * settings and the exit codes are written once, in the definition. `npm run docs` rewrites both.
 */
import { SETTINGS, type SettingSpec } from "../run-setup/index.ts";
import { type Command, EXIT, flagText, usageLine } from "./cli.ts";

const DOCS_START = "<!-- commands:start -->";
const DOCS_END = "<!-- commands:end -->";

const cell = (text: string) => text.replace(/\s+/g, " ").trim().replaceAll("|", "\\|");

/** A definition's text as Markdown: file paths and commands in it are left as the help says them. */
const prose = (text: string) => text.replace(/\s+/g, " ").trim();

/** The table's variables a command reads (its help's environment section, by name). */
function variablesOf(command: Command): string[] {
  const reader = command.settings;
  if (reader === undefined) return [];
  return (Object.values(SETTINGS) as SettingSpec[])
    .filter(
      (spec) =>
        (spec.readBy.includes(reader) || spec.readBy.includes("every command")) &&
        spec.parsedBy === undefined,
    )
    .map((spec) => `\`${spec.variable}\``);
}

/** One command's section: usage, summary, options, settings, exit codes. */
function section(command: Command): string[] {
  const aliases = command.aliases?.length
    ? ` (also \`npx h2h-certify ${command.aliases.join("`, `npx h2h-certify ")}\`)`
    : "";
  const options = Object.entries(command.options);
  const variables = variablesOf(command);
  const exitCodes = { [EXIT.ok]: "done", [EXIT.usage]: "bad usage", ...command.exitCodes };
  return [
    `### ${command.name}`,
    "",
    `\`${usageLine(command).replace(/^usage: /, "")}\`, or \`npx h2h-certify ${command.name}\`${aliases}`,
    "",
    prose(command.summary),
    "",
    ...(command.operands
      ? [`Arguments: \`${command.operands.value}\`, ${prose(command.operands.description)}.`, ""]
      : []),
    ...(options.length > 0
      ? [
          "| option | meaning |",
          "|---|---|",
          ...options.map(
            ([name, spec]) => `| \`${cell(flagText(name, spec))}\` | ${cell(spec.description)} |`,
          ),
          "",
        ]
      : []),
    ...(variables.length > 0
      ? [`Settings ([environment.md](environment.md)): ${variables.join(", ")}.`, ""]
      : []),
    ...(command.environment?.length
      ? [`Also reads: ${command.environment.map((line) => prose(line)).join("; ")}.`, ""]
      : []),
    `Exit codes: ${Object.entries(exitCodes)
      .map(([code, meaning]) => `\`${code}\` ${prose(meaning)}`)
      .join("; ")}.`,
  ];
}

/** docs/commands.md's reference block: every command, by name. */
export function commandsMarkdown(commands: readonly Command[]): string {
  return [...commands]
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((command, i) => [...(i > 0 ? [""] : []), ...section(command)])
    .join("\n");
}

/** docs/commands.md with its commands block replaced by the definitions'; the rest as it is. */
export function withCommandsReference(doc: string, commands: readonly Command[]): string {
  const start = doc.indexOf(DOCS_START);
  const end = doc.indexOf(DOCS_END);
  if (start === -1 || end < start) throw new Error(`no ${DOCS_START} … ${DOCS_END} block`);
  return `${doc.slice(0, start + DOCS_START.length)}\n${commandsMarkdown(commands)}\n${doc.slice(end)}`;
}
