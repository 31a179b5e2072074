/**
 * What the lifecycle spec's probes share: the run's view of the target (its lifetime, its
 * conventions, the probes' bound), the sandbox clock as the run found it, and why expiry cannot
 * be tried in this run.
 */
import {
  callbacksSandboxClock,
  dataOf,
  type Exchange,
  type LifecycleConventions,
  type LifecycleOperation,
  lifecycleConventionsOf,
  lifetimeSecondsOf,
  type OrderKind,
  type ReachablePair,
  SANDBOX_CLOCK_ADVANCE_PATH,
} from "../../contract/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import type { BlockedBy } from "../engine/run-context.ts";
import { orderRequest } from "./support/orders.ts";
import { Limiter } from "./support/probes.ts";
import type { SpecTarget } from "./support/target.ts";

/** Lifecycle probes in flight at once, both kinds together: each mostly waits (processing, callbacks). */
const LIFECYCLE_CONCURRENCY = 48;
/** After the expected callbacks arrived, how long to listen for ones the model forbids. */
export const QUIET_MS = 400;

export const KIND_TITLES: Record<OrderKind, string> = {
  mobile_commerce: "mobile commerce",
  quasi_ecom: "quasi-ecom",
};

/** The sandbox clock as this run found it: it moves an order's clock, or the profile declares none, or it failed. */
export type Clock = { works: true } | { works: false; failure?: string };

/** The lifecycle spec's run: the target, what follows from its profile, and what the run found. */
export interface LifecycleContext {
  readonly target: SpecTarget;
  readonly profile: SpecTarget["profile"];
  readonly conventions: LifecycleConventions;
  readonly lifetimeSeconds: number | undefined;
  /** The bound on the probes in flight, both kinds together. */
  readonly inFlight: Limiter;
  /**
   * The sandbox clock as this run found it (asked once, before any probe): when it failed, an
   * order's clock is waited out instead, as without one.
   */
  clock: Clock;
  /**
   * Why the expiry probes cannot be evaluated, as the run found the target (set with `clock`): a
   * sandbox clock the profile requires that failed, or a lifetime to wait out that the run's
   * deadline leaves no room for. Never a skip: the profile asks for these checks.
   */
  expiryBlocked?: BlockedBy | undefined;
  /**
   * Why the late confirmation cannot be tried, found once the clock is known: a sandbox clock the
   * profile requires that failed, or a wait the run's deadline leaves no room for. Never a pass.
   */
  lateBlocked?: BlockedBy | undefined;
}

export function lifecycleContext(target: SpecTarget): LifecycleContext {
  const { profile } = target;
  return {
    target,
    profile,
    conventions: lifecycleConventionsOf(profile),
    lifetimeSeconds: lifetimeSecondsOf(profile),
    inFlight: new Limiter(LIFECYCLE_CONCURRENCY),
    clock: { works: false },
  };
}

/** The proof tried after a refusal, sent and answered. */
export interface ProofRun {
  operation: string;
  exchange: Exchange;
  /** Refused when the order's lifetime may have passed: why it is not judged. */
  late?: BlockedBy;
}

/** One order's probe: a path replayed, then one operation, or several that leave its state as it is. */
export interface OrderRun {
  /** The pairs probed on this order, in the order they were tried. */
  pairs: ReachablePair[];
  /** The answer to each pair's operation, when it is a request. */
  answers: Map<ReachablePair, Exchange>;
  /** The pairs expected to be accepted that were refused once the order's lifetime may have passed. */
  late: Map<ReachablePair, BlockedBy>;
  /**
   * The first move expected to be accepted that was refused once the order's lifetime may have
   * passed: the callbacks expected from it on may not come, its expired callback may.
   */
  lateMove?: { expectedBefore: number };
  /** Every exchange of the probe, in order (the path, then the operations). */
  exchanges: Exchange[];
  steps: string[];
  expectedCallbacks: string[];
  /** Whether the order ends awaiting its confirmation: in real time, it expires after its lifetime. */
  endsAwaiting: boolean;
  /** When its creation was sent, ms since the epoch. */
  createdAtMs: number;
  /** How far the sandbox clock moved its clock ahead, in seconds (part of its lifetime). */
  movedAheadS: number;
  /** When its callbacks were collected. */
  collectedAtMs: number;
  tag: string;
  callbacks: StoredCallback[];
  /** The order's creation, sent and answered. */
  creation?: Exchange;
  /** After a refusal, the operation that shows it changed nothing (the state's proof). */
  proof?: ProofRun;
}

