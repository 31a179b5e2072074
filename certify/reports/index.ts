/**
 * Writes every report of a run into the report directory: JUnit XML, JSON, HTML and HAR. Each
 * file is written whole to a temporary name and then renamed, so a reader never sees half a
 * report; each passes the masker once more on its way out.
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Masker } from "../../contract/index.ts";
import type { RunReport } from "../run-model.ts";
import { renderHar } from "./har.ts";
import { renderHtml } from "./html.ts";
import { renderJunit } from "./junit.ts";

export interface ReportPaths {
  junit: string;
  json: string;
  html: string;
  har: string;
}

export const REPORT_FILES = {
  junit: "h2h-certify.junit.xml",
  json: "h2h-certify.json",
  html: "h2h-certify.html",
  har: "h2h-certify.har",
} as const;

async function writeWhole(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, path);
}

export async function writeReports(
  report: RunReport,
  directory: string,
  masker: Masker,
): Promise<ReportPaths> {
  const dir = resolve(directory);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new Error(
      `H2H_REPORT_DIR ${dir} cannot be created: ${(error as { code?: string }).code ?? String(error)}`,
    );
  }
  const paths: ReportPaths = {
    junit: join(dir, REPORT_FILES.junit),
    json: join(dir, REPORT_FILES.json),
    html: join(dir, REPORT_FILES.html),
    har: join(dir, REPORT_FILES.har),
  };
  await Promise.all([
    writeWhole(paths.junit, masker.text(renderJunit(report))),
    writeWhole(paths.json, masker.text(`${JSON.stringify(report, null, 2)}\n`)),
    writeWhole(paths.html, masker.text(renderHtml(report))),
    writeWhole(paths.har, masker.text(renderHar(report))),
  ]);
  return paths;
}
