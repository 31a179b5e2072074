/**
 * Clean terminals: every console line certify prints may carry a target's text (a
 * check's detail, an error, a body excerpt). Control characters are shown escaped (`\x1b`, `\r`,
 * `\x07`), so a target can neither paint a fake verdict, move the cursor, nor retitle the terminal,
 * and a line is shortened. certify prints no colour codes of its own.
 */
import { terminalSafe } from "../../contract/kit/index.ts";

/** The longest console line certify prints; a longer one (a huge body excerpt) ends in "…". */
export const MAX_CONSOLE_LINE = 2_000;

/** One line as it may reach the terminal: masked by the caller, made safe and shortened here. */
export function consoleLine(line: string): string {
  return terminalSafe(line, MAX_CONSOLE_LINE);
}
