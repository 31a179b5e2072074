/**
 * A run folder on a disk that fills: the recorder never throws into a spec, the exchange file
 * keeps whole lines only, the file is marked, and the reader reads what was kept (a torn line,
 * as a kill mid-write leaves, is skipped and counted). The tmpfs part needs root: skipped, by
 * name, where mounting is not permitted.
 */

import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mountTmpfs } from "../../fixtures/testing/index.ts";
import { createMasker } from "../kit/index.ts";
import type { Exchange } from "./h2h-client.ts";
import { ExchangeRecorder, readRecordedEvidence, readWriteFailures } from "./recorder.ts";

const exchange = (body: string): Exchange => ({
  startedAt: new Date().toISOString(),
  durationMs: 1,
  request: { method: "POST", url: "http://127.0.0.1:1/api/v1/x", headers: {}, body: "{}" },
  response: { status: 200, headers: {}, body, json: undefined },
});

describe("a torn exchange line", () => {
  it("is skipped and counted, with its file and line, and the whole lines are read", () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-recorder-torn-"));
    try {
      const recorder = new ExchangeRecorder("spec", createMasker({ secrets: [] }), dir);
      recorder.record(exchange("first"));
      const [file] = readdirSync(dir);
      appendFileSync(join(dir, file as string), '{"id":"spec-2","request":{"body":"cut sh');
      const evidence = readRecordedEvidence(dir);
      expect(evidence.exchanges.map((e) => e.id)).toEqual(["spec-1"]);
      expect(evidence.unreadable).toEqual([
        { file: join(dir, file as string), line: 2, error: expect.stringMatching(/JSON/) },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const tmpfs = mountTmpfs("64k", "h2h-recorder-tmpfs-");
const skip = "skip" in tmpfs ? tmpfs.skip : undefined;

describe.skipIf(skip !== undefined)(
  `a run folder on a tmpfs that fills${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    it("records until the disk is full, never throws, keeps whole lines and marks the file", () => {
      const dir = "dir" in tmpfs ? tmpfs.dir : "";
      try {
        const recorder = new ExchangeRecorder("spec", createMasker({ secrets: [] }), dir);
        // 40 exchanges of 3 KB: some 120 KB, into 64 KB.
        for (let i = 0; i < 40; i++) expect(() => recorder.record(exchange("x".repeat(3_000)))).not.toThrow();
        const file = join(dir, `exchanges-spec-${process.pid}.jsonl`);
        expect(readWriteFailures(dir)).toEqual([{ file, code: "ENOSPC" }]);
        const text = readFileSync(file, "utf8");
        expect(text.endsWith("\n")).toBe(true);
        const evidence = readRecordedEvidence(dir);
        expect(evidence.unreadable).toEqual([]);
        expect(evidence.exchanges.length).toBeGreaterThan(5);
        expect(evidence.exchanges.length).toBeLessThan(40);
        expect(evidence.exchanges.map((e) => e.id)).toEqual(
          evidence.exchanges.map((_, i) => `spec-${i + 1}`),
        );
      } finally {
        execFileSync("umount", [dir]);
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
