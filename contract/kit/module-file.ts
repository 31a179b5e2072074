/**
 * Files that ship beside the code: a checkout runs the TypeScript, the installed package the
 * JavaScript compiled into dist/, where a module's neighbour named in a URL string is still `.ts`
 * in the source (the compiler rewrites import specifiers, not strings).
 */
import { fileURLToPath } from "node:url";

/** Whether this code runs compiled (the package's dist/) rather than as TypeScript (a checkout). */
export const COMPILED = import.meta.url.endsWith(".js");

/** The path of a module beside `base` (an import.meta.url), named as in the source: `./x.ts`. */
export function moduleBeside(name: string, base: string): string {
  const path = fileURLToPath(new URL(name, base));
  return COMPILED && path.endsWith(".ts") ? `${path.slice(0, -3)}.js` : path;
}
