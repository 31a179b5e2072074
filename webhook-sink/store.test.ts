import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { childEnv, commandArgs, fileTimeout } from "../fixtures/testing/index.ts";
import { SinkClient } from "./client.ts";
import { type RunningSink, type SinkOptions, startWebhookSink } from "./server.ts";
import { LOG_FILE, type StoreFile, type StoreProblem } from "./store.ts";

fileTimeout(60_000);

const TOKEN = "s".repeat(32);
const running: RunningSink[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

async function start(dataDir: string, options: Partial<SinkOptions> = {}) {
  const sink = await startWebhookSink({ dataDir, token: TOKEN, sync: true, ...options });
  running.push(sink);
  return sink;
}

async function stop(sink: RunningSink): Promise<void> {
  running.splice(running.indexOf(sink), 1);
  await sink.stop();
}

/** A callback whose body is about `pad` bytes long. */
async function post(sink: RunningSink, id: string, pad: number): Promise<{ status: number; body: string }> {
  const response = await request(sink.callbackUrl(), {
    method: "POST",
    body: JSON.stringify({ id, status: "succeeded", pad: "x".repeat(pad) }),
    headers: { "content-type": "application/json" },
  });
  return { status: response.statusCode, body: await response.body.text() };
}

async function storedIds(sink: RunningSink): Promise<string[]> {
  const client = new SinkClient(sink.url, sink.token);
  try {
    return (await client.list()).map((c) => c.orderId ?? "");
  } finally {
    await client.close();
  }
}

/** Every line of the log is a whole record. */
function logLines(dataDir: string): unknown[] {
  const text = readFileSync(join(dataDir, LOG_FILE), "utf8");
  expect(text === "" || text.endsWith("\n"), "the log ends after a whole record").toBe(true);
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });

/**
 * The real log file on a disk of `disk.capacity` bytes: a write gets the room left (a short
 * write, no error, as a filling disk answers) and ENOSPC once there is none. `faults` fail the
 * next calls of a kind once each.
 */
function fillingDisk(disk: {
  capacity: number;
  faults?: { truncate?: number; datasync?: number };
}): (path: string) => Promise<StoreFile> {
  return async (path) => {
    const handle = await open(path, "a");
    let size = (await handle.stat()).size;
    return {
      async write(buffer, offset, length) {
        const room = disk.capacity - size;
        if (room <= 0) throw enospc();
        const { bytesWritten } = await handle.write(buffer, offset, Math.min(room, length));
        size += bytesWritten;
        return { bytesWritten };
      },
      async datasync() {
        if (disk.faults?.datasync) {
          disk.faults.datasync -= 1;
          throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
        }
        await handle.datasync();
      },
      async truncate(length) {
        if (disk.faults?.truncate) {
          disk.faults.truncate -= 1;
          throw Object.assign(new Error("EIO: i/o error, ftruncate"), { code: "EIO" });
        }
        await handle.truncate(length);
        size = length;
      },
      close: () => handle.close(),
    };
  };
}

/**
 * Said once per burst: a failure, then its end, then maybe another burst (a smaller record can
 * fit where a larger one did not), each failure naming the log and the error.
 */
function expectOncePerBurst(problems: readonly StoreProblem[], path: string): void {
  expect(problems.length).toBeGreaterThan(0);
  for (const [index, problem] of problems.entries()) {
    expect(problem.kind).toBe(index % 2 === 0 ? "failing" : "recovered");
    expect(problem.path).toBe(path);
    if (problem.kind === "failing")
      expect(problem.error).toMatch(/^\S+callbacks\.jsonl: .*(ENOSPC|no space|none of the bytes)/);
  }
}

