#!/usr/bin/env node
/**
 * `npx h2h-certify <command> [options]`: runs the dispatcher, scripts/h2h-certify, which finds the
 * command in scripts/commands/. Every npm script is `exec node bin/h2h-certify.mjs <command>`: one
 * process, which npm's signals reach.
 *
 * A checkout (the TypeScript beside this file) runs its TypeScript with tsx (scripts/tsx.mjs, which
 * says to run `npm ci` when node_modules is missing), so an edit needs no build and a stale dist/
 * is never run. The installed package ships no TypeScript: it runs the JavaScript compiled into
 * dist/ (`npm run build`); `node dist/scripts/h2h-certify.js` runs that in a checkout.
 */
import { existsSync } from "node:fs";

const source = new URL("../scripts/h2h-certify.ts", import.meta.url);
if (existsSync(source)) {
  await import("../scripts/tsx.mjs");
  const { main } = await import(source.href);
  await main();
} else {
  const { main } = await import("../dist/scripts/h2h-certify.js");
  await main();
}
