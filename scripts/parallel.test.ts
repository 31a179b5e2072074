/**
 * scripts/parallel.mjs, which `npm test` starts with: every script runs, each one's output is
 * printed whole, and one failing script fails the whole (its exit code), however the others end.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PARALLEL = fileURLToPath(new URL("./parallel.mjs", import.meta.url));

/** A package with these npm scripts and a copy of parallel.mjs in its scripts/ folder. */
function packageWith(scripts: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "h2h-parallel-"));
  mkdirSync(join(root, "scripts"));
  copyFileSync(PARALLEL, join(root, "scripts", "parallel.mjs"));
  writeFileSync(join(root, "package.json"), JSON.stringify({ scripts }));
  return root;
}

const run = (root: string, names: string[]) =>
  spawnSync(process.execPath, [join(root, "scripts", "parallel.mjs"), ...names], { encoding: "utf8" });

describe("scripts/parallel.mjs", () => {
  it("runs every script side by side and fails with the failing one's exit code", () => {
    const root = packageWith({
      slow: `node -e "setTimeout(() => console.log('slow done'), 300)"`,
      bad: `node -e "console.error('bad says why'); process.exit(3)"`,
      good: "node -e \"console.log('good done')\"",
    });
    const started = Date.now();
    const result = run(root, ["slow", "bad", "good"]);
    expect(result.status, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toContain("slow done");
    expect(result.stdout).toContain("good done");
    expect(result.stdout).toMatch(/> bad: .*\nbad says why\n< bad: failed \(exit code 3\)/);
    expect(result.stdout).toMatch(/< slow: ok in \d+\.\d s/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("exits 0 when every script passes", () => {
    const root = packageWith({ a: "node -e 0", b: "node -e 0" });
    expect(run(root, ["a", "b"]).status).toBe(0);
  });

  it("refuses an unknown script by name, with exit 64, running nothing", () => {
    const root = packageWith({ a: `node -e "console.log('ran')"` });
    const result = run(root, ["a", "nope"]);
    expect(result.status).toBe(64);
    expect(result.stderr).toContain("no npm script named nope in package.json (have: a)");
    expect(result.stdout).not.toContain("ran");
  });
});
