/**
 * `npm run build`: the installed package's code, compiled into dist/ (gitignored, never
 * committed): JavaScript with declarations by tsc (tsconfig.build.json: the product, no tests,
 * test helpers, benchmarks or self-test), and beside it the files the code reads at run time
 * (the bundled profiles and their JSON Schema). The JavaScript is then bundled by esbuild: each
 * file loaded by its path (ENTRIES) keeps it, the code they share goes into dist/chunks/. Loading
 * a few large modules costs a start far less than loading some 250 small ones.
 * The k6 scripts ship compiled too: load:build bundles their JavaScript with esbuild.
 * One tsc for both: the declarations need the whole type check (21.4 s of CPU measured), and the
 * JavaScript added 0.7 s to it, less than a second tool (esbuild per file) would save.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync, transformSync } from "esbuild";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DIST = join(ROOT, "dist");

/** What the compiled code reads beside itself: the files of a folder with an extension. */
const ASSETS = [{ folder: "fixtures/profiles", extension: ".json" }];

/**
 * The compiled files loaded by their path, which keep it: the bin's entry and the commands it
 * finds in their folder, the package's exports, the spec files the spec host and the Vitest
 * entry find by glob, the Vitest project's setup files, and the files run as a process or
 * bundled again at run time.
 */
const ENTRIES: RegExp[] = [
  /^scripts\/h2h-certify\.js$/,
  /^scripts\/commands\/[^/]+\.js$/,
  /^certify\/(api|vitest)\.js$/,
  /^certify\/engine\/contract-project-(setup|timeouts)\.js$/,
  /^certify\/(specs|receiver-specs)\/[^/]+\.spec\.js$/,
  /^run-setup\/container-watchdog\.js$/,
  /^fixtures\/providers\/reference-image\/entry\.js$/,
];

/** Files k6 reads (its scripts and their library): they stay files, whatever Node.js code shares them. */
const K6_FILES = /^load\/(scripts|lib)\//;

/**
 * The dependencies whose code is bundled in (small, pure JavaScript, loaded on every start); the
 * others stay imports: testcontainers (loaded only for a container), esbuild (a native binary),
 * and the optional peer vitest.
 */
const BUNDLED = new Set(["undici", "zod", "json-schema-faker"]);

function externalPackages(): string[] {
  const { dependencies = {}, peerDependencies = {} } = JSON.parse(
    readFileSync(join(ROOT, "package.json"), "utf8"),
  ) as Record<string, Record<string, string> | undefined>;
  return [...Object.keys(dependencies), ...Object.keys(peerDependencies)]
    .filter((name) => !BUNDLED.has(name))
    .flatMap((name) => [name, `${name}/*`]);
}

/** Stands for the URL of dist/ in the code bundled; each output file defines it from its own place. */
export const DIST_ROOT = "__H2H_DIST_ROOT__";

const jsFilesOf = (folder: string) =>
  readdirSync(folder, { recursive: true, encoding: "utf8" })
    .map((file) => file.split(sep).join("/"))
    .filter((file) => file.endsWith(".js"));

/**
 * A module's own URL (import.meta.url, .filename, .dirname) as its compiled file's, wherever
 * the bundle puts its code: its path in dist/ resolved against dist/'s URL. esbuild reads the
 * module, so only code is changed, never a string that spells import.meta.url.
 */
