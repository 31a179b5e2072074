/**
 * What certify and its contract specs say to each other, typed at both ends:
 *
 * - down, the run context: certify hands it to the specs it runs (spec-host.ts), a Vitest of the
 *   `contract` project through `provide`; each spec file reads it with `provided` (spec-context.ts;
 *   no environment variables). Under Vitest it crosses a thread boundary,
 *   so it holds only structured-clone data: strings, numbers, plain objects.
 * - up, the check meta: each test records the check it ran on its task meta, which certify's
 *   check collector reads back.
 */
import type { Finding, GenerationDepth, Profile, RuleSource } from "../../contract/index.ts";
import type { TlsMaterial } from "../../contract/kit/index.ts";
import type { RerunBase } from "./probe-settings.ts";

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
  /** The extra CAs and client certificate every client of the run uses (PEM text), or null. */
  tls: TlsMaterial | null;
  /** H2H_TARGET_IMAGE: the container's secret-looking environment values, masked as the run's secrets. */
  targetEnvSecrets: readonly string[];
  /** When the run's deadline passes (epoch ms): no wait for a rate limit may outlast it. */
  deadlineAt: number;
  /**
   * The target runs in the sink's own process (the bundled reference provider, a mutant of it): its
   * timers and sends wait on the same event loop as the sink's stamps, so a loaded machine delays
   * both. A target elsewhere is delayed only by the sink's stamping.
   */
  targetSharesSinkProcess: boolean;
  /** The generated and stateful probes: seed, depth, merchantOrderID prefix (probe-settings.ts). */
  probes: { seed: number; depth: GenerationDepth; merchantOrderIdPrefix: string };
  /** What a failed check's re-run command repeats of the run's settings (probe-settings.ts). */
  rerun?: RerunBase | undefined;
}

/**
 * How long a spec's test and hook may take: a check may wait for a few requests in a row, each
 * bounded by the profile (twice its requestMs at most, when the machine held it up), plus the waits
 * for rate limits a few requests may take. Callback specs set their own, longer hook timeouts from
 * the profile.
 */
export function specTimeoutsOf(profile: Profile): { testTimeout: number; hookTimeout: number } {
  const rateLimitAllowance = 3 * profile.limits.rateLimitRetries * profile.limits.retryAfterMaxMs;
  const requestAtMostMs = 2 * profile.timeouts.requestMs;
  return {
    testTimeout: requestAtMostMs * 3 + 5_000 + rateLimitAllowance,
    hookTimeout: requestAtMostMs * 8 + 5_000 + rateLimitAllowance,
  };
}

/** How to reproduce a failure of a generated or stateful probe. */
export interface Reproduction {
  seed: number;
  /** Re-runs just this check against the same target with the same generated inputs, reports apart. */
  command: string;
  /** The smallest request found that still fails (masked JSON, exactly as sent). */
  request?: string;
  /** What shrinking took away from the generated request, in order. */
  shrunk?: string[];
  /** A copy-paste curl command of that request, masked; the key comes from $H2H_API_KEY. */
  curl?: string;
  /** For a stateful probe: the moves that lead to the failure, in order. */
  steps?: string[];
}

export interface CheckMeta {
  check: string;
  /** "not evaluated": a failure it depends on came first (see `blockedBy`). */
  outcome: "passed" | "failed" | "not evaluated";
  detail: string;
  required: boolean;
  /** Why the check is informational for this target, when it is. */
  informationalReason?: string;
  /** The basis of the rule as judged here: the check's for this profile, or the probed constraint's. */
  ruleSource?: RuleSource;
  /** Ids of the recorded exchanges the check looked at. */
  exchanges: string[];
  /** For callback checks: what arrived, when, for which order. */
  timeline?: CallbackTimeline;
  /** For a failed generated or stateful probe: how to reproduce it. */
  reproduction?: Reproduction;
  // --- one cause per failure, evidence ---
  /** The exchange whose answer the check judged. */
  subject?: string;
  /** On failure, each wrong field (masked). */
  findings?: Finding[];
  /** For "not evaluated": the failure it waits on. */
  blockedBy?: BlockedBy;
  /** Ids of the callbacks the check looked at (`callback-<seq>`). */
  callbacks?: string[];
}

/** The failure a check that was not evaluated waits on. */
export interface BlockedBy {
  /** The check that fails for the cause (e.g. `envelope.shape`). */
  check: string;
  /** The case of that failure, when it has one. */
  case?: string;
  /** The endpoint of that failure, when it is another one. */
  endpoint?: string;
  /** The exchange whose answer is the cause. */
  exchange?: string;
  /** Answers with the same signature failed for the same reason. */
  signature?: string;
  /** The cause in words ("the answer is not JSON (HTTP 502, text/html, …)"). */
  reason: string;
}

/**
 * A spec's setup could not produce what its checks need (an order could not be created). Thrown
 * in a hook or a test, it reaches certify's reporter with the exchange that shows why, so the
 * checks waiting on it are reported "not evaluated, because …", and the cause once.
 */
export class PrerequisiteError extends Error {
  override name = "PrerequisiteError";
  constructor(
    message: string,
    /** The recorded exchange whose answer is the cause. */
    readonly exchangeId: string | undefined,
  ) {
    super(message);
  }
}

export interface CallbackTimeline {
  orderId: string;
  scenario: string;
  /** The run id in the order's callback URL: callbacks that carry it belong to this scenario. */
  tag?: string;
  triggeredAt: string;
  deliveries: {
    status: string;
    arrivedAfterMs: number;
    delivery: number;
    answeredWith: number;
    signature: string;
    /** The callback's id in the report (`callback-<seq>`). */
    callback?: string;
  }[];
}

declare module "vitest" {
  interface ProvidedContext {
    [RUN_CONTEXT_KEY]: RunContext;
  }
}

// TaskMeta is declared in Vitest's runner package and only re-exported by "vitest": augmented
// there, it is the same interface wherever the specs' tasks are typed.
declare module "@vitest/runner" {
  interface TaskMeta {
    h2h?: CheckMeta;
  }
}
