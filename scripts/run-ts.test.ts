/**
 * scripts/run-ts.mjs, the way every npm script runs the project's TypeScript: a file runs as it
 * would unbundled (its own import.meta.url, its arguments, its exit code, stack traces in the
 * TypeScript source), a changed input is picked up on the next start, an unchanged one is not
 * built again, and a file that does not build is named with its line.
 */

import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runNode } from "../fixtures/testing/index.ts";

const RUN_TS = fileURLToPath(new URL("./run-ts.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "h2h-run-ts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], { script = RUN_TS, cwd = process.cwd() } = {}) {
  return runNode([script, ...args], { cwd, env: { ...process.env, H2H_RUN_TS_CACHE: join(dir, "cache") } });
}

const entry = join(dir, "entry.ts");
const dependency = join(dir, "dependency.ts");
writeFileSync(
  entry,
  [
    'import { readFileSync } from "node:fs";',
    'import { z } from "zod";',
    'import { word } from "./dependency.ts";',
    "",
    "interface Seen { url: string; beside: string; argv: string[]; word: string; parsed: number }",
    "const seen: Seen = {",
    "  url: import.meta.url,",
    '  beside: readFileSync(new URL("./beside.txt", import.meta.url), "utf8"),',
    "  argv: process.argv.slice(1),",
    "  word,",
    "  parsed: z.number().parse(42),",
    "};",
    "console.log(JSON.stringify(seen));",
    'if (process.argv.includes("--throw")) throw new Error("thrown on purpose");',
    'if (process.argv.includes("--exit")) process.exitCode = 7;',
    "",
  ].join("\n"),
);
writeFileSync(join(dir, "beside.txt"), "next to the source");
writeFileSync(dependency, 'export const word: string = "first";\n');
const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The launcher keeps this test's bundles here (H2H_RUN_TS_CACHE), not in the project's cache. */
const BUNDLES = join(dir, "cache");
/** The launcher's record of a bundle: its entry, the bundle, and the hash of each file it was built from. */
const manifestOf = (file: string) => {
  const name = readdirSync(BUNDLES).find(
    (f) => f.endsWith(".json") && JSON.parse(readFileSync(join(BUNDLES, f), "utf8")).entry === file,
  );
  if (!name) throw new Error(`no manifest for ${file} in ${BUNDLES}`);
  return JSON.parse(readFileSync(join(BUNDLES, name), "utf8")) as {
    entry: string;
    bundle: string;
    inputs: Record<string, string>;
  };
};

/**
 * A checkout of its own below the test's folder: scripts/run-ts.mjs, and the project's packages
 * unless `installed` is false (a fresh clone). `run` runs one of its files as its npm scripts would.
 */
function checkout(name: string, { installed = true } = {}) {
  const root = join(dir, name);
  mkdirSync(join(root, "scripts"), { recursive: true });
  copyFileSync(RUN_TS, join(root, "scripts", "run-ts.mjs"));
  if (installed) symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
  return {
    root,
    run: (file: string) => run([file], { script: join(root, "scripts", "run-ts.mjs"), cwd: root }),
  };
}

