/**
 * Writes every report of a run into the report directory: JUnit XML, JSON, HTML and HAR, as one
 * set. Each is written whole to a temporary name; once all are, they are moved into place. When
 * any cannot be written, none of this run's is, and the earlier run's set is removed too: a CI job
 * must never read one run's verdict beside another's files. Each passes the masker once more on
 * its way out.
 */
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { isProcessGone, type Masker } from "../../contract/kit/index.ts";
import type { RunReport } from "../engine/run-model.ts";
import { collectGarbage } from "./collect-garbage.ts";
import { renderHar } from "./har.ts";
import { renderHtml } from "./html.ts";
import { renderJunit } from "./junit.ts";

/** The reports written (absent: not written this run; the JSON always is). */
export interface ReportPaths {
  junit?: string;
  json: string;
  html?: string;
  har?: string;
  /** H2H_TARGET_IMAGE runs only: the target container's log. */
  targetLog?: string;
}

export const REPORT_FILES = {
  junit: "h2h-certify.junit.xml",
  json: "h2h-certify.json",
  html: "h2h-certify.html",
  har: "h2h-certify.har",
} as const;

export type ReportKind = keyof typeof REPORT_FILES;
export const REPORT_KINDS: readonly ReportKind[] = ["junit", "json", "html", "har"];

/** Written beside the others when the target ran in a container (H2H_TARGET_IMAGE). */
export const TARGET_LOG_FILE = "h2h-certify.target-container.log";

/** Why a run's reports could not be written: the file, the cause, and what the folder holds now. */
export class ReportWriteError extends Error {
  constructor(
    message: string,
    /** The file whose writing (or move into place) failed. */
    readonly path: string,
  ) {
    super(message);
    this.name = "ReportWriteError";
  }
}

/** The temporary name a report is written to first: the pid says whose it is. */
const temporaryOf = (path: string) => `${path}.${process.pid}.tmp`;
/** A temporary report of some run, the pid of its run in group 1. */
const TEMPORARY_REPORT = /^h2h-certify\..+\.(\d+)\.tmp$/;

/** A report this long (in UTF-16 units) is followed by a full garbage collection (bounded memory). */
const LARGE_REPORT_CHARS = 16 * 1024 * 1024;

/** How a report's text reaches the disk (a test's seam: a disk that fills up part way). */
export type WriteText = (path: string, text: string) => Promise<void>;

/** Renders, masks and writes one report to `path`; returns its length, keeping no reference to its text. */
async function writeRendered(
  path: string,
  render: () => string,
  masker: Masker,
  write: WriteText,
): Promise<number> {
  const rendered = render();
  // Building a report this large leaves as much garbage as the report; freed before masking adds its own.
  if (rendered.length > LARGE_REPORT_CHARS) collectGarbage();
  const text = masker.text(rendered);
  await write(path, text);
  return text.length;
}

const codeOf = (error: unknown) =>
  (error as NodeJS.ErrnoException | undefined)?.code ??
  (error instanceof Error ? error.message : String(error));

/** The temporary reports a run that is gone left behind (killed while writing them). */
async function removeLeftTemporaries(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = TEMPORARY_REPORT.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && isProcessGone(Number(pid)))
      await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}

export async function writeReports(
  report: RunReport,
  directory: string,
  masker: Masker,
  /** Which reports to write (default: all four); the JSON always is. */
  kinds: readonly ReportKind[] = REPORT_KINDS,
  write: WriteText = (path, text) => writeFile(path, text),
): Promise<ReportPaths> {
  const dir = resolve(directory);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    // Checked before the run (preflight), so gone or refused since: the verdict is still said.
    throw new ReportWriteError(
      `the reports could not be written: H2H_REPORT_DIR ${dir} cannot be created: ${codeOf(error)}`,
      dir,
    );
  }
  await removeLeftTemporaries(dir);
  const renderers: Record<ReportKind, () => string> = {
    junit: () => renderJunit(report),
    json: () => `${JSON.stringify(report, null, 2)}\n`,
    html: () => renderHtml(report),
    har: () => renderHar(report),
  };
  const paths: ReportPaths = { json: join(dir, REPORT_FILES.json) };
  /** Every file of a set, this run's or an earlier one's. */
  const wholeSet = [...REPORT_KINDS.map((kind) => join(dir, REPORT_FILES[kind])), join(dir, TARGET_LOG_FILE)];
  const written: string[] = [];
  let failedAt = "";
  try {
    // One report at a time, each rendered just before it is written: a report holds every exchange
    // (up to limits.maxBodyBytes each), so four rendered at once, and their masked copies, would
    // hold all of them eight times over.
    for (const kind of REPORT_KINDS) {
      if (kind !== "json" && !kinds.includes(kind)) continue;
      const path = join(dir, REPORT_FILES[kind]);
      paths[kind] = path;
      failedAt = temporaryOf(path);
      written.push(path);
      // The report's text is gone once written (nothing here keeps it), so a collection frees it. Only
      // after a large one: on a usual run each costs more time than the little memory it frees.
      if ((await writeRendered(failedAt, renderers[kind], masker, write)) > LARGE_REPORT_CHARS)
        collectGarbage();
    }
    if (report.targetContainer) {
      paths.targetLog = join(dir, TARGET_LOG_FILE);
      failedAt = temporaryOf(paths.targetLog);
      written.push(paths.targetLog);
      await write(failedAt, masker.text(report.targetContainer.logs));
    }
    // All written: moved into place together. What an earlier run left that this one did not
    // write (a report not asked for, a container's log) would not be this run's.
    for (const path of written) {
      failedAt = path;
      await rename(temporaryOf(path), path);
    }
    for (const path of wholeSet) if (!written.includes(path)) await rm(path, { force: true });
    return paths;
  } catch (error) {
    const left: string[] = [];
    for (const path of [...written.map(temporaryOf), ...wholeSet])
      await rm(path, { force: true }).catch(() => left.push(path));
    // A report that failed to render is a crash (its stack with H2H_DEBUG), not a disk's refusal.
    if (typeof (error as NodeJS.ErrnoException | undefined)?.code !== "string") throw error;
    throw new ReportWriteError(
      `the reports could not be written: ${codeOf(error)} writing ${failedAt}; ` +
        (left.length === 0
          ? `${dir} holds no report now, neither this run's nor an earlier run's`
          : `these could not be removed and are NOT this run's: ${left.join(", ")}`),
      failedAt,
    );
  }
}

/** The reports written, or why not (the set is then absent: see {@link writeReports}). */
export async function writeReportSet(
  report: RunReport,
  directory: string,
  masker: Masker,
  kinds: readonly ReportKind[] = REPORT_KINDS,
): Promise<{ paths: ReportPaths; error?: undefined } | { paths?: undefined; error: string }> {
  try {
    return { paths: await writeReports(report, directory, masker, kinds) };
  } catch (error) {
    if (error instanceof ReportWriteError) return { error: masker.text(error.message) };
    throw error;
  }
}
