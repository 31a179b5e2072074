#!/usr/bin/env node
/**
 * `npx h2h-certify <command> [options]` in a checkout: registers tsx (scripts/tsx.mjs, which says
 * to run `npm ci` when node_modules is missing) in this process, then runs the dispatcher,
 * scripts/h2h-certify.ts. One process, as `npm run <command>` is.
 */
await import("../scripts/tsx.mjs");
const { main } = await import("../scripts/h2h-certify.ts");
await main();
