export { SinkClient, type SinkClientOptions, type SinkStallReport, type WaitResult } from "./client.ts";
export {
  MachineStallSampler,
  type MachineStallSource,
  readCpuPressureUs,
  readLoadAverage,
} from "./machine-stall.ts";
export {
  type CallbackFilter,
  type RunningSink,
  type SinkOptions,
  startWebhookSink,
} from "./server.ts";
export { LOG_FILE, type StoredCallback } from "./store.ts";
export {
  CallbackTally,
  percentile,
  type RunTally,
  type SinkIntake,
  TALLIED_STATUSES,
  type TimelineSeries,
} from "./tally.ts";
