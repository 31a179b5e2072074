/**
 * Where the contract specs are and how Vitest runs them, for certify (spec-runner.ts) and the
 * `contract` project of vitest.config.ts alike. It imports nothing of the suite: the config loads
 * it on every Vitest start, npm test's too.
 */
import { availableParallelism } from "node:os";

export const SPEC_GLOB = "certify/specs/**/*.spec.ts";

/**
 * The spec files run side by side (they mostly wait on the target and the sink), in worker
 * threads that each import the contract once for all the files they run. No isolation: a spec
 * file keeps its state in what `loadSpecTarget` builds for it, not in shared modules.
 */
export const SPEC_POOL = { pool: "threads", isolate: false, fileParallelism: true } as const;

/** Workers of one run: two at least, so that one file's waiting overlaps another's work. */
export const RUN_WORKERS = Math.max(2, availableParallelism());

/**
 * The workers of the `contract` Vitest project: H2H_WORKERS, as certify takes it, else one per
 * core. Read leniently here, in the config every Vitest start loads: the project's global setup
 * parses the settings table, which refuses a bad value by name.
 */
export function contractProjectWorkers(env: NodeJS.ProcessEnv): number {
  const workers = Number(env.H2H_WORKERS);
  return Number.isInteger(workers) && workers >= 1 ? workers : RUN_WORKERS;
}
