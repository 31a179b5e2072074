export { SinkClient } from "./client.ts";
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
export type { StoredCallback } from "./store.ts";
export { CallbackTally, type RunTally, type SinkIntake, type TimelineSeries } from "./tally.ts";
