/** The benchmarks behind `npm run bench:*`: each measures against a baseline in the same run. */

export {
  type CertifyBenchResult,
  type CertifyRunTiming,
  CHECKOUT_COMMAND,
  COMPILED_COMMAND,
  compareCertifyEntries,
  runCertifyBench,
} from "./certify-bench.ts";
export { runGenerateBench, type Timing } from "./generate-bench.ts";
export {
  MAX_ACHIEVED_SPREAD,
  OVERHEAD_SCRIPTS,
  runLoadOverheadBench,
  TARGET,
} from "./load-overhead-bench.ts";
export { runMaskingBench } from "./masking-bench.ts";
export { runObserveBench } from "./observe-bench.ts";
export { runObserveJudgingMemory, runObserveSoak, type SoakSample, sampleRow } from "./observe-soak.ts";
export { runProviderBench, runProviderSoak } from "./provider-bench.ts";
export { runSinkBench } from "./sink-bench.ts";
