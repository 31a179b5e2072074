/**
 * Full disks, on small tmpfs mounts (root only: skipped, by name, where mounting is not permitted):
 * - the report folder fills while a run writes its reports: the verdict is still printed, then one
 *   error naming the file, and the folder holds neither this run's reports nor the earlier run's
 *   (whose JSON said conformant); the run is no pass;
 * - TMPDIR fills while the run records its exchanges: one error naming the file, the run not
 *   judged on what it kept, and its reports written all the same.
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createMasker } from "../contract/kit/index.ts";
import { fileTimeout, mountTmpfs } from "../fixtures/testing/index.ts";
import { parseSettings } from "../run-setup/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { type CertifyResult, runCertification } from "./engine/runner.ts";
import { REPORT_FILES, writeReports } from "./reports/index.ts";
import { sharedSpecRunner } from "./testing/certify-in-process.ts";
import { runReportOf } from "./testing/run-report.ts";
import { spawnCertify } from "./testing/spawn-certify.ts";

fileTimeout(240_000);

const unmount = (dir: string) => {
  execFileSync("umount", [dir]);
  rmSync(dir, { recursive: true, force: true });
};

/** Fills `dir` up to all but `freeBytes`. */
function fillUp(dir: string, freeBytes: number): void {
  const { bavail, bsize } = (() => {
    const out = execFileSync("stat", ["-f", "-c", "%a %S", dir], { encoding: "utf8" }).trim().split(" ");
    return { bavail: Number(out[0]), bsize: Number(out[1]) };
  })();
  writeFileSync(join(dir, "filler"), Buffer.alloc(Math.max(0, bavail * bsize - freeBytes)));
}

const probe = mountTmpfs("1m", "h2h-full-disk-");
const skip = "skip" in probe ? probe.skip : undefined;
if ("dir" in probe) unmount(probe.dir);

const specs = sharedSpecRunner();
afterAll(() => specs.close());

async function certify(reportDir: string): Promise<{ result: CertifyResult; output: string }> {
  const outer = Object.entries(process.env).filter(
    ([name]) => !name.startsWith("H2H_") || name === "H2H_WORKERS",
  );
  const settings = parseSettings(
    { ...Object.fromEntries(outer), H2H_DEPTH: "quick", H2H_REPORT_DIR: reportDir },
    { command: "certify" },
  );
  const lines: string[] = [];
  const result = await runCertification({
    settings,
    print: (line) => lines.push(line),
    targetInThisProcess: true,
    specFiles: ["certify/specs/mobile-commerce.spec.ts"],
    specRunner: specs.run,
  });
  return { result, output: lines.join("\n") };
}

describe.skipIf(skip !== undefined)(`full disks${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("a report folder that fills: the verdict, one error with the file, no report of either run", async () => {
    const mount = mountTmpfs("1m", "h2h-full-disk-");
    if (!("dir" in mount)) throw new Error(mount.skip);
    try {
      await writeReports(runReportOf([], { runId: "run-earlier" }), mount.dir, createMasker({ secrets: [] }));
      expect(JSON.parse(readFileSync(join(mount.dir, REPORT_FILES.json), "utf8")).verdict).toBe("conformant");
      fillUp(mount.dir, 24 * 1024);
      const { result, output } = await certify(mount.dir);
      expect(result.paths).toBeUndefined();
      expect(result.reportsError).toMatch(
        new RegExp(
          `^the reports could not be written: ENOSPC writing ${mount.dir}/h2h-certify\\.[a-z.]+\\.\\d+\\.tmp`,
        ),
      );
      expect(output).toMatch(/verdict: CONFORMANT/);
      expect(output).toContain("reports: none written");
      expect(output).toContain(`error: ${result.reportsError}`);
      expect(readdirSync(mount.dir)).toEqual(["filler"]);
    } finally {
      unmount(mount.dir);
    }
  });

  it("a TMPDIR that fills: one error naming the file, not judged, and the reports written", async () => {
    const mount = mountTmpfs("1m", "h2h-full-disk-");
    if (!("dir" in mount)) throw new Error(mount.skip);
    const reportDir = mkdtempSync(join(tmpdir(), "h2h-full-tmpdir-reports-"));
    try {
      // Room for the run's folder and its first exchanges, not for all of them. In a process of
      // its own: TMPDIR is read from the process's environment, which a test thread cannot change.
      fillUp(mount.dir, 12 * 1024);
      const run = await spawnCertify(
        // tsx keeps its cache in TMPDIR: without it, the run alone fills the disk.
        { TMPDIR: mount.dir, TSX_DISABLE_CACHE: "1", H2H_REPORT_DIR: reportDir, H2H_DEPTH: "quick" },
        { specFiles: ["certify/specs/mobile-commerce.spec.ts"], reports: ["json"] },
      );
      expect(run.exitCode, run.output).toBe(2);
      expect(run.output).not.toMatch(/Unterminated string|in JSON at position/);
      const report = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
      expect(report.verdict).toBe("not run");
      // One error for what the folder could not keep (the sink may name its own refusals beside it).
      const folderErrors = report.errors.filter((e) => e.startsWith("the run's temporary folder"));
      expect(folderErrors, report.errors.join("\n")).toHaveLength(1);
      const folder = `${mount.dir}/h2h-certify-\\d+-\\w{6}`;
      expect(folderErrors[0]).toMatch(
        new RegExp(
          `^the run's temporary folder ${folder} could not keep its records: ENOSPC writing ${folder}/(exchanges|warnings)-`,
        ),
      );
      expect(run.output).toContain(`error: ${folderErrors[0]}`);
      expect(report.exchanges.length, report.errors[0]).toBeGreaterThan(0);
      // The run's folder is gone with the run.
      expect(readdirSync(mount.dir)).toEqual(["filler"]);
    } finally {
      unmount(mount.dir);
      rmSync(reportDir, { recursive: true, force: true });
    }
  });
});