/** Sends rounds of `parallel` callbacks; returns the ids acknowledged (2xx) and refused (500). */
async function burst(sink: RunningSink, prefix: string, rounds: number, parallel: number, pad: number) {
  const acknowledged: string[] = [];
  const refused: string[] = [];
  for (let round = 0; round < rounds; round++) {
    await Promise.all(
      Array.from({ length: parallel }, async (_, i) => {
        const id = `${prefix}-${round}-${i}`;
        // Sizes vary, so that a short write can end anywhere in a record.
        const answer = await post(sink, id, pad + ((round * 7 + i * 13) % 11) * 97);
        if (answer.status === 200) acknowledged.push(id);
        else {
          expect(answer.status).toBe(500);
          expect(JSON.parse(answer.body)).toMatchObject({ error: "not-stored" });
          refused.push(id);
        }
      }),
    );
  }
  return { acknowledged, refused };
}

describe("callback store on a filling disk (an injected file that writes short, then ENOSPC)", () => {
  it("acknowledges only whole records, cuts torn bytes off, says so once per burst, and loses nothing acknowledged across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-sink-store-"));
    const disk = { capacity: 40_000 };
    const problems: StoreProblem[] = [];
    const first = await start(dir, {
      openStoreFile: fillingDisk(disk),
      onStoreProblem: (p) => problems.push(p),
    });
    const full = await burst(first, "a", 8, 4, 2_000);
    expect(full.acknowledged.length).toBeGreaterThan(3);
    expect(full.refused.length).toBeGreaterThan(3);
    // The file holds the acknowledged records and nothing torn.
    expect(
      logLines(dir)
        .map((r) => (r as { orderId: string }).orderId)
        .sort(),
    ).toEqual([...full.acknowledged].sort());
    expectOncePerBurst(problems, join(dir, LOG_FILE));
    expect(problems.length).toBeLessThan(2 * full.refused.length);
    expect(first.stats().rejected["not-stored"]).toBe(full.refused.length);

    // Room again: the next write succeeds, and the end of the burst is said.
    disk.capacity = 10_000_000;
    expect((await post(first, "after-room", 100)).status).toBe(200);
    expectOncePerBurst(problems, join(dir, LOG_FILE));
    expect(problems.at(-1)?.kind).toBe("recovered");
    const refusedInBursts = problems.reduce((sum, p) => sum + (p.kind === "recovered" ? p.refused : 0), 0);
    expect(refusedInBursts).toBe(full.refused.length);

    await stop(first);
    const second = await start(dir);
    expect(second.storeRecovery).toBeUndefined();
    const ids = await storedIds(second);
    expect(full.acknowledged.filter((id) => !ids.includes(id))).toEqual([]);
    expect(ids.filter((id) => full.refused.includes(id))).toEqual([]);
    expect(ids).toContain("after-room");
  });

  it("never writes after bytes it could not cut off, and refuses a record whose sync failed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-sink-store-"));
    const disk = { capacity: 5_000, faults: { truncate: 2 } };
    const first = await start(dir, { openStoreFile: fillingDisk(disk) });
    expect((await post(first, "kept-1", 1_000)).status).toBe(200);
    // Short write, then the cut back fails: the record is refused, the torn bytes stay for now.
    expect((await post(first, "torn", 8_000)).status).toBe(500);
    disk.capacity = 10_000_000;
    // The cut fails again before this write: refused rather than written after torn bytes.
    expect((await post(first, "refused", 100)).status).toBe(500);
    expect((await post(first, "kept-2", 100)).status).toBe(200);
    (disk as { faults: { datasync?: number } }).faults.datasync = 1;
    expect((await post(first, "not-synced", 100)).status).toBe(500);
    expect((await post(first, "kept-3", 100)).status).toBe(200);
    expect(logLines(dir).map((r) => (r as { orderId: string }).orderId)).toEqual([
      "kept-1",
      "kept-2",
      "kept-3",
    ]);
    await stop(first);
    const second = await start(dir);
    expect(second.storeRecovery).toBeUndefined();
    expect(await storedIds(second)).toEqual(["kept-1", "kept-2", "kept-3"]);
  });
});

