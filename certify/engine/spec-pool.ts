/**
 * Where the contract specs are and how Vitest runs them, for certify (spec-runner.ts) and the
 * `contract` project of vitest.config.ts alike. It imports nothing of the suite: the config loads
 * it on every Vitest start, npm test's too.
 */
import { availableParallelism } from "node:os";
import { basename } from "node:path";

/**
 * The spec files' extension: TypeScript in a checkout, JavaScript compiled into dist/ in the
 * installed package (globs are read from the code's root, dist/ there).
 */
const SPEC_EXTENSION = import.meta.url.endsWith(".js") ? "js" : "ts";

export const SPEC_GLOB = `certify/specs/**/*.spec.${SPEC_EXTENSION}`;
export const RECEIVER_SPEC_GLOB = `certify/receiver-specs/**/*.spec.${SPEC_EXTENSION}`;

/** A spec file as reports name it, by its source (`callbacks.spec.ts`), compiled or not. */
export function specFileName(path: string): string {
  return basename(path).replace(/\.spec\.js$/, ".spec.ts");
}

/**
 * The spec files run side by side (they mostly wait on the target and the sink), in worker
 * threads that each import the contract once for all the files they run. No isolation: a spec
 * file keeps its state in what `loadSpecTarget` builds for it, not in shared modules.
 */
export const SPEC_POOL = { pool: "threads", isolate: false, fileParallelism: true } as const;

/** Worker threads of the `contract` Vitest project: two at least, so that one file's waiting overlaps another's work. */
const PROJECT_WORKERS = Math.max(2, availableParallelism());

/**
 * The workers of the `contract` Vitest project: H2H_WORKERS, as certify takes it, else one per
 * core. Read leniently here, in the config every Vitest start loads: the project's global setup
 * parses the settings table, which refuses a bad value by name.
 */
export function contractProjectWorkers(env: NodeJS.ProcessEnv): number {
  const workers = Number(env.H2H_WORKERS);
  return Number.isInteger(workers) && workers >= 1 ? workers : PROJECT_WORKERS;
}
