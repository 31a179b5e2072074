/** The clean-room webhook receiver: written from docs/receiver.md alone, using nothing of the suite. */
export { type CleanroomReceiver, type CleanroomReceiverOptions, startCleanroomReceiver } from "./receiver.ts";
