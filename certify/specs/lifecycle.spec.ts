/**
 * The order lifecycle as a model: the statuses and transitions of the profile become
 * one state machine (contract/generation/lifecycle-model.ts), and every operation is tried in every reachable
 * state, on an order of its own: before and after expiry, after each final status, after a wrong
 * code, through the other flow's path, by the other merchant, again with the same merchantOrderID.
 * The model says what each answer must be, and which callbacks the order's moves cause (none for a
 * move that changes nothing). Then `timer`: an order whose clock is N seconds ahead (the sandbox
 * clock, or real time without one) answers a timer N seconds lower.
 *
 * States an order leaves by itself (processing) are probed before they settle, with answers that
 * hold in the state they settle to as well; a move is made on a state only once the callbacks of
 * the moves before it arrived; the sandbox clock is never moved in a state that is still settling.
 */
import { beforeAll, describe, it } from "vitest";
import {
  AFTER_WRONG_CODE,
  acceptanceExplained,
  acceptsMerchantOrderIdOfOtherMerchant,
  answeredAsModelled,
  buildLifecycleModel,
  type Check,
  callbacksFollowLifecycle,
  callbacksSandboxClock,
  confirmableAfterWrongCode,
  confirmsLateInLifetime,
  dataOf,
  describeRuleSource,
  type Exchange,
  expectedTimerDrop,
  type LifecycleError,
  type LifecycleModel,
  type LifecycleOperation,
  type LifecycleTransition,
  lifecycleConventionsOf,
  lifetimeSecondsOf,
  type MeasuredRequest,
  NOT_CREATED,
  type Normalisation,
  OPERATIONS_BY_KIND,
  ORDER_KINDS,
  type OrderKind,
  otherOrderKind,
  REFUSED_CREATION,
  type ReachablePair,
  type RefusalProofInput,
  type RefusalTimerInput,
  type RejectionInput,
  reachablePairs,
  refusalChangesNothing,
  refusalKeepsTimer,
  rejectsConfirmAfterExpiry,
  rejectsConfirmingTwice,
  rejectsDuplicateMerchantOrderId,
  rejectsMalformedCode,
  rejectsMethodOfOtherKind,
  rejectsMissingField,
  rejectsNonPositiveAmount,
  rejectsOtherKindConfirmPath,
  rejectsOtherMerchantsOrder,
  rejectsOutOfRange,
  rejectsTrafficTypeOutsideEnum,
  rejectsWrongCode,
  requirementOf,
  SANDBOX_CLOCK_ADVANCE_PATH,
  semanticsStatusAfterOperation,
  semanticsTimerFollowsClock,
  type TimerReads,
  timerCountsDownLifetime,
  transitionOf,
} from "../../contract/index.ts";
import { ORDER_KIND_TAGS } from "../../fixtures/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import { type BlockedBy, PrerequisiteError } from "../engine/run-context.ts";
import { callbackId } from "../reports/callback-evidence.ts";
import { hookTimeoutFor, withinMeasuredBudget } from "./support/measured-budget.ts";
import { mayHaveOutlived, refusedAfterLifetime } from "./support/order-lifetime.ts";
import { orderRequest } from "./support/orders.ts";
import { curlOf, Limiter, mapLimit, reproductionOf, sleep } from "./support/probes.ts";
import { type Settled, settle, settledValue } from "./support/settled.ts";
import { titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
const { profile } = target;
const { merchantOrderIdPrefix } = target.probes;
const conventions = lifecycleConventionsOf(profile);
const lifetimeSeconds = lifetimeSecondsOf(profile);
/** Lifecycle probes in flight at once, both kinds together: each mostly waits (processing, callbacks). */
const LIFECYCLE_CONCURRENCY = 48;
const inFlight = new Limiter(LIFECYCLE_CONCURRENCY);
/** After the expected callbacks arrived, how long to listen for ones the model forbids. */
const QUIET_MS = 400;
/** How long a status change that sends no callback is given to happen. */
const SETTLE_WITHOUT_CALLBACK_MS = 1_000;
/** Without a sandbox clock, how long "part of the lifetime" is (real time). */
const REAL_PART_OF_LIFETIME_S = 1;

const KIND_TITLES: Record<OrderKind, string> = {
  mobile_commerce: "mobile commerce",
  quasi_ecom: "quasi-ecom",
};

/**
 * The sandbox clock as this run found it (asked once, before any probe): it moves an order's
 * clock, or the profile declares none, or it failed (an order's clock is then waited out instead,
 * as without one).
 */
let clock: { works: true } | { works: false; failure?: string } = { works: false };

/**
 * Why the expiry probes cannot be evaluated, as the run found the target (set with `clock`): a
 * sandbox clock the profile requires that failed, or a lifetime to wait out that the run's
 * deadline leaves no room for. Never a skip: the profile asks for these checks.
 */
let expiryBlocked: BlockedBy | undefined;

/** How long the probes of an expired order take once its lifetime is waited out: its callback, a move, the quiet. */
const AFTER_EXPIRY_MS = 2 * profile.timeouts.callbackMs + profile.timeouts.requestMs + QUIET_MS;

/** Why a target cannot have this operation tried (the profile excludes it), or undefined when it can. */
function unavailable(op: LifecycleOperation): string | undefined {
  if (op.needs.includes("second-merchant") && !target.secondApiKey)
    return "H2H_API_KEY_2 is not set: moves by the other merchant need a second merchant's API key";
  if (op.needs.includes("expiry") && lifetimeSeconds === undefined)
    return "the profile provokes expiry manually: the suite cannot make an order expire";
  return undefined;
}

/** Whether a pair's path or operation makes its order expire. */
const needsExpiry = (ops: readonly LifecycleOperation[]) => ops.some((op) => op.needs.includes("expiry"));

/**
 * Without a working clock, expiry is waited out in real time, at any depth (a skip would certify
 * a target whose expiry was never tried); unless the profile requires the clock, or the wait
 * cannot end before the run's deadline: the expiry probes are then not evaluated.
 */
function expiryPlan(): BlockedBy | undefined {
  if (clock.works || lifetimeSeconds === undefined || conventions.expiredStatus === null) return undefined;
  const failure = "failure" in clock ? clock.failure : undefined;
  if (profile.sandboxClock === "required")
    return {
      check: callbacksSandboxClock.name,
      case: conventions.expiredStatus,
      reason: `the sandbox clock the profile requires did not move the order's clock (${failure ?? "not asked"})`,
    };
  const needMs = (lifetimeSeconds + 1) * 1000 + AFTER_EXPIRY_MS;
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
async function askClock(): Promise<typeof clock> {
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

/** Each refused creation's body, from a valid one, and the check that judges its refusal. */
const REFUSED_CREATIONS: Record<
  string,
  { breaks: (kind: OrderKind, body: Record<string, unknown>) => void; check: Check<RejectionInput> }
> = {
  [REFUSED_CREATION.nonPositiveAmount]: {
    breaks: (_kind, body) => {
      body.amount = 0;
    },
    check: rejectsNonPositiveAmount,
  },
  [REFUSED_CREATION.trafficType]: {
    breaks: (_kind, body) => {
      body.trafficType = "bulk";
    },
    check: rejectsTrafficTypeOutsideEnum,
  },
  [REFUSED_CREATION.noMethod]: {
    breaks: (_kind, body) => {
      delete body.methodID;
    },
    check: rejectsMissingField,
  },
  [REFUSED_CREATION.otherKindMethod]: {
    breaks: (kind, body) => {
      body.methodID = profile.methods[otherOrderKind(kind)].methodID;
    },
    check: rejectsMethodOfOtherKind,
  },
  [REFUSED_CREATION.aboveMaximum]: {
    breaks: (kind, body) => {
      body.amount = (profile.methods[kind].maxAmount ?? 0) + 1;
    },
    check: rejectsOutOfRange,
  },
};

/** The proof tried after a refusal, sent and answered. */
interface ProofRun {
  operation: string;
  exchange: Exchange;
  /** Refused when the order's lifetime may have passed: why it is not judged. */
  late?: BlockedBy;
}

/** One order's probe: a path replayed, then one operation, or several that leave its state as it is. */
interface OrderRun {
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

/** The callback statuses a state's own settling causes, until it rests. */
function settleChain(model: LifecycleModel, stateId: string): string[] {
  const out: string[] = [];
  let state = model.states.find((s) => s.id === stateId);
  while (state?.settlesTo !== undefined) {
    const next = model.states.find((s) => s.id === state?.settlesTo);
    if (next?.status !== undefined && conventions.callbackStatuses.includes(next.status))
      out.push(next.status);
    state = next;
  }
  return out;
}

/**
 * In real time: waits until an order has outlived its lifetime, counted from the end of its
 * creation (a second of margin), out of the probes' bound. Orders created together thus share
 * one wait, however many there are.
 */
async function outlive(creation: Exchange | undefined): Promise<void> {
  const createdBy = creation ? Date.parse(creation.startedAt) + creation.durationMs : Date.now();
  const leftMs = createdBy + ((lifetimeSeconds ?? 0) + 1) * 1000 - Date.now();
  if (leftMs > 0) await inFlight.outside(() => sleep(leftMs));
}

async function waitForCallbacks(tag: string, count: number): Promise<void> {
  if (count === 0) return;
  await target
    .sink()
    .client.waitFor({ runId: tag }, { timeoutMs: profile.timeouts.callbackMs, minCount: count });
}

/**
 * On a fresh order: replays `path` (awaiting the settlement of each move before the next), then
 * tries each pair's operation in turn. Several pairs share an order only when each leaves the
 * state as it is; a clock move among them goes last.
 */
async function runOrder(
  model: LifecycleModel,
  path: readonly string[],
  pairs: ReachablePair[],
  key: string,
): Promise<OrderRun> {
  const kind = model.kind;
  const tag = `${target.runId}.lc.${ORDER_KIND_TAGS[kind]}.${key}`;
  const merchantOrderID = `${merchantOrderIdPrefix}-lc-${ORDER_KIND_TAGS[kind]}-${key}`;
  const client = target.client();
  const run: OrderRun = {
    pairs,
    answers: new Map(),
    late: new Map(),
    exchanges: [],
    steps: [],
    expectedCallbacks: [],
    endsAwaiting: false,
    createdAtMs: Date.now(),
    movedAheadS: 0,
    collectedAtMs: 0,
    tag,
    callbacks: [],
  };
  let orderId: string | undefined;
  let creation: Exchange | undefined;
  let state = model.initial;
  // Refusals on an order awaiting confirmation follow a clock move, so that the proof after them
  // shows whether one set the order's timer back (a shared order may probe the move itself first).
  const clockMove = model.operations.find(
    (o) => o.action === "advance-clock" && o.clock === "part-of-lifetime",
  );
  const first = pairs[0];
  const moveClockFirst =
    clockMove !== undefined &&
    first !== undefined &&
    first.operation !== clockMove.id &&
    transitionOf(model, first.state, clockMove.id) !== undefined &&
    pairs.some((pair) => pair.transition.proof !== undefined);
  const moves: [string, ReachablePair | undefined][] = [
    ...path.map((id): [string, undefined] => [id, undefined]),
    ...(moveClockFirst ? [[clockMove.id, undefined] as [string, undefined]] : []),
    ...pairs.map((pair): [string, ReachablePair] => [pair.operation, pair]),
  ];

  /** Makes one move on the order; its answer, when it is a request. */
  const perform = async (op: LifecycleOperation): Promise<Exchange | undefined> => {
    const opId = op.id;
    let exchange: Exchange | undefined;
    const needId = () => {
      if (orderId === undefined)
        throw new PrerequisiteError(
          `the order "${opId}" needs could not be created (${creation ? `HTTP ${creation.response.status}` : "no answer"})`,
          creation?.id,
        );
      return orderId;
    };
    switch (op.action) {
      case "create": {
        const by = op.merchant === "other" ? target.secondClient() : client;
        const body =
          op.merchantOrderId === "fresh"
            ? orderRequest(target, kind, { merchantOrderID, webHook: target.sink().callbackUrl(tag) })
            : // A second order with the same merchantOrderID names no webHook: its callbacks are not this order's.
              orderRequest(target, kind, { merchantOrderID });
        if (op.refusedBody !== undefined) REFUSED_CREATIONS[op.refusedBody]?.breaks(kind, body);
        exchange = await by.createOrder(kind, body);
        if (op.merchantOrderId === "fresh" && op.refusedBody === undefined) {
          creation = exchange;
          run.creation = exchange;
          const id = dataOf(exchange.response.json)?.id;
          orderId = typeof id === "string" ? id : undefined;
        }
        break;
      }
      case "confirm": {
        const by = op.merchant === "other" ? target.secondClient() : client;
        exchange = await by.confirmOrder(
          op.path === "other-kind" ? otherOrderKind(kind) : kind,
          needId(),
          op.code as string,
        );
        break;
      }
      case "advance-clock": {
        const seconds =
          op.clock === "past-lifetime"
            ? (lifetimeSeconds ?? 0) + 1
            : clock.works
              ? Math.max(1, Math.floor((lifetimeSeconds ?? 30) / 3))
              : REAL_PART_OF_LIFETIME_S;
        if (clock.works && op.clock === "part-of-lifetime") run.movedAheadS += seconds;
        if (clock.works)
          exchange = await client.post(SANDBOX_CLOCK_ADVANCE_PATH, { seconds, orderId: needId() });
        else if (op.clock === "past-lifetime") {
          needId();
          await outlive(creation);
        } else await sleep(seconds * 1000);
        break;
      }
      case "await-processing":
        break;
    }
    return exchange;
  };

  /**
   * Whether a confirmation the model expects to be accepted was refused once the order's lifetime
   * may have passed (a slow machine): the refusal may be the expiry, and is not judged.
   */
  const lateRefusal = (
    op: LifecycleOperation,
    transition: LifecycleTransition,
    exchange: Exchange | undefined,
    movedAheadS: number,
  ): BlockedBy | undefined => {
    if (!exchange || op.action !== "confirm" || transition.expect.outcome !== "accepted") return undefined;
    const late = refusedAfterLifetime({
      lifetimeSeconds,
      movedAheadS,
      creation,
      step: exchange,
      what:
        op.code === profile.confirmation.successCode ? "the right code was sent" : `code ${op.code} was sent`,
      expiredAnswer: profile.errors.invalidOrderState,
    });
    if (late && run.lateMove === undefined) run.lateMove = { expectedBefore: run.expectedCallbacks.length };
    return late;
  };

  for (const [opId, pair] of moves) {
    const op = model.operations.find((o) => o.id === opId) as LifecycleOperation;
    const transition = transitionOf(model, state, opId) as LifecycleTransition;
    const aheadBefore = run.movedAheadS;
    const exchange = await perform(op);
    if (exchange) run.exchanges.push(exchange);
    run.steps.push(
      `${opId}${exchange ? ` → HTTP ${exchange.response.status}` : ""}${pair ? " (probed)" : ""}`,
    );
    if (pair && exchange && op.action !== "advance-clock") run.answers.set(pair, exchange);
    const late = lateRefusal(op, transition, exchange, aheadBefore);
    if (pair && late) run.late.set(pair, late);
    // A move on the way whose answer is not the target's own (a proxy's 502) leaves the order in a
    // state no one knows: nothing after it is judged as if the move had been taken.
    if (!pair && exchange && answeredAsModelled(transition.expect, exchange.response.status) === "unknown")
      throw new PrerequisiteError(
        `the order could not be brought to "${transition.next}": ${opId} answered HTTP ${exchange.response.status}, no answer of the target's application, so the order's state is unknown`,
        exchange.id,
      );
    run.expectedCallbacks.push(...transition.callbacks);
    state = transition.next;
    if (!pair) {
      // Await settlement before the next move: the callbacks so far, or a status change that sends none.
      const next = model.states.find((s) => s.id === state);
      if (transition.callbacks.length > 0) await waitForCallbacks(tag, run.expectedCallbacks.length);
      else if (op.action === "await-processing" && next?.status !== undefined)
        await sleep(SETTLE_WITHOUT_CALLBACK_MS);
    }
  }
  // After a refusal: the state's proof, which only an order left as it was answers as modelled.
  const proofId = pairs.some((pair) => pair.transition.proof !== undefined)
    ? model.states.find((s) => s.id === state)?.proof
    : undefined;
  if (proofId !== undefined) {
    const transition = transitionOf(model, state, proofId) as LifecycleTransition;
    const proofOp = model.operations.find((o) => o.id === proofId) as LifecycleOperation;
    const aheadBefore = run.movedAheadS;
    const exchange = await perform(proofOp);
    if (exchange) {
      run.exchanges.push(exchange);
      const late = lateRefusal(proofOp, transition, exchange, aheadBefore);
      run.proof = { operation: proofId, exchange, ...(late ? { late } : {}) };
    }
    run.steps.push(`${proofId}${exchange ? ` → HTTP ${exchange.response.status}` : ""} (proof)`);
    run.expectedCallbacks.push(...transition.callbacks);
    state = transition.next;
  }
  run.expectedCallbacks.push(...settleChain(model, state));
  run.endsAwaiting = model.states.find((s) => s.id === state)?.awaitsConfirmation === true;
  return run;
}

/** Runs orders side by side, then collects each one's callbacks after one quiet period for all. */
async function runOrders(
  model: LifecycleModel,
  jobs: readonly { path: readonly string[]; pairs: ReachablePair[]; key: string }[],
): Promise<Settled<OrderRun>[]> {
  const done = await mapLimit(jobs, inFlight, (job) => settle(runOrder(model, job.path, job.pairs, job.key)));
  // Every order's expected callbacks, then one quiet period for any the model forbids.
  await Promise.all(
    done.map((run) =>
      run.ok ? waitForCallbacks(run.value.tag, run.value.expectedCallbacks.length) : undefined,
    ),
  );
  await sleep(QUIET_MS);
  const byTag = new Map<string, StoredCallback[]>();
  for (const callback of await target.sink().client.list({})) {
    if (callback.runId !== null) byTag.set(callback.runId, [...(byTag.get(callback.runId) ?? []), callback]);
  }
  const collectedAtMs = Date.now();
  for (const run of done) {
    if (!run.ok) continue;
    run.value.callbacks = byTag.get(run.value.tag) ?? [];
    run.value.collectedAtMs = collectedAtMs;
  }
  return done;
}

/** The named check that judges the answer to a probed operation, and the error it expects. */
function answerCheck(
  model: LifecycleModel,
  pair: ReachablePair,
):
  | { check: Check<never>; input: (answer: Exchange) => unknown; normalisation?: Normalisation | undefined }
  | undefined {
  const op = model.operations.find((o) => o.id === pair.operation) as LifecycleOperation;
  const expect = pair.transition.expect;
  if (expect.outcome === "no-request") return undefined;
  const kind = model.kind;
  if (expect.outcome === "accepted") {
    if (op.action === "create" && op.merchantOrderId === "same")
      return { check: acceptsMerchantOrderIdOfOtherMerchant as Check<never>, input: (a) => a.response };
    if (pair.state === AFTER_WRONG_CODE)
      return { check: confirmableAfterWrongCode as Check<never>, input: (a) => a.response };
    const operation = OPERATIONS_BY_KIND[kind][op.action === "create" ? "create" : "confirm"];
    return {
      check: semanticsStatusAfterOperation as Check<never>,
      input: (a) => ({ operation, expected: expect.status, received: dataOf(a.response.json)?.status }),
    };
  }
  const pinned = { httpStatus: expect.httpStatus, codeError: expect.codeError };
  const rejection = (check: Check<RejectionInput>) => ({
    check: check as Check<never>,
    input: (a: Exchange): RejectionInput => ({ response: a.response, pinned }),
    normalisation: op.normalisation,
  });
  if (op.refusedBody !== undefined)
    return rejection(REFUSED_CREATIONS[op.refusedBody]?.check ?? rejectsMissingField);
  if (op.malformedCode !== undefined) return rejection(rejectsMalformedCode);
  if (op.action === "confirm" && op.path === "other-kind") return rejection(rejectsOtherKindConfirmPath);
  if (op.merchant === "other" && op.action === "confirm") return rejection(rejectsOtherMerchantsOrder);
  const byError: Record<LifecycleError, Check<RejectionInput>> = {
    invalidCode: rejectsWrongCode,
    orderNotFound: rejectsOtherMerchantsOrder,
    duplicateMerchantOrderId: rejectsDuplicateMerchantOrderId,
    validation: rejectsMissingField,
    invalidOrderState:
      pair.state === conventions.expiredStatus ? rejectsConfirmAfterExpiry : rejectsConfirmingTwice,
  };
  return rejection(byError[expect.error]);
}

const caseLabel = (pair: ReachablePair) => `${pair.state}: ${pair.operation}`;

/** What the proof after `pair`'s refusal must show, and its answer. */
function proofInput(run: OrderRun, pair: ReachablePair, proof: ProofRun): RefusalProofInput {
  return {
    refused: pair.operation,
    proof: proof.operation,
    shows:
      pair.transition.next === NOT_CREATED
        ? "its merchantOrderID must still be free"
        : "the order must still await its confirmation",
    response: (run.proof ?? proof).exchange.response,
  };
}

/** The timer the proof's confirmation answered, with what the order's age allows; undefined where none is due. */
function timerInput(run: OrderRun, proof: ProofRun): RefusalTimerInput | undefined {
  if (lifetimeSeconds === undefined || run.creation === undefined || proof.operation === "create")
    return undefined;
  const raw = dataOf(proof.exchange.response.json)?.timer;
  const milliseconds = profile.lifecycle.timerUnit === "milliseconds";
  const startOf = (e: Exchange) => Date.parse(e.startedAt);
  const endOf = (e: Exchange) => startOf(e) + e.durationMs;
  return {
    timer: typeof raw === "number" && milliseconds ? raw / 1000 : raw,
    lifetimeSeconds,
    movedSeconds: run.movedAheadS,
    minElapsedSeconds: Math.max(0, (startOf(proof.exchange) - endOf(run.creation)) / 1000),
    maxElapsedSeconds: (endOf(proof.exchange) - startOf(run.creation)) / 1000,
    toleranceSeconds: profile.lifecycle.timerToleranceSeconds,
    timerStepSeconds: milliseconds ? 0.001 : 1,
  };
}

/** Each order kind's probes; run side by side with the timer probes, before any test of the file. */
const probeKind = new Map<OrderKind, () => Promise<void>>();

for (const kind of ORDER_KINDS) {
  const model = buildLifecycleModel(kind, conventions);
  const everyPair = reachablePairs(model);
  const opOf = (id: string) => model.operations.find((o) => o.id === id) as LifecycleOperation;
  /** Why a pair is not tried (a move of its path or itself is unavailable), as the run found the target. */
  const reasonOf = (pair: ReachablePair) =>
    [...pair.path, pair.operation].map((id) => unavailable(opOf(id))).find((r) => r !== undefined);
  /** Why a pair that expires its order cannot be evaluated in this run, or undefined. */
  const blockedOf = (pair: ReachablePair): BlockedBy | undefined =>
    expiryBlocked && needsExpiry([...pair.path, pair.operation].map(opOf))
      ? {
          ...expiryBlocked,
          ...(expiryBlocked.check === callbacksSandboxClock.name
            ? { endpoint: `callbacks (${KIND_TITLES[kind]})` }
            : {}),
        }
      : undefined;

  /**
   * Probes that leave the order's state as it is share one order per state, a clock move first:
   * the proof after them then shows whether a refusal set the order's timer back.
   */
  const stays = (pair: ReachablePair) =>
    pair.transition.next === pair.state && opOf(pair.operation).action !== "await-processing";
  const jobsOf = (tried: readonly ReachablePair[]) => {
    const jobs: { path: readonly string[]; pairs: ReachablePair[]; key: string }[] = [];
    const byState = new Map<string, ReachablePair[]>();
    for (const pair of tried) {
      if (stays(pair)) byState.set(pair.state, [...(byState.get(pair.state) ?? []), pair]);
      else jobs.push({ path: pair.path, pairs: [pair], key: String(jobs.length) });
    }
    for (const pairs of byState.values()) {
      const ordered = [
        ...pairs.filter((p) => opOf(p.operation).action === "advance-clock"),
        ...pairs.filter((p) => opOf(p.operation).action !== "advance-clock"),
      ];
      jobs.push({ path: (ordered[0] as ReachablePair).path, pairs: ordered, key: String(jobs.length) });
    }
    return jobs;
  };

  /** Whether every answer and the callbacks of a shared order are as the model says. */
  const asModelled = (run: OrderRun) =>
    callbacksFollowLifecycle.run(callbacksInput(run)).ok &&
    (run.proof === undefined ||
      (refusalChangesNothing.run(proofInput(run, run.pairs[0] as ReachablePair, run.proof)).ok &&
        (timerInput(run, run.proof) === undefined ||
          refusalKeepsTimer.run(timerInput(run, run.proof) as RefusalTimerInput).ok))) &&
    run.pairs.every((pair) => {
      const judge = answerCheck(model, pair);
      const answer = run.answers.get(pair);
      return !judge || (answer !== undefined && judge.check.run(judge.input(answer) as never).ok);
    });
  /** The order each pair was judged on, or why its probe could not run. */
  const runs = new Map<ReachablePair, Settled<OrderRun>>();
  probeKind.set(kind, async () => {
    const jobs = jobsOf(
      everyPair.filter((pair) => reasonOf(pair) === undefined && blockedOf(pair) === undefined),
    );
    const done = await runOrders(model, jobs);
    // A shared order on which anything went other than modelled cannot say which move caused it:
    // each of its pairs is tried again on an order of its own (one cause per failure).
    const again: { path: readonly string[]; pairs: ReachablePair[]; key: string }[] = [];
    done.forEach((run, i) => {
      const job = jobs[i] as (typeof jobs)[number];
      if (job.pairs.length > 1 && (!run.ok || !asModelled(run.value))) {
        for (const pair of job.pairs)
          again.push({ path: pair.path, pairs: [pair], key: `${job.key}-${again.length}` });
      } else {
        for (const pair of job.pairs) runs.set(pair, run);
      }
    });
    if (again.length > 0) {
      const redone = await runOrders(model, again);
      for (const [i, run] of redone.entries()) {
        runs.set((again[i] as (typeof again)[number]).pairs[0] as ReachablePair, run);
      }
    }
  });

  describe(`lifecycle (${KIND_TITLES[kind]})`, () => {
    const runOf = (pair: ReachablePair) => settledValue(runs.get(pair), `the probe of ${caseLabel(pair)}`);
    const reproduction = (check: string, run: OrderRun, pair: ReachablePair) => {
      const answer = run.answers.get(pair);
      return reproductionOf(target, check, {
        steps: [
          `a new ${kind} order: ${pair.path.join(", then ") || "(none)"}; then ${run.pairs.map((p) => p.operation).join(", then ")}`,
          ...run.steps,
        ],
        ...(answer ? { request: answer.request.body, curl: curlOf(target, answer) } : {}),
      });
    };

    /** After a refusal: the proof shows it changed nothing, and the order's timer still runs. */
    const proofTests = (pair: ReachablePair, judge: ReturnType<typeof answerCheck>) => {
      const awaits = model.states.find((s) => s.id === pair.transition.next)?.awaitsConfirmation === true;
      /** Why the proof cannot be judged: the request it follows was not refused. */
      const notRefused = (run: OrderRun): BlockedBy | undefined => {
        const answer = run.answers.get(pair);
        return judge && answer && !judge.check.run(judge.input(answer) as never).ok
          ? {
              check: judge.check.name,
              case: caseLabel(pair),
              reason: `${pair.operation} was not refused, so there is no refusal to undo`,
            }
          : undefined;
      };
      /** A refusal the profile does not require leaves its proof informational too. */
      const waived = () => {
        const requirement = judge ? requirementOf(judge.check, target.profile) : { required: true as const };
        return requirement.required
          ? {}
          : { informationalReason: `the refusal it follows is not required (${requirement.reason})` };
      };
      const prove = (
        check: Check<never>,
        input: (run: OrderRun, proof: ProofRun) => unknown,
        before?: (run: OrderRun, proof: ProofRun) => BlockedBy | undefined,
      ) =>
        it(titled(check, caseLabel(pair)), (ctx) => {
          const reason = reasonOf(pair);
          if (reason) return ctx.skip(reason);
          const expiry = blockedOf(pair);
          if (expiry) return verify(ctx, target, check, undefined as never, [], { blockedBy: expiry });
          const run = runOf(pair);
          const proof = run.proof;
          if (!proof) throw new Error(`${caseLabel(pair)} sent no proof after its refusal`);
          const unrefused = notRefused(run);
          if (unrefused && opOf(pair.operation).refusedBody !== undefined)
            return ctx.skip(`${unrefused.reason} (its refusal is judged by ${unrefused.check} elsewhere)`);
          const blockedBy = unrefused ?? proof.late ?? before?.(run, proof);
          // A step accepted as an advisory (a code a harmless normalisation reads as valid) leaves
          // its proof an advisory too: not evaluated, it must not hold the run back as partial.
          const answer = run.answers.get(pair);
          const explained =
            answer && acceptanceExplained(answer.response.status, judge?.normalisation, target.profile);
          verify(ctx, target, check, input(run, proof) as never, run.exchanges, {
            ...(explained
              ? {
                  informationalReason: `the step it follows was accepted as an advisory (${describeRuleSource(explained)})`,
                }
              : waived()),
            ...(blockedBy ? { blockedBy } : {}),
            subject: proof.exchange,
            reproduction: reproduction(check.name, run, pair),
          });
        });
      prove(refusalChangesNothing as Check<never>, (run, proof) => proofInput(run, pair, proof));
      // The timer is a confirmation's: a refused one must leave it running.
      if (awaits && lifetimeSeconds !== undefined && opOf(pair.operation).action === "confirm")
        prove(
          refusalKeepsTimer as Check<never>,
          (run, proof) => timerInput(run, proof),
          (run, proof) =>
            refusalChangesNothing.run(proofInput(run, pair, proof)).ok
              ? undefined
              : {
                  check: refusalChangesNothing.name,
                  case: caseLabel(pair),
                  reason: "the right code after the refusal was not accepted",
                },
        );
    };

    for (const pair of everyPair) {
      const judge = answerCheck(model, pair);
      // A broken creation's refusal is judged where its rule is probed (derived negatives, the
      // fixed cases); here it only sets up the proof.
      if (judge && opOf(pair.operation).refusedBody === undefined) {
        it(titled(judge.check, caseLabel(pair)), (ctx) => {
          const reason = reasonOf(pair);
          if (reason) return ctx.skip(reason);
          const blockedBy = blockedOf(pair);
          if (blockedBy) return verify(ctx, target, judge.check, undefined as never, [], { blockedBy });
          const run = runOf(pair);
          const answer = run.answers.get(pair);
          if (!answer) throw new Error(`${caseLabel(pair)} sent no request to judge`);
          const late = run.late.get(pair);
          verify(ctx, target, judge.check, judge.input(answer) as never, run.exchanges, {
            ...(late ? { blockedBy: late } : {}),
            normalisation: judge.normalisation,
            subject: answer,
            reproduction: reproduction(judge.check.name, run, pair),
          });
        });
      }
      if (pair.transition.proof !== undefined) proofTests(pair, judge);
      it(titled(callbacksFollowLifecycle, caseLabel(pair)), (ctx) => {
        const reason = reasonOf(pair);
        if (reason) return ctx.skip(reason);
        const blockedBy = blockedOf(pair);
        if (blockedBy)
          return verify(ctx, target, callbacksFollowLifecycle, undefined as never, [], {
            subject: null,
            blockedBy,
          });
        const run = runOf(pair);
        const waived = waivedMoveOf(model, run);
        verify(ctx, target, callbacksFollowLifecycle, callbacksInput(run), run.exchanges, {
          ...(waived ? { informationalReason: waived } : {}),
          subject: null,
          callbacks: run.callbacks.map((c) => callbackId(c.seq)),
          reproduction: reproduction(callbacksFollowLifecycle.name, run, pair),
        });
      });
    }
  });
}

/**
 * One cause, one verdict: when a move of the run expects a refusal that is advisory or waived for
 * this profile, a target may take that move, and the callbacks it then sends cannot fail the run.
 */
function waivedMoveOf(model: LifecycleModel, run: OrderRun): string | undefined {
  for (const pair of run.pairs) {
    const check = answerCheck(model, pair)?.check;
    if (!check) continue;
    const requirement = requirementOf(check, target.profile);
    if (!requirement.required)
      return `the order also went through ${pair.operation}, whose expected answer is not required (${requirement.reason})`;
    const answer = run.answers.get(pair);
    const op = model.operations.find((o) => o.id === pair.operation);
    const explained =
      answer && acceptanceExplained(answer.response.status, op?.normalisation, target.profile);
    if (explained)
      return `the order also went through ${pair.operation}, which the target accepted as an advisory (${describeRuleSource(explained)})`;
  }
  return undefined;
}

function callbacksInput(run: OrderRun) {
  // In real time (no sandbox clock moved it), an order left awaiting its confirmation expires once
  // its lifetime has passed; a slow run may outlast it. A margin for the clocks' skew.
  // A confirmation refused once the lifetime may have passed may be the expiry: what the model
  // expects from it on may not come, and the expired callback may.
  const outlived =
    conventions.expiredStatus !== null &&
    (run.lateMove !== undefined ||
      (run.endsAwaiting &&
        mayHaveOutlived(run.collectedAtMs - run.createdAtMs, lifetimeSeconds, run.movedAheadS)));
  return {
    expected:
      run.lateMove === undefined
        ? run.expectedCallbacks
        : run.expectedCallbacks.slice(0, run.lateMove.expectedBefore),
    received: run.callbacks.map((c) => ({ status: c.status, body: c.bodyBase64 })),
    ...(outlived ? { mayAlsoArrive: [conventions.expiredStatus as string] } : {}),
  };
}

// --- timer ----------------------------------------------------------------------------------------------

interface TimerRun {
  stayed: unknown;
  moved: unknown;
  /** How far the sandbox clock moved the moved order's clock (s); 0 in real time. */
  seconds: number;
  /** In real time: how long the suite waited between the two creations (s). */
  waitedSeconds: number;
  /** When each order was created and each timer read, as measured. */
  reads: TimerReads;
  evidence: Exchange[];
}

/**
 * When a request was sent and its answer received, ms on the suite's clock: what it did on the
 * target happened in between, after Retry-After waits too (the exchange is the last attempt).
 * startedAt keeps whole milliseconds: the answer may come up to one more.
 */
function measured(exchange: Exchange): MeasuredRequest {
  const sentMs = Date.parse(exchange.startedAt);
  return { sentMs, receivedMs: sentMs + Math.ceil(exchange.durationMs) + 1 };
}

/** Two orders, one of them ahead on its clock (or older), confirmed at the same moment. */
async function timerRun(kind: OrderKind): Promise<TimerRun> {
  const client = target.client();
  const create = () => client.createOrder(kind, orderRequest(target, kind));
  const idOf = (e: Exchange) => {
    const id = dataOf(e.response.json)?.id;
    if (typeof id !== "string")
      throw new PrerequisiteError(
        `the timer probe's order could not be created (HTTP ${e.response.status})`,
        e.id,
      );
    return id;
  };
  const evidence: Exchange[] = [];
  let seconds = 0;
  let waitedSeconds = 0;
  let older: Exchange;
  let younger: Exchange;
  if (clock.works) {
    seconds = Math.max(1, Math.floor((lifetimeSeconds ?? 30) / 3));
    [younger, older] = await Promise.all([create(), create()]);
    evidence.push(younger, older);
    evidence.push(await client.post(SANDBOX_CLOCK_ADVANCE_PATH, { seconds, orderId: idOf(older) }));
  } else {
    older = await create();
    // Long enough for the drop to stand out of the tolerance and the doubt the reads leave (a
    // confirmation's time, guessed from this creation's, twice over); the older order must outlive it.
    const doubtS = profile.lifecycle.timerToleranceSeconds + (2 * older.durationMs) / 1000;
    waitedSeconds = Math.max(2, Math.min(doubtS, (lifetimeSeconds ?? Number.POSITIVE_INFINITY) / 2));
    await sleep(waitedSeconds * 1000);
    younger = await create();
    evidence.push(older, younger);
  }
  const [stayedAnswer, movedAnswer] = await Promise.all([
    client.confirmOrder(kind, idOf(younger), profile.confirmation.successCode),
    client.confirmOrder(kind, idOf(older), profile.confirmation.successCode),
  ]);
  evidence.push(stayedAnswer, movedAnswer);
  const inSeconds = (value: unknown) =>
    typeof value === "number" && profile.lifecycle.timerUnit === "milliseconds" ? value / 1000 : value;
  return {
    stayed: inSeconds(dataOf(stayedAnswer.response.json)?.timer),
    moved: inSeconds(dataOf(movedAnswer.response.json)?.timer),
    seconds,
    waitedSeconds,
    reads: {
      stayedCreated: measured(younger),
      movedCreated: measured(older),
      stayedRead: measured(stayedAnswer),
      movedRead: measured(movedAnswer),
    },
    evidence,
  };
}

/**
 * With a sandbox clock, the probe once more (at most {@link TIMER_RUNS} in all) while its reads
 * were so slow that the drop they allow takes in a timer standing still: a busy moment (on either
 * side) blurs one observation, not the next. Every attempt's exchanges are kept as evidence.
 */
const TIMER_RUNS = 3;
async function judgeableTimerRun(kind: OrderKind): Promise<TimerRun> {
  const earlier: Exchange[] = [];
  for (let attempt = 1; ; attempt++) {
    const run = await timerRun(kind);
    const low = expectedTimerDrop(run.seconds, run.reads).least - profile.lifecycle.timerToleranceSeconds;
    if (low > 0 || !clock.works || attempt >= TIMER_RUNS)
      return { ...run, evidence: [...earlier, ...run.evidence] };
    earlier.push(...run.evidence);
  }
}

const timers = new Map<OrderKind, Settled<TimerRun>>();

// --- late in the declared lifetime ----------------------------------------------------------------

/**
 * How far into its declared lifetime an order is confirmed late: past half of it (a target whose
 * orders expire early refuses it), with the rest left for the requests on a loaded machine.
 */
const LATE_PART_OF_LIFETIME = 0.6;
const lateSeconds =
  lifetimeSeconds === undefined
    ? undefined
    : Math.round(lifetimeSeconds * LATE_PART_OF_LIFETIME * 1000) / 1000;

/** The success code's final status: the last one its outcome leads to. */
const successStatus = conventions.outcomes
  .find((o) => o.code === profile.confirmation.successCode)
  ?.statuses.at(-1);

interface LateRun {
  creation: Exchange;
  confirmation: Exchange;
  /** How far the sandbox clock moved the order's clock ahead (s); 0 when the age was waited out. */
  movedSeconds: number;
  /** How long the suite waited in real time before confirming (s). */
  waitedSeconds: number;
  /** Refused when the whole lifetime may have passed on a slow machine: why it is not judged. */
  late?: BlockedBy;
  callbacks: StoredCallback[];
  evidence: Exchange[];
}

/**
 * Why the late confirmation cannot be tried, found once the clock is known: a sandbox clock the
 * profile requires that failed, or a wait the run's deadline leaves no room for. Never a pass.
 */
let lateBlocked: BlockedBy | undefined;

function latePlan(): BlockedBy | undefined {
  if (clock.works || lateSeconds === undefined) return undefined;
  const failure = "failure" in clock ? clock.failure : undefined;
  if (profile.sandboxClock === "required")
    return {
      check: callbacksSandboxClock.name,
      reason: `the sandbox clock the profile requires did not move the order's clock (${failure ?? "not asked"}), so no order can be made ${lateSeconds} s old`,
    };
  const needMs = lateSeconds * 1000 + 2 * profile.timeouts.requestMs + profile.timeouts.callbackMs;
  const leftMs = target.deadlineAt - Date.now();
  if (needMs > leftMs)
    return {
      check: "lifecycle.late-confirmation-wait",
      reason:
        `${profile.sandboxClock ? "the sandbox clock failed" : "no sandbox clock"}: confirming an order late in its life means waiting ` +
        `${lateSeconds} s of its ${lifetimeSeconds} s lifetime, and the run's deadline leaves ` +
        `${Math.max(0, Math.floor(leftMs / 1000))} s of the ${Math.ceil(needMs / 1000)} s it needs; give a longer --deadline`,
    };
  return undefined;
}

/** One order, made `lateSeconds` old on its clock (moved, or waited out), then confirmed with the success code. */
async function lateRun(kind: OrderKind, seconds: number): Promise<LateRun> {
  const client = target.client();
  const tag = `${target.runId}.late.${ORDER_KIND_TAGS[kind]}`;
  const creation = await client.createOrder(
    kind,
    orderRequest(target, kind, { webHook: target.sink().callbackUrl(tag) }),
  );
  const evidence: Exchange[] = [creation];
  const orderId = dataOf(creation.response.json)?.id;
  if (typeof orderId !== "string")
    throw new PrerequisiteError(
      `the late confirmation's order could not be created (HTTP ${creation.response.status})`,
      creation.id,
    );
  let movedSeconds = 0;
  let waitedSeconds = 0;
  if (clock.works) {
    const moved = await client.post(SANDBOX_CLOCK_ADVANCE_PATH, { seconds, orderId });
    evidence.push(moved);
    if (moved.response.status !== 200)
      throw new PrerequisiteError(
        `the sandbox clock did not move the order's clock ${seconds} s ahead (HTTP ${moved.response.status})`,
        moved.id,
      );
    movedSeconds = seconds;
  } else {
    // Counted from the creation's request: the order is at least this old when the code is sent.
    const waitMs = Date.parse(creation.startedAt) + seconds * 1000 - Date.now();
    waitedSeconds = Math.max(0, waitMs) / 1000;
    if (waitMs > 0) await sleep(waitMs);
  }
  const confirmation = await client.confirmOrder(kind, orderId, profile.confirmation.successCode);
  evidence.push(confirmation);
  const late = refusedAfterLifetime({
    lifetimeSeconds,
    movedAheadS: movedSeconds,
    creation,
    step: confirmation,
    what: "the success code was sent late in its life",
    expiredAnswer: profile.errors.invalidOrderState,
  });
  const expectsCallback = successStatus !== undefined && conventions.callbackStatuses.includes(successStatus);
  if (confirmation.response.status === 200 && expectsCallback) await waitForCallbacks(tag, 1);
  const callbacks = expectsCallback ? await target.sink().client.list({ runId: tag }) : [];
  return {
    creation,
    confirmation,
    movedSeconds,
    waitedSeconds,
    ...(late ? { late } : {}),
    callbacks,
    evidence,
  };
}

const lateRuns = new Map<OrderKind, Settled<LateRun>>();

// Both kinds' probes and the timer probes side by side: the file takes as long as the slowest.
// The longest path waits for two processing steps and their callbacks, twice when retried alone;
// without a clock, expiry is waited out. Plus a fixed margin for the stalls of a loaded machine,
// which correct targets reached.
const mayWaitOutExpiry = profile.sandboxClock !== "required" && lifetimeSeconds !== undefined;
const setupBudgetMs =
  profile.timeouts.callbackMs * 6 + (mayWaitOutExpiry ? (lifetimeSeconds + 1) * 2000 : 0) + 30_000;
beforeAll(
  async () => {
    const work = async () => {
      clock = await askClock().catch((error: unknown) => ({
        works: false,
        failure: error instanceof Error ? error.message : String(error),
      }));
      expiryBlocked = expiryPlan();
      lateBlocked = latePlan();
      await Promise.all([
        ...[...probeKind.values()].map((probe) => probe()),
        ...ORDER_KINDS.map(async (kind) => timers.set(kind, await settle(judgeableTimerRun(kind)))),
        ...(lateSeconds !== undefined && lateBlocked === undefined
          ? ORDER_KINDS.map(async (kind) => lateRuns.set(kind, await settle(lateRun(kind, lateSeconds))))
          : []),
      ]);
    };
    await withinMeasuredBudget(target, setupBudgetMs, "the lifecycle probes", work());
  },
  hookTimeoutFor(target, setupBudgetMs),
);

describe("lifecycle (timer)", () => {
  for (const kind of ORDER_KINDS) {
    it(titled(semanticsTimerFollowsClock, KIND_TITLES[kind]), (ctx) => {
      const run = settledValue(timers.get(kind), `the ${KIND_TITLES[kind]} timer probe`);
      verify(
        ctx,
        target,
        semanticsTimerFollowsClock,
        {
          stayed: run.stayed,
          moved: run.moved,
          seconds: run.seconds,
          how: clock.works ? "the sandbox clock" : "real time",
          toleranceSeconds: profile.lifecycle.timerToleranceSeconds,
          lifetimeSeconds,
          reads: run.reads,
          timerStepSeconds: profile.lifecycle.timerUnit === "milliseconds" ? 0.001 : 1,
        },
        run.evidence,
        {
          reproduction: reproductionOf(target, semanticsTimerFollowsClock.name, {
            steps: [
              clock.works
                ? `create two ${kind} orders; move the second one's clock ${run.seconds} s ahead (${SANDBOX_CLOCK_ADVANCE_PATH}); confirm both at once`
                : `create a ${kind} order; wait ${run.waitedSeconds.toFixed(1)} s; create another; confirm both at once`,
            ],
          }),
        },
      );
    });
  }
});

describe("lifecycle (late in the declared lifetime)", () => {
  /** Why the late confirmation is not tried at all: the profile declares no lifetime to probe. */
  const noLifetime =
    lateSeconds === undefined
      ? "the profile provokes expiry manually (callbackTriggers.expired): it declares no lifetime to confirm an order late in"
      : undefined;
  const measuredAge = (run: LateRun) => {
    const created = measured(run.creation);
    const sent = measured(run.confirmation);
    return {
      minElapsedSeconds: Math.max(0, sent.sentMs - created.receivedMs) / 1000,
      maxElapsedSeconds: (sent.receivedMs - created.sentMs) / 1000,
    };
  };
  const steps = (kind: OrderKind, run: LateRun) => [
    run.movedSeconds > 0
      ? `create a ${kind} order; move its clock ${run.movedSeconds} s ahead (${SANDBOX_CLOCK_ADVANCE_PATH}); confirm it with ${profile.confirmation.successCode}`
      : `create a ${kind} order; wait ${run.waitedSeconds.toFixed(1)} s; confirm it with ${profile.confirmation.successCode}`,
  ];
  for (const kind of ORDER_KINDS) {
    it(titled(confirmsLateInLifetime, KIND_TITLES[kind]), (ctx) => {
      if (noLifetime) return ctx.skip(noLifetime);
      if (lateBlocked)
        return verify(ctx, target, confirmsLateInLifetime, undefined as never, [], {
          blockedBy: lateBlocked,
        });
      const run = settledValue(lateRuns.get(kind), `the ${KIND_TITLES[kind]} late confirmation`);
      const age = measuredAge(run);
      verify(
        ctx,
        target,
        confirmsLateInLifetime,
        {
          response: run.confirmation.response,
          lifetimeSeconds: lifetimeSeconds as number,
          ageSeconds: {
            least: run.movedSeconds + age.minElapsedSeconds,
            most: run.movedSeconds + age.maxElapsedSeconds,
          },
          successStatus: successStatus ?? profile.confirmation.successCode,
          callbackStatuses:
            successStatus !== undefined && conventions.callbackStatuses.includes(successStatus)
              ? run.callbacks.map((c) => c.status)
              : undefined,
        },
        run.evidence,
        {
          ...(run.late ? { blockedBy: run.late } : {}),
          subject: run.confirmation,
          callbacks: run.callbacks.map((c) => callbackId(c.seq)),
          reproduction: reproductionOf(target, confirmsLateInLifetime.name, { steps: steps(kind, run) }),
        },
      );
    });
    it(titled(timerCountsDownLifetime, KIND_TITLES[kind]), (ctx) => {
      if (noLifetime) return ctx.skip(noLifetime);
      if (lateBlocked)
        return verify(ctx, target, timerCountsDownLifetime, undefined as never, [], {
          blockedBy: lateBlocked,
        });
      const run = settledValue(lateRuns.get(kind), `the ${KIND_TITLES[kind]} late confirmation`);
      const timer = dataOf(run.confirmation.response.json)?.timer;
      const accepted = run.confirmation.response.status === 200;
      verify(
        ctx,
        target,
        timerCountsDownLifetime,
        {
          timer:
            typeof timer === "number" && profile.lifecycle.timerUnit === "milliseconds"
              ? timer / 1000
              : timer,
          lifetimeSeconds: lifetimeSeconds as number,
          movedSeconds: run.movedSeconds,
          ...measuredAge(run),
          toleranceSeconds: profile.lifecycle.timerToleranceSeconds,
          timerStepSeconds: profile.lifecycle.timerUnit === "milliseconds" ? 0.001 : 1,
        },
        run.evidence,
        {
          ...(accepted
            ? {}
            : {
                blockedBy: run.late ?? {
                  check: confirmsLateInLifetime.name,
                  case: KIND_TITLES[kind],
                  reason: "the late confirmation was not accepted, so it carries no timer",
                },
              }),
          subject: run.confirmation,
          reproduction: reproductionOf(target, timerCountsDownLifetime.name, { steps: steps(kind, run) }),
        },
      );
    });
  }
});
