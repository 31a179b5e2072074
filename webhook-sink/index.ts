export { SinkClient, type SinkClientOptions, type SinkStallReport, type WaitResult } from "./client.ts";
export {
  type CallbackFilter,
  DEFAULT_SINK_MAX_CALLBACKS,
  DEFAULT_SINK_MAX_DELIVERIES_PER_ORDER,
  DEFAULT_SINK_MAX_STORED_BYTES,
  type ForwardAnswer,
  type ForwardedCallback,
  RUN_FAULT_REFUSALS,
  type RunningSink,
  type SinkExcess,
  type SinkOptions,
  type SinkStats,
  startWebhookSink,
} from "./server.ts";
export {
  LOG_FILE,
  type StoredCallback,
  type StoreFile,
  type StoreProblem,
  type StoreRecovery,
} from "./store.ts";
export {
  CallbackTally,
  percentile,
  type RunTally,
  type SinkIntake,
  TALLIED_STATUSES,
  type TimelineSeries,
} from "./tally.ts";