describe("callback store: a torn log never stops a start", () => {
  const record = (seq: number, id: string) =>
    JSON.stringify({
      seq,
      receivedAt: new Date(seq).toISOString(),
      receivedAtMs: seq,
      method: "POST",
      path: "/callbacks/<token>",
      runId: null,
      sentAtMs: null,
      expectedStatus: null,
      headers: {},
      bodyBase64: Buffer.from(JSON.stringify({ id, status: "succeeded" })).toString("base64"),
      contentType: "application/json",
      orderId: id,
      status: "succeeded",
      deliveryOfOrder: 1,
      signature: "not-checked",
      answeredWith: 200,
    });

  it("keeps every whole record of a log with a torn line mid-file (an older sink wrote on after a short write), and says what it dropped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-sink-store-"));
    const torn = record(2, "torn").slice(0, 57);
    writeFileSync(
      join(dir, LOG_FILE),
      `${record(1, "one")}\n${torn}${record(3, "three")}\n${record(4, "four")}\n{"not":"a record"}\n${record(5, "five")}\n`,
    );
    const sink = await start(dir);
    expect(await storedIds(sink)).toEqual(["one", "three", "four", "five"]);
    expect(sink.storeRecovery).toEqual({
      path: join(dir, LOG_FILE),
      droppedLines: 2,
      droppedBytes: Buffer.byteLength(torn) + Buffer.byteLength('{"not":"a record"}\n'),
      lineNumbers: [2, 4],
      kept: 4,
    });
    expect((await post(sink, "six", 10)).status).toBe(200);
    expect(await storedIds(sink)).toEqual(["one", "three", "four", "five", "six"]);
  });

  it("cuts a torn last line off the file (no space needed) and reports it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-sink-store-"));
    const whole = `${record(1, "one")}\n`;
    writeFileSync(join(dir, LOG_FILE), whole);
    appendFileSync(join(dir, LOG_FILE), record(2, "torn").slice(0, 90));
    const sink = await start(dir);
    expect(statSync(join(dir, LOG_FILE)).size).toBe(Buffer.byteLength(whole));
    expect(sink.storeRecovery).toMatchObject({
      droppedLines: 1,
      droppedBytes: 90,
      lineNumbers: [2],
      kept: 1,
    });
    expect((await post(sink, "two", 10)).status).toBe(200);
    expect(logLines(dir)).toHaveLength(2);
  });
});

