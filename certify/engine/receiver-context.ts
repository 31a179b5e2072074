/**
 * What the receiver battery's run hands its specs (certify/receiver-specs/) through Vitest's
 * `provide`, as run-context.ts does for the contract specs: structured-clone data only.
 */
import type { Profile, ReceiverOrder } from "../../contract/index.ts";

export const RECEIVER_CONTEXT_KEY = "h2hReceiver";

/** Where the receiver battery's specs are: apart from the contract specs (SPEC_GLOB). */
export { RECEIVER_SPEC_GLOB } from "./spec-pool.ts";

/** The burst the speed check times: bounded, and sent a few at a time. */
export const RECEIVER_BURST = { deliveries: 200, concurrency: 20 } as const;

export interface ReceiverRunContext {
  /** The merchant's webhook URL (H2H_RECEIVER_URL). */
  receiverUrl: string;
  /** H2H_CALLBACK_SECRET, or null where the profile's callbacks are unsigned. */
  callbackSecret: string | null;
  profile: Profile;
  profilePath: string;
  runId: string;
  /** Where the specs write their recorded exchanges, for the run to read back. */
  runDir: string;
  deadlineAt: number;
  /** The orders of H2H_RECEIVER_ORDERS, or null: the battery makes up ids the receiver never saw. */
  orders: ReceiverOrder[] | null;
  burst: { deliveries: number; concurrency: number };
}

/** How long a receiver spec's test may take: the burst's rounds, each at most one callback timeout. */
export function receiverTimeoutsOf(
  profile: Profile,
  burst: ReceiverRunContext["burst"],
): { testTimeout: number; hookTimeout: number } {
  const rounds = Math.ceil(burst.deliveries / burst.concurrency) + 4;
  const timeout = profile.timeouts.callbackMs * rounds + 10_000;
  return { testTimeout: timeout, hookTimeout: timeout };
}

declare module "vitest" {
  interface ProvidedContext {
    [RECEIVER_CONTEXT_KEY]: ReceiverRunContext;
  }
}