describe("node scripts/run-ts.mjs <file.ts>", () => {
  it("runs the file as it would run unbundled: its own URL, its arguments, its exit code", async () => {
    const { exitCode, stdout, stderr } = await run([entry, "--exit", "an argument"]);
    expect(exitCode, stderr).toBe(7);
    expect(JSON.parse(stdout)).toEqual({
      url: pathToFileURL(entry).href,
      beside: "next to the source",
      argv: [entry, "--exit", "an argument"],
      word: "first",
      parsed: 42,
    });
  });

  it("points a stack trace at the TypeScript source's line", async () => {
    const { exitCode, stderr } = await run([entry, "--throw"]);
    expect(exitCode).toBe(1);
    expect(stderr).toContain("thrown on purpose");
    expect(stderr).toContain(`${entry}:14:`);
  });

  it("builds again when an input changed, and not when none did, and keeps one bundle per entry", async () => {
    const before = manifestOf(entry);
    expect(Object.keys(before.inputs)).toContain(dependency);
    const builtAt = statSync(join(BUNDLES, before.bundle)).mtimeMs;
    await run([entry]);
    expect(statSync(join(BUNDLES, before.bundle)).mtimeMs).toBe(builtAt);

    writeFileSync(dependency, 'export const word: string = "second";\n');
    const { stdout } = await run([entry]);
    expect(JSON.parse(stdout).word).toBe("second");
    const after = manifestOf(entry);
    expect(after.bundle).not.toBe(before.bundle);
    expect(existsSync(join(BUNDLES, before.bundle))).toBe(false);
    expect(existsSync(join(BUNDLES, after.bundle))).toBe(true);
  });

  it("leaves a string that spells import.meta.url as written", async () => {
    const spells = join(dir, "spells.ts");
    writeFileSync(spells, 'console.log(JSON.stringify(["import.meta.url", import.meta.url]));\n');
    const { stdout, stderr } = await run([spells]);
    expect(JSON.parse(stdout), stderr).toEqual(["import.meta.url", pathToFileURL(spells).href]);
  });

  it("runs each checkout's own code when two checkouts share a cache folder", async () => {
    const urls: string[] = [];
    for (const name of ["checkout-a", "checkout-b"]) {
      const { root, run: runIn } = checkout(name);
      // The same file, byte for byte, in both: only where it is differs.
      writeFileSync(join(root, "scripts", "where.ts"), "console.log(import.meta.url);\n");
      const { stdout, stderr } = await runIn("scripts/where.ts");
      expect(stderr).toBe("");
      urls.push(stdout.trim());
    }
    expect(urls).toEqual(
      ["checkout-a", "checkout-b"].map((c) => pathToFileURL(join(dir, c, "scripts/where.ts")).href),
    );
  });

  it("runs a file that starts with a shebang line, its lines where they were", async () => {
    const shebang = join(dir, "shebang.ts");
    writeFileSync(
      shebang,
      '#!/usr/bin/env node\nconsole.log(import.meta.url);\nthrow new Error("line 3");\n',
    );
    const { stdout, stderr } = await run([shebang]);
    expect(stdout.trim()).toBe(pathToFileURL(shebang).href);
    expect(stderr).toContain(`${shebang}:3:`);
  });

  it("builds again when a tsconfig.json in an input's folder changes", async () => {
    const { root, run: runIn } = checkout("checkout-tsconfig");
    mkdirSync(join(root, "sub"));
    writeFileSync(join(root, "sub", "tsconfig.json"), '{ "compilerOptions": { "strict": true } }\n');
    writeFileSync(join(root, "sub", "x.ts"), 'console.log("x");\n');
    await runIn("sub/x.ts");
    const before = manifestOf(join(root, "sub", "x.ts"));
    expect(Object.keys(before.inputs)).toContain(join(root, "sub", "tsconfig.json"));
    writeFileSync(join(root, "sub", "tsconfig.json"), '{ "compilerOptions": { "strict": false } }\n');
    expect((await runIn("sub/x.ts")).stdout).toBe("x\n");
    expect(manifestOf(join(root, "sub", "x.ts")).bundle).not.toBe(before.bundle);
  });

  it("names a file that does not build, with its line, and exits 1", async () => {
    const broken = join(dir, "broken.ts");
    writeFileSync(
      broken,
      'import { word } from "./dependency.ts";\nconst x: number = ;\nconsole.log(word, x);\n',
    );
    const { exitCode, stderr } = await run([broken]);
    expect(exitCode).toBe(1);
    expect(stderr).toMatch(/^error: cannot build .*broken\.ts: .*broken\.ts:2: /);
  });

  it("says to run npm ci when the dependencies are not installed, as in a fresh clone", async () => {
    const clone = checkout("fresh-clone", { installed: false });
    writeFileSync(join(clone.root, "scripts", "hello.ts"), 'console.log("hello");\n');
    const { exitCode, stderr } = await clone.run("scripts/hello.ts");
    expect(exitCode).toBe(1);
    expect(stderr).toContain("error: cannot build scripts/hello.ts: Cannot find package 'esbuild'");
    expect(stderr).toContain("the dependencies are not installed: run `npm ci` in this folder first");
  });

  it("says how to use it when given no file", async () => {
    const { exitCode, stderr } = await run([]);
    expect(exitCode).toBe(64);
    expect(stderr).toContain("usage: node scripts/run-ts.mjs <file.ts> [arguments]");
  });
});
