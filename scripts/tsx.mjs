/**
 * Lets Node.js run the project's TypeScript: bin/h2h-certify.mjs, which every npm script runs as
 * `exec node bin/h2h-certify.mjs <command>`, imports it first; tests and tools use `--import`.
 * (`exec`: the shell npm runs a script in becomes node, so that npm forwards SIGINT and SIGTERM to
 * the command itself and waits for it; a shell in between dies at SIGTERM and npm exits with it.)
 * It registers tsx (source maps on, so stack traces point at .ts lines). Plain JavaScript: it runs
 * before anything is transformed, and in a checkout without node_modules it says what to run
 * instead of Node's stack trace for a missing package.
 */
import { fileURLToPath } from "node:url";

try {
  // What `node --import tsx` loads: tsx's ESM and CommonJS hooks.
  await import("tsx");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
  const root = fileURLToPath(new URL("..", import.meta.url));
  process.stderr.write(
    `error: the dependencies are not installed (no tsx in node_modules): run \`npm ci\` in ${root} first\n`,
  );
  process.exit(1);
}
