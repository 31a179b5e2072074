/**
 * The lifecycle model's orders: each reachable pair (a state, an operation) is planned onto an
 * order (one of its own, or one shared by probes that leave the state as it is), the order is
 * driven along its path, and its answers and callbacks are collected for the spec to judge.
 */
import {
  answeredAsModelled,
  buildLifecycleModel,
  callbacksFollowLifecycle,
  callbacksSandboxClock,
  dataOf,
  type Exchange,
  type LifecycleModel,
  type LifecycleOperation,
  type LifecycleTransition,
  type OrderKind,
  otherOrderKind,
  type ReachablePair,
  type RefusalTimerInput,
  reachablePairs,
  refusalChangesNothing,
  refusalKeepsTimer,
  SANDBOX_CLOCK_ADVANCE_PATH,
  transitionOf,
} from "../../contract/index.ts";
import { ORDER_KIND_TAGS } from "../../fixtures/index.ts";
import type { StoredCallback } from "../../webhook-sink/index.ts";
import { type BlockedBy, PrerequisiteError } from "../engine/run-context.ts";
import {
  KIND_TITLES,
  type LifecycleContext,
  needsExpiry,
  type OrderRun,
  QUIET_MS,
  unavailable,
  waitForCallbacks,
} from "./lifecycle-context.driver.ts";
import {
  answerCheck,
  callbacksInput,
  proofInput,
  refusedCreations,
  timerInput,
} from "./lifecycle-inputs.driver.ts";
import { refusedAfterLifetime } from "./support/order-lifetime.ts";
import { orderRequest } from "./support/orders.ts";
import { mapLimit, sleep } from "./support/probes.ts";
import { type Settled, settle } from "./support/settled.ts";

/** How long a status change that sends no callback is given to happen. */
const SETTLE_WITHOUT_CALLBACK_MS = 1_000;
/** Without a sandbox clock, how long "part of the lifetime" is (real time). */
const REAL_PART_OF_LIFETIME_S = 1;

