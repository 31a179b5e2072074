/**
 * A run's temporary folder in TMPDIR (exchange files, the sink's store), named with the run's pid
 * and marked as the suite's, so that the next run can remove the folders of runs that are gone:
 * a run killed with SIGKILL runs no cleanup of its own. A folder is removed only when it is
 * certainly one of ours (its name, its owner, its marker naming this host) and its process is gone.
 */
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";

/** The kinds of run that keep a folder in TMPDIR: `<kind>-<pid>-<random>`. */
export type RunFolderKind = "h2h-certify" | "h2h-receiver" | "h2h-load";
const RUN_FOLDER = /^(h2h-certify|h2h-receiver|h2h-load)-(\d+)-[A-Za-z0-9]{6}$/;
/** The marker inside: it holds the host's name (a pid means nothing on another host's TMPDIR). */
const MARKER = ".h2h-run-folder";

/** Whether no process has this pid (one of another user's is alive: kill(pid, 0) says EPERM). */
export function isProcessGone(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Creates this run's folder in TMPDIR (`parent`, for tests), named with its pid and marked. */
export async function makeRunFolder(kind: RunFolderKind, parent: string = tmpdir()): Promise<string> {
  const folder = await mkdtemp(join(parent, `${kind}-${process.pid}-`));
  // Without the marker (a full disk) the folder is simply never taken for a gone run's.
  await writeFile(join(folder, MARKER), hostname()).catch(() => undefined);
  return folder;
}

/**
 * Removes the folders that runs now gone left in TMPDIR (`parent`, for tests); returns them.
 * Never fails the run: a folder it cannot read or remove is left as it is.
 */
export async function removeGoneRunFolders(parent: string = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const uid = process.getuid?.();
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const pid = Number(RUN_FOLDER.exec(name)?.[2]);
    if (!pid || pid === process.pid) continue;
    const folder = join(parent, name);
    try {
      const stats = await lstat(folder);
      if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) continue;
      if ((await readFile(join(folder, MARKER), "utf8")) !== hostname()) continue;
      if (!isProcessGone(pid)) continue;
      await rm(folder, { recursive: true, force: true });
      removed.push(folder);
    } catch {
      // Not ours for certain (no marker), or it went away meanwhile: left alone.
    }
  }
  return removed;
}
