/**
 * A certify run killed with SIGKILL runs no cleanup: its temporary folder (exchange files, the
 * sink's store) stays in TMPDIR. It is named with the run's pid and marked, so the next run knows
 * it for a gone run's and removes it (certify/engine/runner.ts calls removeGoneRunFolders first).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeGoneRunFolders } from "../contract/kit/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { spawnCertify } from "./testing/spawn-certify.ts";

fileTimeout(120_000);

const TMP = mkdtempSync(join(tmpdir(), "h2h-killed-run-"));
/**
 * A target that takes connections and never answers: the run waits on its first request, its
 * folder made and its sink started, and is killed there, before any Vitest of its own starts (one
 * killed while starting could leave the shared module cache to the other runs half written).
 */
const held: Socket[] = [];
const silent = createServer((socket) => held.push(socket));
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  rmSync(TMP, { recursive: true, force: true });
});

describe("a certify run killed with SIGKILL", () => {
  it("leaves a folder named with its pid, which the next run removes", async () => {
    let killed: number | undefined;
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    const run = await spawnCertify(
      { TMPDIR: TMP, H2H_REPORT_DIR: join(TMP, "reports"), H2H_BASE_URL: `http://127.0.0.1:${port}` },
      {
        specFiles: ["certify/specs/mobile-commerce.spec.ts"],
        onOutput: (output, pid) => {
          // Once it certifies, its folder holds the sink's store; it waits for the silent target.
          if (killed === undefined && output.includes("h2h-certify: certifying")) {
            killed = pid;
            process.kill(pid, "SIGKILL");
          }
        },
      },
    );
    expect(run.signal, run.output).toBe("SIGKILL");
    const left = readdirSync(TMP).filter((name) => name.startsWith("h2h-certify-"));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(new RegExp(`^h2h-certify-${killed}-\\w{6}$`));
    expect(await removeGoneRunFolders(TMP)).toEqual([join(TMP, left[0] as string)]);
    expect(readdirSync(TMP).filter((name) => name.startsWith("h2h-certify-"))).toEqual([]);
  });
});