/** The callback statuses a state's own settling causes, until it rests. */
function settleChain(lc: LifecycleContext, model: LifecycleModel, stateId: string): string[] {
  const out: string[] = [];
  let state = model.states.find((s) => s.id === stateId);
  while (state?.settlesTo !== undefined) {
    const next = model.states.find((s) => s.id === state?.settlesTo);
    if (next?.status !== undefined && lc.conventions.callbackStatuses.includes(next.status))
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
async function outlive(lc: LifecycleContext, creation: Exchange | undefined): Promise<void> {
  const { lifetimeSeconds, inFlight } = lc;
  const createdBy = creation ? Date.parse(creation.startedAt) + creation.durationMs : Date.now();
  const leftMs = createdBy + ((lifetimeSeconds ?? 0) + 1) * 1000 - Date.now();
  if (leftMs > 0) await inFlight.outside(() => sleep(leftMs));
}

/**
 * On a fresh order: replays `path` (awaiting the settlement of each move before the next), then
 * tries each pair's operation in turn. Several pairs share an order only when each leaves the
 * state as it is; a clock move among them goes last.
 */
async function runOrder(
  lc: LifecycleContext,
  model: LifecycleModel,
  path: readonly string[],
  pairs: ReachablePair[],
  key: string,
): Promise<OrderRun> {
  const { target, profile, lifetimeSeconds } = lc;
  const { merchantOrderIdPrefix } = target.probes;
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
        if (op.refusedBody !== undefined) refusedCreations(profile)[op.refusedBody]?.breaks(kind, body);
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
            : lc.clock.works
              ? Math.max(1, Math.floor((lifetimeSeconds ?? 30) / 3))
              : REAL_PART_OF_LIFETIME_S;
        if (lc.clock.works && op.clock === "part-of-lifetime") run.movedAheadS += seconds;
        if (lc.clock.works)
          exchange = await client.post(SANDBOX_CLOCK_ADVANCE_PATH, { seconds, orderId: needId() });
        else if (op.clock === "past-lifetime") {
          needId();
          await outlive(lc, creation);
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
      if (transition.callbacks.length > 0) await waitForCallbacks(lc, tag, run.expectedCallbacks.length);
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
  run.expectedCallbacks.push(...settleChain(lc, model, state));
  run.endsAwaiting = model.states.find((s) => s.id === state)?.awaitsConfirmation === true;
  return run;
}

/** An order to probe: the path that brings it to a state, then the pairs tried on it. */
type Job = { path: readonly string[]; pairs: ReachablePair[]; key: string };

/** Runs orders side by side, then collects each one's callbacks after one quiet period for all. */
async function runOrders(
  lc: LifecycleContext,
  model: LifecycleModel,
  jobs: readonly Job[],
): Promise<Settled<OrderRun>[]> {
  const done = await mapLimit(jobs, lc.inFlight, (job) =>
    settle(runOrder(lc, model, job.path, job.pairs, job.key)),
  );
  // Every order's expected callbacks, then one quiet period for any the model forbids.
  await Promise.all(
    done.map((run) =>
      run.ok ? waitForCallbacks(lc, run.value.tag, run.value.expectedCallbacks.length) : undefined,
    ),
  );
  await sleep(QUIET_MS);
  const byTag = new Map<string, StoredCallback[]>();
  for (const callback of await lc.target.sink().client.list({})) {
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

/** One order kind's model, what of it this run can try, and its probes; run before any test of the file. */
export interface KindProbes {
  model: LifecycleModel;
  /** Every reachable pair of the model: a test each, whether or not it can be tried. */
  everyPair: ReachablePair[];
  opOf: (id: string) => LifecycleOperation;
  /** Why a pair is not tried (a move of its path or itself is unavailable), as the run found the target. */
  reasonOf: (pair: ReachablePair) => string | undefined;
  /** Why a pair that expires its order cannot be evaluated in this run, or undefined. */
  blockedOf: (pair: ReachablePair) => BlockedBy | undefined;
  /** The order each pair was judged on, or why its probe could not run. */
  runs: Map<ReachablePair, Settled<OrderRun>>;
  /** Runs every pair that can be tried, side by side. */
  probe: () => Promise<void>;
}

export function kindProbes(lc: LifecycleContext, kind: OrderKind): KindProbes {
  const model = buildLifecycleModel(kind, lc.conventions);
  const everyPair = reachablePairs(model);
  const opOf = (id: string) => model.operations.find((o) => o.id === id) as LifecycleOperation;
  const reasonOf = (pair: ReachablePair) =>
    [...pair.path, pair.operation].map((id) => unavailable(lc, opOf(id))).find((r) => r !== undefined);
  const blockedOf = (pair: ReachablePair): BlockedBy | undefined => {
    const { expiryBlocked } = lc;
    return expiryBlocked && needsExpiry([...pair.path, pair.operation].map(opOf))
      ? {
          ...expiryBlocked,
          ...(expiryBlocked.check === callbacksSandboxClock.name
            ? { endpoint: `callbacks (${KIND_TITLES[kind]})` }
            : {}),
        }
      : undefined;
  };

  /**
   * Probes that leave the order's state as it is share one order per state, a clock move first:
   * the proof after them then shows whether a refusal set the order's timer back.
   */
  const stays = (pair: ReachablePair) =>
    pair.transition.next === pair.state && opOf(pair.operation).action !== "await-processing";
  const jobsOf = (tried: readonly ReachablePair[]) => {
    const jobs: Job[] = [];
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
    callbacksFollowLifecycle.run(callbacksInput(lc, run)).ok &&
    (run.proof === undefined ||
      (refusalChangesNothing.run(proofInput(run, run.pairs[0] as ReachablePair, run.proof)).ok &&
        (timerInput(lc, run, run.proof) === undefined ||
          refusalKeepsTimer.run(timerInput(lc, run, run.proof) as RefusalTimerInput).ok))) &&
    run.pairs.every((pair) => {
      const judge = answerCheck(lc, model, pair);
      const answer = run.answers.get(pair);
      return !judge || (answer !== undefined && judge.check.run(judge.input(answer) as never).ok);
    });
  const runs = new Map<ReachablePair, Settled<OrderRun>>();
  const probe = async () => {
    const jobs = jobsOf(
      everyPair.filter((pair) => reasonOf(pair) === undefined && blockedOf(pair) === undefined),
    );
    const done = await runOrders(lc, model, jobs);
    // A shared order on which anything went other than modelled cannot say which move caused it:
    // each of its pairs is tried again on an order of its own (one cause per failure).
    const again: Job[] = [];
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
      const redone = await runOrders(lc, model, again);
      for (const [i, run] of redone.entries()) {
        runs.set((again[i] as (typeof again)[number]).pairs[0] as ReachablePair, run);
      }
    }
  };
  return { model, everyPair, opOf, reasonOf, blockedOf, runs, probe };
}
