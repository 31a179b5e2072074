/**
 * One report set per run: a run whose reports cannot all be written leaves none, and removes the
 * earlier run's set too, so that no folder holds one run's verdict beside another's files. Tried
 * through the writer's seam (a disk that fills up part way, always run) and on a small tmpfs that
 * really fills up (root only: skipped, by name, where mounting is not permitted).
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedExchange } from "../../contract/index.ts";
import { createMasker } from "../../contract/kit/index.ts";
import { mountTmpfs } from "../../fixtures/testing/index.ts";
import type { CheckRecord, RunReport } from "../engine/run-model.ts";
import { runReportOf } from "../testing/run-report.ts";
import { REPORT_FILES, ReportWriteError, TARGET_LOG_FILE, writeReportSet, writeReports } from "./index.ts";

const masker = createMasker({ secrets: [] });

const check = (status: CheckRecord["status"]): CheckRecord => ({
  endpoint: "createMobileCommerceOrder",
  check: "envelope.shape",
  rule: "r",
  status,
  required: true,
  detail: status,
  durationMs: 1,
  exchanges: [],
  source: "lifecycle",
});

/** A run's report with `bodyBytes` of answer bodies in it (the reports grow with them). */
function reportOf(verdictOf: CheckRecord["status"], runId: string, bodyBytes = 0): RunReport {
  const exchanges: RecordedExchange[] = Array.from({ length: Math.ceil(bodyBytes / 10_000) }, (_, i) => ({
    id: `lifecycle-${i + 1}`,
    source: "lifecycle",
    operation: "createMobileCommerceOrder",
    startedAt: "2026-01-01T00:00:01.000Z",
    durationMs: 3,
    request: { method: "POST", url: "http://127.0.0.1:8080/api/v1/orders", headers: {}, body: "{}" },
    response: { status: 200, headers: {}, body: "x".repeat(10_000), json: undefined },
  }));
  return runReportOf([check(verdictOf)], { runId, exchanges });
}

const setFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.startsWith("h2h-certify"))
    .sort();
const ALL_FOUR = Object.values(REPORT_FILES).sort();

describe("a report set that cannot be written whole (the writer's seam: a disk that fills)", () => {
  const dir = mkdtempSync(join(tmpdir(), "h2h-report-set-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("leaves no report of either run, no temporary file, and names the file it failed on", async () => {
    await writeReports(reportOf("passed", "run-earlier"), dir, masker);
    writeFileSync(join(dir, TARGET_LOG_FILE), "the earlier run's container log");
    expect(setFiles(dir)).toEqual([...ALL_FOUR, TARGET_LOG_FILE].sort());

    let files = 0;
    // The third file gets its first batch, then the disk is full: as a write fails on ENOSPC.
    const fillingDisk = async (path: string) => {
      const handle = await open(path, "w");
      const third = ++files === 3;
      return {
        async write(text: string) {
          await handle.write(third ? text.slice(0, text.length / 2) : text);
          if (third)
            throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
        },
        close: () => handle.close(),
      };
    };
    const failing = writeReports(reportOf("failed", "run-later"), dir, masker, undefined, fillingDisk);
    await expect(failing).rejects.toThrow(ReportWriteError);
    const error = (await failing.catch((e: unknown) => e)) as ReportWriteError;
    expect(error.message).toMatch(/^the reports could not be written: ENOSPC writing /);
    expect(error.path).toMatch(new RegExp(`${dir}/h2h-certify\\.[a-z.]+\\.${process.pid}\\.tmp$`));
    expect(error.message).toContain(error.path);
    expect(error.message).toContain("holds no report now, neither this run's nor an earlier run's");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("replaces a whole earlier set, what this run does not write removed with it", async () => {
    await writeReports(reportOf("passed", "run-earlier"), dir, masker);
    writeFileSync(join(dir, TARGET_LOG_FILE), "the earlier run's container log");
    await writeReports(reportOf("failed", "run-later"), dir, masker, ["json", "junit"]);
    expect(setFiles(dir)).toEqual([REPORT_FILES.json, REPORT_FILES.junit].sort());
    expect(JSON.parse(readFileSync(join(dir, REPORT_FILES.json), "utf8")).runId).toBe("run-later");
  });

  it("lets a crash while rendering through as itself, the folder emptied all the same", async () => {
    await writeReports(reportOf("passed", "run-earlier"), dir, masker);
    const crash = new TypeError("a renderer's bug");
    const crashing = {
      ...masker,
      text: () => {
        throw crash;
      },
    };
    await expect(writeReports(reportOf("failed", "run-later"), dir, crashing)).rejects.toBe(crash);
    expect(setFiles(dir)).toEqual([]);
  });

  it("says which folder could not be made, as a report failure (the verdict is still printed)", async () => {
    const inTheWay = join(dir, "a-file");
    writeFileSync(inTheWay, "");
    const written = await writeReportSet(reportOf("passed", "run-x"), join(inTheWay, "reports"), masker);
    expect(written.error).toBe(
      `the reports could not be written: H2H_REPORT_DIR ${join(inTheWay, "reports")} cannot be created: ENOTDIR`,
    );
    rmSync(inTheWay);
  });

  it("removes the temporary reports of a run that is gone, never a living one's", async () => {
    const gone = join(dir, `${REPORT_FILES.html}.999999999.tmp`);
    const living = join(dir, `${REPORT_FILES.html}.${process.ppid}.tmp`);
    writeFileSync(gone, "half a report");
    writeFileSync(living, "being written");
    await writeReports(reportOf("passed", "run-3"), dir, masker, ["json"]);
    expect(readdirSync(dir).sort()).toEqual(
      [REPORT_FILES.json, `${REPORT_FILES.html}.${process.ppid}.tmp`].sort(),
    );
    rmSync(living);
  });
});

const tmpfs = mountTmpfs("1m", "h2h-report-tmpfs-");
const tmpfsSkip = "skip" in tmpfs ? tmpfs.skip : undefined;

describe.skipIf(tmpfsSkip !== undefined)(
  `a report set on a tmpfs that fills up${tmpfsSkip ? ` (skipped: ${tmpfsSkip})` : ""}`,
  () => {
    const dir = "dir" in tmpfs ? tmpfs.dir : "";
    beforeAll(async () => {
      await writeReports(reportOf("passed", "run-earlier"), dir, masker);
    });
    afterAll(() => {
      execFileSync("umount", [dir]);
      rmSync(dir, { recursive: true, force: true });
    });

    it("a second run that does not fit leaves neither its reports nor the earlier run's, and says where it failed", async () => {
      expect(setFiles(dir)).toEqual(ALL_FOUR);
      // Some 600 KB of bodies: each report holds them, four of them do not fit in what is left.
      const written = await writeReportSet(reportOf("failed", "run-later", 600_000), dir, masker);
      expect(written.paths).toBeUndefined();
      expect(written.error).toMatch(
        new RegExp(
          `^the reports could not be written: ENOSPC writing ${dir}/h2h-certify\\.[a-z.]+\\.\\d+\\.tmp; `,
        ),
      );
      expect(readdirSync(dir)).toEqual([]);
      // The disk has room again: the next run writes its whole set.
      await writeReports(reportOf("passed", "run-next", 100_000), dir, masker);
      expect(setFiles(dir)).toEqual(ALL_FOUR);
    });
  },
);
