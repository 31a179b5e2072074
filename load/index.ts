/**
 * The load package's public surface (Node.js side): building the k6 bundles, finding k6, and a
 * whole load run with its reports. The k6 code itself (`lib/`, `scripts/`) is bundled, never
 * imported from outside.
 */
export { buildLoadBundles } from "./harness/build.ts";
export { findLocalK6, HOW_TO_GET_K6 } from "./harness/k6-runner.ts";
export { LOAD_SCRIPTS, NoK6Error, runLoad, runSinkDelivery } from "./harness/run.ts";
export { LoadConfigError, SCENARIOS } from "./lib/config.ts";
export { defaultPreAllocatedVUs, durationSeconds } from "./lib/scenarios.ts";
