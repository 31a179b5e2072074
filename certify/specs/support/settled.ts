/**
 * Work a whole spec file shares (a top-level beforeAll) must not fail the file: a failure there
 * would hide every check behind one file error. It is kept instead, and each check that needs the
 * result fails with it, by name, in the report.
 */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: Error };

export async function settle<T>(work: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
  }
}

/** The value, or the error the work failed with (thrown). */
export function settledValue<T>(settled: Settled<T> | undefined, what: string): T {
  if (settled === undefined) throw new Error(`${what} did not run`);
  if (!settled.ok) throw settled.error;
  return settled.value;
}