/** Why a tmpfs cannot be mounted here, or undefined when it can (root, and mount permitted). */
const TMPFS_MISSING: string | undefined = (() => {
  const probe = mkdtempSync(join(tmpdir(), "h2h-tmpfs-probe-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { encoding: "utf8" });
  if (mounted.status === 0) spawnSync("umount", [probe]);
  rmSync(probe, { recursive: true, force: true });
  return mounted.status === 0
    ? undefined
    : `mount -t tmpfs is not permitted here (${(mounted.stderr || mounted.error?.message || `exit ${mounted.status}`).trim()})`;
})();

describe.skipIf(TMPFS_MISSING !== undefined)(
  `callback store on a real 256 KiB tmpfs filling up, with restarts${TMPFS_MISSING ? ` (skipped: ${TMPFS_MISSING})` : ""}`,
  () => {
    let mountDir: string;
    beforeAll(() => {
      mountDir = mkdtempSync(join(tmpdir(), "h2h-sink-tmpfs-"));
      const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountDir], {
        encoding: "utf8",
      });
      expect(mounted.status, mounted.stderr).toBe(0);
    });
    afterAll(() => {
      // Lazily when busy (a failed test's open file): the mount must not outlive the test run.
      if (spawnSync("umount", [mountDir]).status !== 0) spawnSync("umount", ["-l", mountDir]);
      rmSync(mountDir, { recursive: true, force: true });
    });

    it("acknowledges only what it stored, always starts again, and every acknowledged callback is readable after each restart", async () => {
      const dir = join(mountDir, "sink");
      mkdirSync(dir);
      // Room to free later: the disk fills, then space comes back as on a real machine.
      const filler = join(mountDir, "filler");
      writeFileSync(filler, Buffer.alloc(40 * 1024));
      const acknowledged: string[] = [];
      const problems: StoreProblem[] = [];
      let sink = await start(dir, { onStoreProblem: (p) => problems.push(p) });
      const fill = await burst(sink, "fill", 10, 6, 5_000);
      acknowledged.push(...fill.acknowledged);
      expect(fill.refused.length, "the disk filled up").toBeGreaterThan(0);

      // A restart on the full disk: it starts, and holds every acknowledged callback.
      await stop(sink);
      sink = await start(dir);
      expect(sink.storeRecovery).toBeUndefined();
      let ids = await storedIds(sink);
      expect(acknowledged.filter((id) => !ids.includes(id))).toEqual([]);
      const stillFull = await burst(sink, "still-full", 2, 4, 5_000);
      acknowledged.push(...stillFull.acknowledged);

      // Space again: small callbacks fit after the failed ones, and nothing torn lies between.
      rmSync(filler);
      const again = await burst(sink, "again", 3, 4, 300);
      expect(again.refused).toEqual([]);
      acknowledged.push(...again.acknowledged);
      await stop(sink);
      sink = await start(dir);
      ids = await storedIds(sink);
      expect(acknowledged.filter((id) => !ids.includes(id))).toEqual([]);
      expect(ids.filter((id) => !acknowledged.includes(id))).toEqual([]);
      expect(logLines(dir)).toHaveLength(acknowledged.length);
      expectOncePerBurst(problems, join(dir, LOG_FILE));
    });

    it("npm run sink says what a start dropped, and once per burst that the disk refuses, with the log's path", async () => {
      const dir = join(mountDir, "sink-command");
      mkdirSync(dir);
      const log = join(dir, LOG_FILE);
      writeFileSync(log, '{"seq":1,"receivedAt":"2026-');
      const filler = join(mountDir, "filler-command");
      writeFileSync(
        filler,
        Buffer.alloc(Math.max(0, statfsSync(mountDir).bavail * statfsSync(mountDir).bsize - 24 * 1024)),
      );
      const child = spawn(process.execPath, [...commandArgs("sink"), "--data-dir", dir, "--token", TOKEN], {
        stdio: ["ignore", "pipe", "pipe"],
        env: childEnv({ H2H_PROFILE: "" }),
      });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = "";
          child.stdout?.on("data", (chunk: Buffer) => {
            out += chunk.toString();
            const match = /LISTENING (\S+)/.exec(out);
            if (match?.[1]) resolve(match[1]);
          });
          child.once("exit", (code) => reject(new Error(`sink exited (${code}): ${out}${stderr}`)));
        });
        expect(stderr).toContain(`sink: ${log}: dropped 1 unreadable line(s), 28 bytes (line 1)`);
        const sink = { callbackUrl: () => `${url}/callbacks/${TOKEN}` } as RunningSink;
        let refused = 0;
        for (let i = 0; i < 12; i++) if ((await post(sink, `c-${i}`, 5_000)).status === 500) refused += 1;
        expect(refused).toBeGreaterThan(0);
        rmSync(filler);
        expect((await post(sink, "after-room", 100)).status).toBe(200);
        const lines = stderr.split("\n").filter((line) => line.startsWith("sink: cannot store"));
        expect(lines.length).toBeGreaterThan(0);
        expect(lines[0]).toMatch(
          new RegExp(
            `^sink: cannot store callbacks: ${log.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: .*(ENOSPC|no space|none of the bytes)`,
          ),
        );
        // One line per burst: each failing line is followed by a line saying writes succeed again.
        const said = stderr
          .split("\n")
          .filter((line) => /^sink: (cannot store|storing callbacks again)/.test(line));
        expect(said.map((line) => line.startsWith("sink: cannot store"))).toEqual(
          said.map((_, i) => i % 2 === 0),
        );
        expect(said.at(-1)).toMatch(
          /^sink: storing callbacks again in .*callback\(s\) were answered 500 not-stored meanwhile$/,
        );
      } finally {
        child.kill("SIGTERM");
        await exited;
      }
    });
  },
);
