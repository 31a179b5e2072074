/**
 * Runs one of the project's TypeScript entry files in Node.js:
 * `node scripts/run-ts.mjs scripts/certify.ts [arguments]`, as every npm script does.
 *
 * The entry and the project files it imports are bundled by esbuild into one ES module, kept in
 * node_modules/.cache/h2h-certify/bundles/ (else the temp folder; H2H_RUN_TS_CACHE to choose) and
 * rebuilt when anything it was built from changes: the content esbuild read of each project file
 * (hashed again at each start, a few milliseconds), where the checkout is, this file, tsconfig.json,
 * esbuild's version and the installed packages (see contextKey). Why one file rather than a loader
 * hook that transforms file by file: Node then links one module instead of about two hundred, and
 * needs no loader thread, which every module load had to pass through, Vitest's own included.
 * `npm run bench:certify` times the default run from its launch.
 *
 * What the bundle keeps of the sources' behaviour:
 * - `import.meta.url` (and `dirname`, `filename`) of each source file is that file's own, so
 *   paths built from it (profiles, spec files, the watchdog) are the same as unbundled (a string
 *   that spells it is left alone);
 * - packages stay outside the bundle (but zod, imported by nearly every file), imported by
 *   absolute path, so the bundle resolves them from wherever it is written;
 * - stack traces point into the TypeScript sources (a linked source map).
 */
import { createHash } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { basename, dirname, extname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
/**
 * Packages bundled in: the ones most of the sources import, cheaper in the bundle than linked as
 * modules. Such a package must not read import.meta.url: `define` turns it into a constant that
 * only project files declare (zod does not).
 */
const BUNDLED_PACKAGES = new Set(["zod"]);
/** How esbuild reads a project file, by its extension; other files it reads as it would. */
const LOADERS = {
  ".ts": "ts",
  ".mts": "ts",
  ".cts": "ts",
  ".js": "js",
  ".mjs": "js",
  ".cjs": "js",
  ".json": "json",
};

/** The package name of a bare import: `zod/v4` → `zod`, `@scope/name/x` → `@scope/name`. */
const packageOf = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

const sha256 = (...parts) => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part).update("\0");
  return hash.digest("hex");
};

/** A folder this process can write, made if need be; undefined when it cannot be. */
function writableFolder(path) {
  try {
    mkdirSync(path, { recursive: true });
    accessSync(path, constants.W_OK);
    return path;
  } catch {
    return undefined;
  }
}

/**
 * Where bundles are kept: H2H_RUN_TS_CACHE when set (the tests' own), else node_modules/.cache when it
 * can be written, else the temp folder (a read-only install, an image run as another user).
 */
function cacheDir() {
  const candidates = process.env.H2H_RUN_TS_CACHE
    ? [process.env.H2H_RUN_TS_CACHE]
    : [
        join(ROOT, "node_modules/.cache/h2h-certify/bundles"),
        join(tmpdir(), `h2h-certify-bundles-${userInfo().uid}`),
      ];
  for (const candidate of candidates) if (writableFolder(candidate)) return candidate;
  throw new Error(
    `no folder to keep the bundle in can be written: ${candidates.join(", ")} (make one writable, or set H2H_RUN_TS_CACHE to a folder that is)`,
  );
}

/**
 * What a bundle depends on besides its project files: where the project is (the bundle holds
 * absolute paths), which entry, this builder, the TypeScript settings, esbuild's version, and the
 * installed packages (npm's record of node_modules: an upgrade changes where imports resolve).
 */
function contextKey(entry) {
  const read = (path) => (existsSync(path) ? readFileSync(path) : "");
  return sha256(
    ROOT,
    entry,
    readFileSync(SELF),
    read(join(ROOT, "tsconfig.json")),
    read(join(ROOT, "node_modules/esbuild/package.json")),
    read(join(ROOT, "node_modules/.package-lock.json")) || read(join(ROOT, "package-lock.json")),
  );
}

/** Writes beside and renames: a process starting meanwhile never reads half a file. */
function writeAtomically(path, contents) {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
}

/**
 * Reads the project's files for esbuild, and keeps the hash of the very bytes it bundled: a file
 * saved while the build runs makes the next start build again, never a bundle of the old text
 * under the new one's key. Each file gets its own `import.meta.url`, `dirname` and `filename`:
 * constants put before its first line (its line numbers stay), which esbuild's `define` puts where
 * the source says `import.meta.…`; strings that merely contain those words are left as written.
 */
