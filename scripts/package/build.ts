/**
 * `npm run build`: the installed package's code, compiled into dist/ (gitignored, never
 * committed): JavaScript with declarations by tsc (tsconfig.build.json: the product, no tests,
 * test helpers, benchmarks or self-test), and beside it the files the code reads at run time
 * (the bundled profiles and their JSON Schema).
 * The k6 scripts ship compiled too: load:build bundles their JavaScript with esbuild.
 * One tsc for both: the declarations need the whole type check (21.4 s of CPU measured), and the
 * JavaScript added 0.7 s to it, less than a second tool (esbuild per file) would save.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DIST = join(ROOT, "dist");

/** What the compiled code reads beside itself: the files of a folder with an extension. */
const ASSETS = [{ folder: "fixtures/profiles", extension: ".json" }];

export function buildPackage(): void {
  rmSync(DIST, { recursive: true, force: true });
  const tsc = spawnSync(
    process.execPath,
    [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: ROOT,
      stdio: "inherit",
    },
  );
  if (tsc.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (exit ${tsc.status})`);
  for (const { folder, extension } of ASSETS) {
    mkdirSync(join(DIST, folder), { recursive: true });
    for (const name of readdirSync(join(ROOT, folder)).filter((file) => file.endsWith(extension)))
      cpSync(join(ROOT, folder, name), join(DIST, folder, name));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  buildPackage();
  console.log(`dist/ built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
