/**
 * Runs the project's TypeScript in Node.js: `node --import ./scripts/ts-loader.mjs scripts/x.ts`.
 *
 * Why not `tsx`: on this project tsx's loader doubles the CPU time of a command's start-up
 * (it resolves every import itself, node_modules included), and the default certification is
 * timed from its launch (`npm run bench:certify`). The sources need no resolver of their own:
 * they import with explicit `.ts` extensions and type-only imports are marked
 * (`verbatimModuleSyntax`), so each file is transformed on its own (esbuild, types stripped) and
 * everything else is left to Node. Transformed files are cached by content in
 * node_modules/.cache/h2h-certify/ts/.
 */
import { register } from "node:module";

register("./ts-loader-hooks.mjs", import.meta.url);
// Stack traces point into the TypeScript sources (the transform inlines a source map).
process.setSourceMapsEnabled(true);
