/**
 * scripts/tsx.mjs, which every npm script imports before its TypeScript: what it must keep for a
 * user is that a stack trace points at the .ts line, and that a checkout without node_modules is
 * told to run `npm ci` rather than shown Node's stack trace.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileTimeout, runNode, TS_NODE_ARGS } from "../fixtures/testing/index.ts";

fileTimeout(30_000);

const dir = mkdtempSync(join(tmpdir(), "h2h-tsx-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A TypeScript file that throws on its fourth line. */
function throwing(folder: string): string {
  const file = join(folder, "throws.ts");
  writeFileSync(
    file,
    'const where: string = "here";\ninterface Unused {\n  a: number;\n}\nthrow new Error(where);\n',
  );
  return file;
}

describe("node --import ./scripts/tsx.mjs <file.ts>", () => {
  it("runs TypeScript with stack traces at the .ts lines", async () => {
    const file = throwing(dir);
    const { exitCode, stderr } = await runNode([...TS_NODE_ARGS, file]);
    expect(exitCode).toBe(1);
    expect(stderr).toContain("Error: here");
    expect(stderr).toContain(`${file}:5:7`);
  });

  it("says to run npm ci when the dependencies are not installed, as in a fresh clone", async () => {
    // A checkout of its own: scripts/tsx.mjs and no node_modules above it.
    const root = join(dir, "fresh-clone");
    mkdirSync(join(root, "scripts"), { recursive: true });
    copyFileSync(new URL("./tsx.mjs", import.meta.url), join(root, "scripts", "tsx.mjs"));
    const { exitCode, stdout, stderr } = await runNode(["--import", "./scripts/tsx.mjs", throwing(root)], {
      cwd: root,
    });
    expect(exitCode).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `error: the dependencies are not installed (no tsx in node_modules): run \`npm ci\` in ${root}/ first\n`,
    );
  });
});
