/** The exit codes of every command, apart from cli.ts so that `npx h2h-certify --help` loads nothing more. */

/** The exit codes of every command; README.md "Exit codes" documents them. */
export const EXIT = {
  /** Done; for a command with a verdict, the verdict is positive. */
  ok: 0,
  /** The verdict is negative (not conformant, a target or threshold missed), or the command failed. */
  failed: 1,
  /** The target could not be judged (unreachable, a spec that did not load). */
  notJudged: 2,
  /** A tool the command needs is not installed (k6); nothing was written. */
  missingTool: 3,
  /** The verdict is partial: no required check failed, but part of the contract was not judged. */
  partial: 4,
  /** Bad usage: an unknown option, a bad value, a bad profile or environment variable. */
  usage: 64,
} as const;
