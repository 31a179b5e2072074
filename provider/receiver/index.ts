/**
 * The reference webhook receiver, the merchant's side done right (docs/receiver.md), and its
 * faults, which the receiver battery's self-test certifies against.
 */
export {
  RECEIVER_FAULT_LIST,
  RECEIVER_FAULTS,
  type ReceiverFault,
  type ReceiverFaultName,
  receiverFaultsOf,
} from "./faults.ts";
export {
  type HandledCallback,
  RECEIVER_MAX_BODY_BYTES,
  type ReferenceReceiverOptions,
  type RunningReferenceReceiver,
  startReferenceReceiver,
} from "./receiver.ts";
