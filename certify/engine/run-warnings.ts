/**
 * Warnings of a run: what the reader must know although no check failed for it (the sandbox
 * clock the profile declares did not answer, so the suite waited instead). Spec workers append
 * them to a file of their own in the run directory, as they do exchanges; certify reads them all
 * after the run, prints them and puts them in every report. The same warning twice is one.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { appendRecord } from "../../contract/index.ts";

const WARNING_FILE = /^warnings-.+\.jsonl$/;

/**
 * Appends a warning for the runner to report (synchronous, like the exchange recorder); a full
 * disk marks the file instead of failing the spec (the runner reports the loss).
 */
export function recordWarning(runDir: string, warning: string): void {
  appendRecord(join(runDir, `warnings-${process.pid}.jsonl`), `${JSON.stringify({ warning })}\n`);
}

/** Every distinct warning recorded in a run directory, in the order first recorded. */
export function readWarnings(runDir: string): string[] {
  if (!existsSync(runDir)) return [];
  const warnings = new Set<string>();
  for (const name of readdirSync(runDir)
    .filter((n) => WARNING_FILE.test(n))
    .sort()) {
    for (const line of readFileSync(join(runDir, name), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      try {
        warnings.add((JSON.parse(line) as { warning: string }).warning);
      } catch {
        // A line torn by a full disk: the file is marked (readWriteFailures), and the run says so.
      }
    }
  }
  return [...warnings];
}
