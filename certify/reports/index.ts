/**
 * Writes every report of a run into the report directory, as one set: each registered writer's
 * (writers/index.ts: JUnit XML, JSON, HTML and HAR). Each is streamed to a temporary name; once
 * all are, they are moved into place. When any cannot be written, none of this run's is, and the
 * earlier run's set is removed too: a CI job must never read one run's verdict beside another's
 * files. Every piece passes the masker once more on its way out.
 */
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { isProcessGone, type Masker } from "../../contract/kit/index.ts";
import { analyseRun } from "../analysis/index.ts";
import type { RunReport } from "../engine/run-model.ts";
import { REPORT_FILES, REPORT_KINDS, type ReportKind, TARGET_LOG_FILE } from "./report-files.ts";
import { maskChunk, REPORT_WRITERS, type ReportRun, type ReportWriter } from "./writers/index.ts";

export { REPORT_FILES, REPORT_KINDS, type ReportKind, TARGET_LOG_FILE };

/** The reports written (absent: not written this run; the JSON always is). */
export interface ReportPaths {
  junit?: string;
  json: string;
  html?: string;
  har?: string;
  /** H2H_TARGET_IMAGE runs only: the target container's log. */
  targetLog?: string;
}

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

/** A file being written: a test's seam (a disk that fills up part way). */
export interface ReportFile {
  write(text: string): Promise<void>;
  close(): Promise<void>;
}
export type OpenReportFile = (path: string) => Promise<ReportFile>;

async function openFile(path: string): Promise<ReportFile> {
  const handle = await open(path, "w");
  return {
    async write(text) {
      const bytes = Buffer.from(text);
      for (let offset = 0; offset < bytes.length; )
        offset += (await handle.write(bytes, offset)).bytesWritten;
    },
    close: () => handle.close(),
  };
}

/** Masked pieces are gathered up to this many UTF-16 units per write: few system calls, little memory. */
const WRITE_CHARS = 1024 * 1024;

/** Streams one writer's report to `path`, each piece masked on its own; holds one piece and one batch at most. */
async function writeReport(
  path: string,
  writer: ReportWriter,
  run: ReportRun,
  masker: Masker,
  openReport: OpenReportFile,
): Promise<void> {
  const file = await openReport(path);
  try {
    let batch: string[] = [];
    let length = 0;
    for (const chunk of writer.chunks(run)) {
      const text = maskChunk(masker, chunk, writer.format);
      batch.push(text);
      length += text.length;
      if (length >= WRITE_CHARS) {
        await file.write(batch.join(""));
        batch = [];
        length = 0;
      }
    }
    if (length > 0) await file.write(batch.join(""));
  } catch (error) {
    await file.close().catch(() => undefined);
    throw error;
  }
  await file.close();
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
  openReport: OpenReportFile = openFile,
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
  // Worked out before any writing, once for every writer.
  const run: ReportRun = { report, analysis: analyseRun(report) };
  const paths: ReportPaths = { json: join(dir, REPORT_FILES.json) };
  /** Every file of a set, this run's or an earlier one's. */
  const wholeSet = [
    ...REPORT_WRITERS.map((writer) => join(dir, writer.fileName)),
    join(dir, TARGET_LOG_FILE),
  ];
  const written: string[] = [];
  let failedAt = "";
  try {
    // One report at a time, each streamed piece by piece: a report holds every exchange (up to
    // limits.maxBodyBytes each), so no report is ever held whole, masked or not.
    for (const writer of REPORT_WRITERS) {
      if (writer.kind !== "json" && !kinds.includes(writer.kind)) continue;
      const path = join(dir, writer.fileName);
      paths[writer.kind] = path;
      failedAt = temporaryOf(path);
      written.push(path);
      await writeReport(failedAt, writer, run, masker, openReport);
    }
    if (report.targetContainer) {
      paths.targetLog = join(dir, TARGET_LOG_FILE);
      failedAt = temporaryOf(paths.targetLog);
      written.push(paths.targetLog);
      const log = await openReport(failedAt);
      await log.write(masker.text(report.targetContainer.logs)).catch(async (error: unknown) => {
        await log.close().catch(() => undefined);
        throw error;
      });
      await log.close();
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
