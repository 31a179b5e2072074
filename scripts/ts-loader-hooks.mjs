/**
 * The module hooks of ts-loader.mjs (they run on Node's loader thread): a `.ts` file of the
 * project is read, transformed by esbuild to JavaScript (types stripped, nothing bundled) and
 * handed to Node as an ES module; the result is cached by the file's path and content.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const CACHE_DIR = fileURLToPath(new URL("../node_modules/.cache/h2h-certify/ts/", import.meta.url));
/** Part of every cache key: a change of the transform's options or of esbuild makes new entries. */
const TRANSFORM = { loader: "ts", format: "esm", target: "node20.19", sourcemap: "inline" };
let esbuild;
let cacheWritable = true;

async function transformed(path, source) {
  esbuild ??= await import("esbuild");
  const key = createHash("sha256")
    .update(JSON.stringify([esbuild.version, TRANSFORM, path]))
    .update(source)
    .digest("hex");
  const cached = `${CACHE_DIR}${key}.js`;
  try {
    return await readFile(cached, "utf8");
  } catch {
    // Not cached yet: transform below.
  }
  const { code } = await esbuild.transform(source, { ...TRANSFORM, sourcefile: path });
  if (cacheWritable) {
    try {
      await mkdir(CACHE_DIR, { recursive: true });
      // Written aside and renamed: a reader never sees half a file.
      const partial = `${cached}.${process.pid}.partial`;
      await writeFile(partial, code);
      await rename(partial, cached);
    } catch {
      cacheWritable = false;
    }
  }
  return code;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !url.endsWith(".ts") || url.includes("/node_modules/"))
    return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, "utf8");
  return { format: "module", source: await transformed(path, source), shortCircuit: true };
}
