import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runFolderFault } from "./run-folder-fault.ts";

const dir = mkdtempSync(join(tmpdir(), "h2h-run-folder-fault-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("what a run folder could not keep", () => {
  it("is nothing when every record was kept", () => {
    expect(runFolderFault(dir, { unreadable: [] })).toBeUndefined();
  });

  it("names the first file the disk refused, how many more, and the first torn line", () => {
    writeFileSync(join(dir, "exchanges-lifecycle-7.jsonl.failed-ENOSPC"), "");
    writeFileSync(join(dir, "warnings-7.jsonl.failed-EDQUOT"), "");
    const torn = {
      file: join(dir, "exchanges-races-7.jsonl"),
      line: 12,
      error: "Unterminated string in JSON",
    };
    const fault = runFolderFault(dir, { unreadable: [torn] });
    expect(fault).toBe(
      `the run's temporary folder ${dir} could not keep its records` +
        `: ENOSPC writing ${join(dir, "exchanges-lifecycle-7.jsonl")} (and 1 more file(s)): the records after it are missing; ` +
        `1 record(s) unreadable, first ${torn.file} line 12 (Unterminated string in JSON). ` +
        "The reports hold what was kept and the run is not judged on it; free space in TMPDIR, or set TMPDIR to a folder on another disk",
    );
  });
});
