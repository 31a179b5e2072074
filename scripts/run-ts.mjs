/**
 * Runs one of the project's TypeScript entry files in Node.js:
 * `node scripts/run-ts.mjs scripts/certify.ts [arguments]`, as every npm script does.
 *
 * The entry and the project files it imports are bundled by esbuild into one ES module, kept in
 * node_modules/.cache/h2h-certify/bundles/ and rebuilt only when one of its input files changes
 * (their content is hashed at each start, a few milliseconds). Why one file rather than a loader
 * hook that transforms file by file: Node then links one module instead of about two hundred, and
 * needs no loader thread, which every module load had to pass through, Vitest's own included.
 * `npm run bench:certify` times the default run from its launch.
 *
 * What the bundle keeps of the sources' behaviour:
 * - `import.meta.url` (and `dirname`, `filename`) of each source file is that file's own, so
 *   paths built from it (profiles, spec files, the watchdog) are the same as unbundled;
 * - packages stay outside the bundle (but zod, imported by nearly every file), imported by
 *   absolute path, so the bundle resolves them from wherever it is written;
 * - stack traces point into the TypeScript sources (a linked source map).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Part of every bundle's key: a change of the build below makes new bundles. */
const BUILD_FORMAT = "run-ts 1";
/** Packages bundled in: the ones most of the sources import, cheaper in the bundle than linked as modules. */
const BUNDLED_PACKAGES = new Set(["zod"]);

/** The package name of a bare import: `zod/v4` → `zod`, `@scope/name/x` → `@scope/name`. */
const packageOf = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/** Where bundles are kept: in node_modules/.cache when it can be written, else in the temp folder. */
function cacheDir() {
  const preferred = join(ROOT, "node_modules/.cache/h2h-certify/bundles");
  try {
    mkdirSync(preferred, { recursive: true });
    return preferred;
  } catch {
    const fallback = join(tmpdir(), `h2h-certify-bundles-${userInfo().uid}`);
    mkdirSync(fallback, { recursive: true });
    return fallback;
  }
}

/** The key of a bundle: the build format and the content of every input file. */
function keyOf(inputs) {
  const hash = createHash("sha256").update(BUILD_FORMAT);
  for (const input of inputs) hash.update(`\0${input}\0`).update(readFileSync(join(ROOT, input)));
  return hash.digest("hex").slice(0, 20);
}

/** Writes beside and renames: a process starting meanwhile never reads half a file. */
function writeAtomically(path, contents) {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
}

/** Each source file's own `import.meta.url`, `dirname` and `filename`, as literals. */
const ownLocation = {
  name: "own-location",
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      if (args.path.includes("/node_modules/")) return undefined;
      const source = readFileSync(args.path, "utf8");
      const contents = source
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(resolve(args.path, "..")))
        .replaceAll("import.meta.filename", JSON.stringify(args.path));
      return { contents, loader: args.path.endsWith("ts") ? "ts" : "js" };
    });
  },
};

/**
 * A package is what Node resolves it to from the project root, whatever file imports it; all but
 * zod stay imports, by that absolute path, so the bundle needs no node_modules beside it.
 */
const packagesFromRoot = {
  name: "packages-from-root",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (isBuiltin(args.path) || args.importer.includes("/node_modules/")) return undefined;
      const path = fileURLToPath(import.meta.resolve(args.path));
      return { path, external: !BUNDLED_PACKAGES.has(packageOf(args.path)) };
    });
  },
};

async function build(entry, dir, manifestPath) {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20.19",
    write: false,
    metafile: true,
    sourcemap: "linked",
    sourcesContent: false,
    outfile: join(dir, "bundle.mjs"),
    logLevel: "silent",
    plugins: [ownLocation, packagesFromRoot],
  });
  const inputs = Object.keys(result.metafile.inputs).sort();
  const key = keyOf(inputs);
  const name = `${basename(entry, ".ts")}-${key}.mjs`;
  for (const file of result.outputFiles) {
    const isMap = file.path.endsWith(".map");
    const text = isMap
      ? file.text
      : file.text.replace("//# sourceMappingURL=bundle.mjs.map", `//# sourceMappingURL=${name}.map`);
    writeAtomically(join(dir, isMap ? `${name}.map` : name), text);
  }
  writeAtomically(manifestPath, JSON.stringify({ format: BUILD_FORMAT, bundle: name, key, inputs }));
  return join(dir, name);
}

/** The bundle of `entry` (a path from the project root), built when missing or out of date. */
export async function bundleOf(entry) {
  const absolute = resolve(ROOT, entry);
  const dir = cacheDir();
  const manifestPath = join(dir, `${relative(ROOT, absolute).replaceAll("/", "__")}.json`);
  try {
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    if (manifest.format === BUILD_FORMAT && keyOf(manifest.inputs) === manifest.key) {
      const bundle = join(dir, manifest.bundle);
      if (existsSync(bundle) && existsSync(`${bundle}.map`)) return bundle;
    }
  } catch {
    // No bundle yet, an input gone, or a file missing: build it.
  }
  return build(absolute, dir, manifestPath);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [entry, ...args] = process.argv.slice(2);
  if (!entry) {
    process.stderr.write("usage: node scripts/run-ts.mjs <file.ts> [arguments]\n");
    process.exit(64);
  }
  let bundle;
  try {
    bundle = await bundleOf(entry);
  } catch (error) {
    const errors = error?.errors?.map(
      (e) => `${e.location ? `${resolve(ROOT, e.location.file)}:${e.location.line}: ` : ""}${e.text}`,
    );
    // A fresh clone without node_modules fails here first: say what to run, not just what is missing.
    const hint =
      error?.code === "ERR_MODULE_NOT_FOUND" && !existsSync(join(ROOT, "node_modules", "esbuild"))
        ? "\n  the dependencies are not installed: run `npm ci` in this folder first"
        : "";
    process.stderr.write(
      `error: cannot build ${entry}: ${errors?.join("\n  ") ?? error?.message ?? error}${hint}\n`,
    );
    process.exit(1);
  }
  // The command sees itself as `node <entry> [arguments]`, as it would unbundled.
  process.argv = [process.argv[0], resolve(ROOT, entry), ...args];
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(bundle).href);
}
