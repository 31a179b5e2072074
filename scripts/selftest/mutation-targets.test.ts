import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  estimatedCostMs,
  specFileDurations,
  specFilePaths,
  specFilesByCheck,
  targetOf,
} from "./mutation-targets.ts";

const records = [
  { check: "envelope.shape", source: "mobile-commerce.spec.ts" },
  { check: "envelope.shape", source: "quasi-ecom.spec.ts" },
  { check: "callbacks.arrives", source: "callbacks.spec.ts" },
  { check: "behaviour.rejects-malformed-json", source: "auth-and-validation.spec.ts" },
  { check: "behaviour.no-server-error", source: "runner" },
  { check: "envelope.request-id-unique", source: "runner" },
];
const byCheck = specFilesByCheck(records);

describe("mutant targets", () => {
  it("runs the spec files that hold the fault's checks, each once", () => {
    expect(targetOf(["envelope.shape", "callbacks.arrives"], byCheck)).toEqual({
      kind: "files",
      files: ["callbacks.spec.ts", "mobile-commerce.spec.ts", "quasi-ecom.spec.ts"],
    });
  });

  it("a run-wide check judges the exchanges of the fault's other spec files", () => {
    expect(targetOf(["behaviour.rejects-malformed-json", "behaviour.no-server-error"], byCheck)).toEqual({
      kind: "files",
      files: ["auth-and-validation.spec.ts"],
    });
  });

  it("runs every file when only run-wide checks name the fault, or a check never ran", () => {
    expect(targetOf(["envelope.request-id-unique"], byCheck)).toEqual({
      kind: "all",
      reason: "its checks judge every exchange of the run",
    });
    expect(targetOf(["callbacks.retry-policy"], byCheck)).toEqual({
      kind: "all",
      reason: "no clean run recorded callbacks.retry-policy",
    });
  });

  it("runs the files a fault says its answers are met in, when only run-wide checks name it", () => {
    expect(targetOf(["envelope.request-id-unique"], byCheck, ["auth-and-validation.spec.ts"])).toEqual({
      kind: "files",
      files: ["auth-and-validation.spec.ts"],
    });
    // A check a spec file holds decides: the hint only narrows what every file would be.
    expect(targetOf(["envelope.shape"], byCheck, ["auth-and-validation.spec.ts"])).toEqual(
      targetOf(["envelope.shape"], byCheck),
    );
  });

  it("finds spec files by basename, and refuses two of the same name", () => {
    const root = mkdtempSync(join(tmpdir(), "h2h-targets-"));
    mkdirSync(join(root, "specs/nested"), { recursive: true });
    writeFileSync(join(root, "specs/a.spec.ts"), "");
    writeFileSync(join(root, "specs/nested/b.spec.ts"), "");
    writeFileSync(join(root, "specs/helper.ts"), "");
    expect(specFilePaths(root, "specs")).toEqual(
      new Map([
        ["a.spec.ts", "specs/a.spec.ts"],
        ["b.spec.ts", "specs/nested/b.spec.ts"],
      ]),
    );
    writeFileSync(join(root, "specs/nested/a.spec.ts"), "");
    expect(() => specFilePaths(root, "specs")).toThrow(/two spec files are named a\.spec\.ts/);
  });
});

describe("mutant cost", () => {
  const timings = {
    processStartedAtMs: 0,
    runStartedAtMs: 0,
    specFiles: [
      { file: "callbacks.spec.ts", loadMs: 0, startedAtMs: 100, endedAtMs: 2_100 },
      { file: "quasi-ecom.spec.ts", loadMs: 0, startedAtMs: 100, endedAtMs: 400 },
    ],
  };

  it("is the time the mutant's spec files took in a clean run, the longest first", () => {
    const durations = specFileDurations(timings);
    expect(durations).toEqual(
      new Map([
        ["callbacks.spec.ts", 2_000],
        ["quasi-ecom.spec.ts", 300],
      ]),
    );
    expect(estimatedCostMs({ kind: "files", files: ["quasi-ecom.spec.ts"] }, durations)).toBe(300);
    expect(estimatedCostMs({ kind: "all", reason: "untargeted" }, durations)).toBe(2_300);
    // A file the clean run did not time counts as the longest.
    expect(estimatedCostMs({ kind: "files", files: ["new.spec.ts", "quasi-ecom.spec.ts"] }, durations)).toBe(
      2_300,
    );
    expect(specFileDurations(undefined).size).toBe(0);
  });
});