function projectFiles(hashes) {
  return {
    name: "project-files",
    setup(build) {
      build.onLoad({ filter: /.*/ }, (args) => {
        if (args.path.includes("/node_modules/")) return undefined;
        const loader = LOADERS[extname(args.path)];
        if (!loader) return undefined;
        const source = readFileSync(args.path, "utf8");
        hashes[args.path] = sha256(source);
        if (loader === "json") return { contents: source, loader };
        const own =
          `const __own_url = ${JSON.stringify(pathToFileURL(args.path).href)}, ` +
          `__own_dirname = ${JSON.stringify(resolve(args.path, ".."))}, ` +
          `__own_filename = ${JSON.stringify(args.path)};`;
        // A shebang line stays first, as a comment after the constants: the line count is the same.
        const body = source.startsWith("#!") ? `//${source.slice(2)}` : source;
        return { contents: `${own}${body}`, loader };
      });
    },
  };
}

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

/** The hash a manifest keeps of a file's content. */
const contentHash = (path) => sha256(readFileSync(path, "utf8"));

/** Whether every project file of a manifest still has the content that was bundled. */
const unchanged = (inputs) =>
  Object.entries(inputs).every(([path, hash]) => existsSync(path) && contentHash(path) === hash);

async function build(entry, dir, manifestPath, context, previous) {
  const esbuild = await import("esbuild");
  const hashes = {};
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
    define: {
      "import.meta.url": "__own_url",
      "import.meta.dirname": "__own_dirname",
      "import.meta.filename": "__own_filename",
    },
    plugins: [projectFiles(hashes), packagesFromRoot],
  });
  // Any other file esbuild read from the project (none today) is hashed as it is now, and so is
  // each tsconfig.json esbuild may have applied to an input: its folder's, or one above it below the
  // root (ROOT ends in a separator, so the root folder itself fails the test: its tsconfig.json is
  // in the context key).
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = resolve(ROOT, input);
    if (path.includes("/node_modules/")) continue;
    hashes[path] ??= contentHash(path);
    for (let dir = dirname(path); dir.startsWith(ROOT); dir = dirname(dir)) {
      const tsconfig = join(dir, "tsconfig.json");
      if (!(tsconfig in hashes) && existsSync(tsconfig)) hashes[tsconfig] = contentHash(tsconfig);
    }
  }
  const key = sha256(context, ...Object.entries(hashes).sort().flat()).slice(0, 20);
  const name = `${basename(entry, ".ts")}-${key}.mjs`;
  for (const file of result.outputFiles) {
    const isMap = file.path.endsWith(".map");
    const text = isMap
      ? file.text
      : file.text.replace("//# sourceMappingURL=bundle.mjs.map", `//# sourceMappingURL=${name}.map`);
    writeAtomically(join(dir, isMap ? `${name}.map` : name), text);
  }
  writeAtomically(manifestPath, JSON.stringify({ entry, context, bundle: name, inputs: hashes }));
  // The bundle this one replaces goes: the cache holds one bundle per entry, not one per edit.
  if (previous && previous !== name)
    for (const old of [previous, `${previous}.map`]) rmSync(join(dir, old), { force: true });
  return join(dir, name);
}

/** The bundle of `entry` (a path from the project root), built when missing or out of date. */
export async function bundleOf(entry) {
  const absolute = resolve(ROOT, entry);
  const dir = cacheDir();
  const context = contextKey(absolute);
  // One manifest per entry of each checkout: named by the entry's absolute path, which it records.
  const manifestPath = join(
    dir,
    `${basename(absolute, extname(absolute))}-${sha256(absolute).slice(0, 16)}.json`,
  );
  let previous;
  try {
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    previous = manifest.bundle;
    if (manifest.entry === absolute && manifest.context === context && unchanged(manifest.inputs)) {
      const bundle = join(dir, manifest.bundle);
      if (existsSync(bundle) && existsSync(`${bundle}.map`)) return bundle;
    }
  } catch {
    // No bundle yet, or an unreadable manifest: build it.
  }
  return build(absolute, dir, manifestPath, context, typeof previous === "string" ? previous : undefined);
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
