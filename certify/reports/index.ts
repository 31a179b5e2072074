/**
 * Writes every report of a run into the report directory: JUnit XML, JSON, HTML and HAR. Each
 * file is written whole to a temporary name and then renamed, so a reader never sees half a
 * report; each passes the masker once more on its way out.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Masker } from "../../kit/index.ts";
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

async function writeWhole(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, path);
}

/** A report this long (in UTF-16 units) is followed by a full garbage collection (bounded memory). */
const LARGE_REPORT_CHARS = 16 * 1024 * 1024;

/** Renders, masks and writes one report; returns its length, keeping no reference to its text. */
async function writeRendered(path: string, render: () => string, masker: Masker): Promise<number> {
  const rendered = render();
  // Building a report this large leaves as much garbage as the report; freed before masking adds its own.
  if (rendered.length > LARGE_REPORT_CHARS) collectGarbage();
  const text = masker.text(rendered);
  await writeWhole(path, text);
  return text.length;
}

export async function writeReports(
  report: RunReport,
  directory: string,
  masker: Masker,
  /** Which reports to write (default: all four); the JSON always is. */
  kinds: readonly ReportKind[] = REPORT_KINDS,
): Promise<ReportPaths> {
  const dir = resolve(directory);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new Error(
      `H2H_REPORT_DIR ${dir} cannot be created: ${(error as { code?: string }).code ?? String(error)}`,
    );
  }
  const renderers: Record<ReportKind, () => string> = {
    junit: () => renderJunit(report),
    json: () => `${JSON.stringify(report, null, 2)}\n`,
    html: () => renderHtml(report),
    har: () => renderHar(report),
  };
  const paths: ReportPaths = { json: join(dir, REPORT_FILES.json) };
  // One report at a time, each rendered just before it is written: a report holds every exchange
  // (up to limits.maxBodyBytes each), so four rendered at once, and their masked copies, would
  // Hold all of them eight times over.
  for (const kind of REPORT_KINDS) {
    const path = join(dir, REPORT_FILES[kind]);
    if (kind !== "json" && !kinds.includes(kind)) {
      // A report left from an earlier run in the same folder would not be this run's.
      await rm(path, { force: true });
      continue;
    }
    paths[kind] = path;
    // The report's text is gone once written (nothing here keeps it), so a collection frees it. Only
    // after a large one: on a usual run each costs more time than the little memory it frees.
    if ((await writeRendered(path, renderers[kind], masker)) > LARGE_REPORT_CHARS) collectGarbage();
  }
  if (report.targetContainer) {
    paths.targetLog = join(dir, TARGET_LOG_FILE);
    await writeWhole(paths.targetLog, masker.text(report.targetContainer.logs));
  } else {
    // A container run's log left from an earlier run in the same folder would belong to no report here.
    await rm(join(dir, TARGET_LOG_FILE), { force: true });
  }
  return paths;
}
