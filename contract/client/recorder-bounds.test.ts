/** Recorded evidence is bounded as written: per body in JSON bytes, and per run. */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createMasker } from "../kit/index.ts";
import type { Exchange } from "./h2h-client.ts";
import { ExchangeRecorder, readRecordedEvidence } from "./recorder.ts";

function exchange(body: string, json?: unknown): Exchange {
  return {
    startedAt: new Date().toISOString(),
    durationMs: 1,
    request: { method: "POST", url: "http://127.0.0.1:1/h2h/x", headers: {}, body: "{}" },
    response: { status: 200, headers: {}, body, json },
  };
}

describe("bounded recording", () => {
  it("cuts a body of control bytes at the limit in bytes as written, and says so", () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-recorder-"));
    const recorder = new ExchangeRecorder("spec", createMasker({ secrets: [] }), dir, 1024);
    const recorded = recorder.record(exchange("\u0001".repeat(1024)));
    expect(recorded.response.evidenceCut).toEqual({ serialisedBytes: 6 * 1024, limitBytes: 1024 });
    const [file] = readdirSync(dir);
    const line = readFileSync(join(dir, file as string), "utf8");
    const written = JSON.parse(line) as { response: { body: string } };
    expect(Buffer.byteLength(JSON.stringify(written.response.body))).toBeLessThanOrEqual(1024 + 2);
    expect(Buffer.byteLength(line)).toBeLessThan(2048);
  });

  it("keeps a JSON answer's envelope when its strings do not fit", () => {
    const body = JSON.stringify({ result: { codeError: "0" }, data: { pad: "\u0001".repeat(900) } });
    const recorder = new ExchangeRecorder("spec", createMasker({ secrets: [] }), undefined, 1024);
    const recorded = recorder.record(exchange(body, JSON.parse(body)));
    expect(recorded.response.json).toMatchObject({ result: { codeError: "0" } });
  });

  it("drops bodies past the run's bound, keeps the exchanges, and counts them", () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-recorder-"));
    const recorder = new ExchangeRecorder("spec", createMasker({ secrets: [] }), dir, 1024);
    for (let i = 0; i < 10; i++) recorder.record(exchange("x".repeat(1000)));
    const evidence = readRecordedEvidence(dir, 4096);
    expect(evidence.exchanges).toHaveLength(10);
    expect(evidence.bodiesDropped).toBe(6); // 4 of 1,002 bytes (a 2-byte request, a 1,000-byte answer) fit
    expect(evidence.bytesDropped).toBe(6 * 1002);
    expect(evidence.exchanges.filter((e) => e.response.body === "")).toHaveLength(6);
    expect(evidence.exchanges.at(-1)?.response.evidenceCut).toMatchObject({ limitBytes: 0, runBound: true });
  });
});
