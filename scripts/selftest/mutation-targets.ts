/**
 * Which spec files a mutant needs: the ones that hold the checks its fault names. The map from
 * check to spec file is learnt from a clean certification's own records (each record names the
 * spec file it came from), so it follows the specs as they are, with no list to keep by hand.
 */
import { readdirSync } from "node:fs";
import { basename, join, relative } from "node:path";
import type { CheckRecord, RunTimings } from "../../certify/index.ts";

/** The source of the checks certify runs itself, over every exchange of the run. */
const RUN_WIDE_SOURCE = "runner";

/** check name → the spec files (basenames) whose tests ran it; run-wide checks map to "runner". */
export type SpecFilesByCheck = ReadonlyMap<string, ReadonlySet<string>>;

export function specFilesByCheck(
  records: readonly Pick<CheckRecord, "check" | "source">[],
): SpecFilesByCheck {
  const byCheck = new Map<string, Set<string>>();
  for (const { check, source } of records) {
    const files = byCheck.get(check) ?? new Set<string>();
    files.add(source);
    byCheck.set(check, files);
  }
  return byCheck;
}

export type MutantTarget =
  /** Only these spec files (basenames). */
  | { kind: "files"; files: string[] }
  /** Every spec file, and why targeting was not possible. */
  | { kind: "all"; reason: string };

/**
 * The spec files a fault's checks live in. A run-wide check (the runner's) judges the exchanges
 * of whatever spec files run: the files of the fault's other checks make the requests it judges;
 * with no such check, the files the fault says its answers are met in (`shownIn`), else every file.
 * A check no clean run recorded cannot be targeted either.
 */
export function targetOf(
  detectedBy: readonly string[],
  byCheck: SpecFilesByCheck,
  /** The fault's `shownIn`: the spec files whose requests meet its answers, for run-wide checks. */
  shownIn?: readonly string[],
): MutantTarget {
  const files = new Set<string>();
  let runWide = false;
  for (const check of detectedBy) {
    const sources = byCheck.get(check);
    if (!sources) return { kind: "all", reason: `no clean run recorded ${check}` };
    for (const source of sources) {
      if (source === RUN_WIDE_SOURCE) runWide = true;
      else files.add(source);
    }
  }
  if (files.size === 0 && runWide && shownIn && shownIn.length > 0)
    return { kind: "files", files: [...shownIn].sort() };
  if (files.size === 0)
    return {
      kind: "all",
      reason: runWide ? "its checks judge every exchange of the run" : "its checks name no spec file",
    };
  return { kind: "files", files: [...files].sort() };
}

/** Every spec file under `specDir`, by basename → path relative to `root`. */
export function specFilePaths(root: string, specDir: string): Map<string, string> {
  const paths = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".spec.ts")) {
        const name = basename(path);
        if (paths.has(name))
          throw new Error(`two spec files are named ${name}: the records cannot tell them apart`);
        paths.set(name, relative(root, path));
      }
    }
  };
  walk(join(root, specDir));
  return paths;
}

/** How long each spec file ran (basename → ms), from a run's timings. */
export function specFileDurations(timings: RunTimings | undefined): Map<string, number> {
  return new Map((timings?.specFiles ?? []).map((f) => [f.file, f.endedAtMs - f.startedAtMs]));
}

/**
 * What a mutant will cost, to start the long ones first: the time its spec files took in a clean
 * run (a mutant's run takes its files one after another). A file the clean run did not time
 * counts as the longest one.
 */
export function estimatedCostMs(target: MutantTarget, durations: ReadonlyMap<string, number>): number {
  const longest = Math.max(0, ...durations.values());
  const files = target.kind === "files" ? target.files : [...durations.keys()];
  return files.reduce((sum, file) => sum + (durations.get(file) ?? longest), 0);
}
