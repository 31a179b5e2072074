/**
 * What certify and its contract specs say to each other, typed at both ends:
 *
 * - down, the run context: certify hands it to the spec workers through Vitest's `provide`, and
 *   each spec file reads it with `inject` (no environment variables). It crosses a process
 *   boundary, so it holds only structured-clone data: strings, numbers, plain objects.
 * - up, the check meta: each test records the check it ran on its task meta, which certify's
 *   reporter reads back.
 */
import type { Profile, TlsMaterial } from "../contract/index.ts";

/** The run context key under which certify provides {@link RunContext}. */
export const RUN_CONTEXT_KEY = "h2hRun";

export interface RunContext {
  baseUrl: string;
  apiKey: string;
  /** The second merchant's key, or null: cross-merchant checks are then skipped. */
  secondApiKey: string | null;
  callbackSecret: string | null;
  /** The target profile, already read and validated by certify. */
  profile: Profile;
  profilePath: string;
  runId: string;
  /** Where spec workers write their recorded exchanges, for the runner to read back. */
  runDir: string;
  /** The webhook sink certify started for this run. */
  sink: { url: string; token: string; callbackUrl: string };
  /** issue 12: the extra CAs and client certificate every client of the run uses (PEM text), or null. */
  tls: TlsMaterial | null;
  /** issue 12: when the run's deadline passes (epoch ms): no wait for a rate limit may outlast it. */
  deadlineAt: number;
}

export interface CheckMeta {
  check: string;
  outcome: "passed" | "failed";
  detail: string;
  required: boolean;
  /** Why the check is informational for this target, when it is. */
  informationalReason?: string;
  /** Ids of the recorded exchanges the check looked at. */
  exchanges: string[];
  /** For callback checks: what arrived, when, for which order. */
  timeline?: CallbackTimeline;
}

export interface CallbackTimeline {
  orderId: string;
  scenario: string;
  triggeredAt: string;
  deliveries: {
    status: string;
    arrivedAfterMs: number;
    delivery: number;
    answeredWith: number;
    signature: string;
  }[];
}

declare module "vitest" {
  interface ProvidedContext {
    [RUN_CONTEXT_KEY]: RunContext;
  }
  interface TaskMeta {
    h2h?: CheckMeta;
  }
}
