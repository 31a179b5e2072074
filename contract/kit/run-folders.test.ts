import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isProcessGone, makeRunFolder, removeGoneRunFolders } from "./run-folders.ts";

const RUN_FOLDERS = fileURLToPath(new URL("./run-folders.ts", import.meta.url));
/** How npm runs the project's TypeScript (the kit imports nothing above it, so not the fixtures' copy). */
const TS_NODE_ARGS = ["--import", new URL("../../scripts/tsx.mjs", import.meta.url).href];

/** A process that makes its run folder in `parent`, says where, and waits to be killed. */
function folderMaker(parent: string): Promise<{ child: ChildProcess; folder: string }> {
  const code = `import { makeRunFolder } from ${JSON.stringify(RUN_FOLDERS)};
console.log(await makeRunFolder("h2h-certify", process.argv[1])); setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, [...TS_NODE_ARGS, "--input-type=module", "-e", code, parent], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve({ child, folder: out.trim() });
    });
    child.once("exit", (code) =>
      reject(new Error(`the folder maker exited (${code}) before it said: ${out}`)),
    );
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve()),
  );

let parent: string;
let killed: { child: ChildProcess; folder: string };
let living: { child: ChildProcess; folder: string };

beforeAll(async () => {
  parent = mkdtempSync(join(tmpdir(), "h2h-run-folders-test-"));
  [killed, living] = await Promise.all([folderMaker(parent), folderMaker(parent)]);
  writeFileSync(join(killed.folder, "exchanges-x.jsonl"), "{}\n");
  killed.child.kill("SIGKILL");
  await exited(killed.child);
}, 60_000);

afterAll(async () => {
  living?.child.kill("SIGKILL");
  if (living) await exited(living.child);
  rmSync(parent, { recursive: true, force: true });
});

describe("run folders", () => {
  it("are named with the run's pid", () => {
    expect(killed.folder.startsWith(join(parent, `h2h-certify-${killed.child.pid}-`))).toBe(true);
    expect(isProcessGone(killed.child.pid as number)).toBe(true);
    expect(isProcessGone(living.child.pid as number)).toBe(false);
    expect(isProcessGone(process.pid)).toBe(false);
  });

  it("of a run killed with SIGKILL are removed by the next; a living run's, our own and what is not certainly ours stay", async () => {
    const ours = await makeRunFolder("h2h-certify", parent);
    const deadPid = killed.child.pid as number;
    // Named like a gone run's, but with no marker, or a marker of another host, or a file: not certainly ours.
    const unmarked = join(parent, `h2h-load-${deadPid}-abcdef`);
    mkdirSync(unmarked);
    const otherHost = join(parent, `h2h-receiver-${deadPid}-abcdef`);
    mkdirSync(otherHost);
    writeFileSync(join(otherHost, ".h2h-run-folder"), "another-host.example");
    const aFile = join(parent, `h2h-certify-${deadPid}-zzzzzz`);
    writeFileSync(aFile, "");

    expect(await removeGoneRunFolders(parent)).toEqual([killed.folder]);
    expect(existsSync(killed.folder)).toBe(false);
    expect(readdirSync(parent).sort()).toEqual(
      [living.folder, ours, unmarked, otherHost, aFile].map((p) => p.slice(parent.length + 1)).sort(),
    );
  });
});