/** Why a target cannot have this operation tried (the profile excludes it), or undefined when it can. */
export function unavailable(lc: LifecycleContext, op: LifecycleOperation): string | undefined {
  if (op.needs.includes("second-merchant") && !lc.target.secondApiKey)
    return "H2H_API_KEY_2 is not set: moves by the other merchant need a second merchant's API key";
  if (op.needs.includes("expiry") && lc.lifetimeSeconds === undefined)
    return "the profile provokes expiry manually: the suite cannot make an order expire";
  return undefined;
}

/** Whether a pair's path or operation makes its order expire. */
export const needsExpiry = (ops: readonly LifecycleOperation[]) =>
  ops.some((op) => op.needs.includes("expiry"));

/**
 * Without a working clock, expiry is waited out in real time, at any depth (a skip would certify
 * a target whose expiry was never tried); unless the profile requires the clock, or the wait
 * cannot end before the run's deadline: the expiry probes are then not evaluated.
 */
export function expiryPlan(lc: LifecycleContext): BlockedBy | undefined {
  const { target, profile, conventions, lifetimeSeconds, clock } = lc;
  if (clock.works || lifetimeSeconds === undefined || conventions.expiredStatus === null) return undefined;
  const failure = "failure" in clock ? clock.failure : undefined;
  if (profile.sandboxClock === "required")
    return {
      check: callbacksSandboxClock.name,
      case: conventions.expiredStatus,
      reason: `the sandbox clock the profile requires did not move the order's clock (${failure ?? "not asked"})`,
    };
  // How long the probes of an expired order take once its lifetime is waited out: its callback, a move, the quiet.
  const afterExpiryMs = 2 * profile.timeouts.callbackMs + profile.timeouts.requestMs + QUIET_MS;
  const needMs = (lifetimeSeconds + 1) * 1000 + afterExpiryMs;
  const leftMs = target.deadlineAt - Date.now();
  const why = profile.sandboxClock
    ? `the sandbox clock failed (${failure ?? "not asked"})`
    : "no sandbox clock";
  if (needMs > leftMs)
    return {
      check: "lifecycle.expiry-wait",
      reason:
        `${why}: expiry means waiting out the ${lifetimeSeconds} s lifetime, and the run's deadline ` +
        `leaves ${Math.max(0, Math.floor(leftMs / 1000))} s of the ${Math.ceil(needMs / 1000)} s it needs; give a longer --deadline`,
    };
  if (profile.sandboxClock)
    target.warn(
      `the profile declares a sandbox clock, but it failed (${failure ?? "not asked"}): the lifecycle's expiry ` +
        `probes wait out the order's lifetime (${lifetimeSeconds} s) instead.`,
    );
  return undefined;
}

/** Asks the sandbox clock to move a new order's clock by one second, when the profile declares one. */
export async function askClock(lc: LifecycleContext): Promise<Clock> {
  const { target, profile } = lc;
  if (!profile.sandboxClock) return { works: false };
  const client = target.client();
  const created = await client.createOrder("mobile_commerce", orderRequest(target, "mobile_commerce"));
  const orderId = dataOf(created.response.json)?.id;
  if (typeof orderId !== "string")
    return { works: false, failure: `no order to move: creation answered HTTP ${created.response.status}` };
  const moved = await client.post(SANDBOX_CLOCK_ADVANCE_PATH, { seconds: 1, orderId });
  return moved.response.status === 200
    ? { works: true }
    : { works: false, failure: `HTTP ${moved.response.status} from ${SANDBOX_CLOCK_ADVANCE_PATH}` };
}

export async function waitForCallbacks(lc: LifecycleContext, tag: string, count: number): Promise<void> {
  if (count === 0) return;
  await lc.target
    .sink()
    .client.waitFor({ runId: tag }, { timeoutMs: lc.profile.timeouts.callbackMs, minCount: count });
}
