#!/usr/bin/env node
/**
 * `npx h2h-certify <command> [options]` in a checkout: registers tsx (scripts/tsx.mjs, which says
 * to run `npm ci` when node_modules is missing) in this process, then runs the dispatcher,
 * scripts/h2h-certify.ts, which finds the command in scripts/commands/. Every npm script is
 * `exec node bin/h2h-certify.mjs <command>`: one process, which npm's signals reach.
 */
await import("../scripts/tsx.mjs");
const { main } = await import("../scripts/h2h-certify.ts");
await main();
