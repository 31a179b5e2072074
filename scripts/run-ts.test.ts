/**
 * scripts/run-ts.mjs, the way every npm script runs the project's TypeScript: a file runs as it
 * would unbundled (its own import.meta.url, its arguments, its exit code, stack traces in the
 * TypeScript source), a changed input is picked up on the next start, an unchanged one is not
 * built again, and a file that does not build is named with its line.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const RUN_TS = fileURLToPath(new URL("./run-ts.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "h2h-run-ts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], { script = RUN_TS, cwd = process.cwd() } = {}) {
  return new Promise<{ exitCode: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("exit", (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
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
const BUNDLES = join(ROOT, "node_modules/.cache/h2h-certify/bundles");
/** The launcher's record of a bundle: where it is, and the files it was built from. */
const manifestOf = (file: string) =>
  JSON.parse(readFileSync(join(BUNDLES, `${relative(ROOT, file).replaceAll("/", "__")}.json`), "utf8")) as {
    bundle: string;
    inputs: string[];
  };

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

  it("builds again when an input changed, and not when none did", async () => {
    const before = manifestOf(entry);
    expect(before.inputs.some((input) => input.endsWith("dependency.ts"))).toBe(true);
    expect(before.inputs.some((input) => input.includes("node_modules/zod/"))).toBe(true);
    const builtAt = statSync(join(BUNDLES, before.bundle)).mtimeMs;
    await run([entry]);
    expect(statSync(join(BUNDLES, before.bundle)).mtimeMs).toBe(builtAt);

    writeFileSync(dependency, 'export const word: string = "second";\n');
    const { stdout } = await run([entry]);
    expect(JSON.parse(stdout).word).toBe("second");
    expect(manifestOf(entry).bundle).not.toBe(before.bundle);
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
    const clone = join(dir, "fresh-clone");
    mkdirSync(join(clone, "scripts"), { recursive: true });
    copyFileSync(RUN_TS, join(clone, "scripts", "run-ts.mjs"));
    writeFileSync(join(clone, "scripts", "hello.ts"), 'console.log("hello");\n');
    const { exitCode, stderr } = await run(["scripts/hello.ts"], {
      script: join(clone, "scripts", "run-ts.mjs"),
      cwd: clone,
    });
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
