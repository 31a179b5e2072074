/**
 * Shared plumbing of the entry points in scripts/: turn a thrown error into one clear line and
 * an exit code, never a bare stack trace.
 */
export class UsageError extends Error {}

export async function runCli(main: () => Promise<number | undefined>): Promise<void> {
  try {
    const code = await main();
    if (code !== undefined) process.exitCode = code;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`error: ${message}`);
    if (process.env.H2H_DEBUG) console.error(error);
    process.exitCode = error instanceof UsageError ? 64 : 1;
  }
}

/** A number from a flag; names the flag when it is not one. */
export function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed))
    throw new UsageError(`--${name}: "${value}" is not a number`);
  return parsed;
}