export function pinModuleUrls(file: string, code: string): string {
  if (!code.includes("import.meta")) return code;
  const tag = `__h2h_${createHash("sha256").update(file).digest("hex").slice(0, 16)}`;
  const { code: read } = transformSync(code, {
    format: "esm",
    define: {
      "import.meta.url": `${tag}_url`,
      "import.meta.filename": `${tag}_file`,
      "import.meta.dirname": `${tag}_dir`,
      "import.meta": `${tag}_meta`,
    },
    logLevel: "silent",
  });
  if (read.includes(`${tag}_meta`)) throw new Error(`${file}: a use of import.meta the bundle cannot keep`);
  const url = `new URL(${JSON.stringify(file)}, ${DIST_ROOT})`;
  const pinned = read
    .replaceAll(`${tag}_url`, `${url}.href`)
    .replaceAll(`${tag}_file`, `__h2hPathOf(${url})`)
    .replaceAll(`${tag}_dir`, `__h2hPathOf(new URL(".", ${url})).replace(/[\\/\\\\]$/, "")`);
  const needsPath = pinned.includes("__h2hPathOf(");
  return `${needsPath ? 'import { fileURLToPath as __h2hPathOf } from "node:url";\n' : ""}${pinned}`;
}

/** The notices of the packages whose code the bundle holds, as their licences ask. */
const NOTICES_FILE = "THIRD-PARTY-NOTICES.txt";

function writeNotices(inputs: readonly string[]): void {
  const packages = new Set<string>();
  for (const input of inputs) {
    const name = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
    if (name) packages.add(name);
  }
  const notices = [...packages].sort().map((name) => {
    const folder = join(ROOT, "node_modules", name);
    const { version, license } = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
      version: string;
      license?: string;
    };
    const file = readdirSync(folder).find((entry) => /^(licen[cs]e|copying)(\.|$)/i.test(entry));
    if (!file) throw new Error(`${name} is bundled into dist/ but ships no licence file to copy`);
    return `${name} ${version} (${license ?? "see below"})\n\n${readFileSync(join(folder, file), "utf8").trim()}\n`;
  });
  writeFileSync(
    join(DIST, NOTICES_FILE),
    `dist/ holds code of these packages, bundled in by esbuild:\n\n${notices.join(`\n${"-".repeat(72)}\n\n`)}`,
  );
}

/** Bundles dist/'s JavaScript: the entries keep their paths, what they share goes to dist/chunks/. */
function bundleDist(): void {
  const files = jsFilesOf(DIST);
  for (const file of files) {
    const code = readFileSync(join(DIST, file), "utf8");
    const pinned = pinModuleUrls(file, code);
    if (pinned !== code) writeFileSync(join(DIST, file), pinned);
  }
  const entries = files.filter((file) => ENTRIES.some((entry) => entry.test(file)));
  const staged = mkdtempSync(join(tmpdir(), "h2h-dist-bundle-"));
  const result = buildSync({
    entryPoints: entries.map((file) => join(DIST, file)),
    outbase: DIST,
    outdir: staged,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: externalPackages(),
    chunkNames: "chunks/[name]-[hash]",
    // The CommonJS dependencies bundled in (undici) require Node.js's own modules.
    banner: {
      js: 'import { createRequire as __h2hRequireOf } from "node:module"; const require = __h2hRequireOf(import.meta.url);',
    },
    metafile: true,
    absWorkingDir: ROOT,
    logLevel: "warning",
  });
  writeNotices(Object.keys(result.metafile.inputs));
  const inputs = new Set(
    Object.keys(result.metafile.inputs).map((input) =>
      relative(DIST, join(ROOT, input)).split(sep).join("/"),
    ),
  );
  for (const file of files) if (inputs.has(file) && !K6_FILES.test(file)) rmSync(join(DIST, file));
  for (const file of jsFilesOf(staged)) {
    const code = readFileSync(join(staged, file), "utf8");
    const up = relative(dirname(join(DIST, file)), DIST)
      .split(sep)
      .join("/");
    const root = `const ${DIST_ROOT} = new URL(${JSON.stringify(up === "" ? "./" : `${up}/`)}, import.meta.url);\n`;
    mkdirSync(dirname(join(DIST, file)), { recursive: true });
    writeFileSync(join(DIST, file), code.includes(DIST_ROOT) ? root + code : code);
  }
  rmSync(staged, { recursive: true, force: true });
}

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
  bundleDist();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  buildPackage();
  console.log(`dist/ built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
