/**
 * The order lifecycle as one explicit state machine, built from a plain description of a target's
 * conventions (the reference provider's are in docs/api.md; a profile supplies a foreign target's).
 *
 * States are what one order, created by the merchant, can be in; operations are everything a
 * probe can do to it or around it (confirm with each code, with the wrong code, with a code off the
 * code format, through the other order kind's path, as the other merchant; create again with its
 * merchantOrderID, or create it with a body that breaks a rule; move its clock; let processing
 * finish). After a refusal, the state's proof (a creation with the merchantOrderID, the right code)
 * shows that the refusal changed nothing. For every (state, operation) the model says what the target must answer
 * (accepted with a status, or refused with which error), the state the order is in afterwards, and
 * which callbacks that move must cause. {@link reachablePairs} lists every pair a probe can reach,
 * with the operations that lead there, so that every operation is tried in every reachable state.
 *
 * The API description shows no transitions (§3 "Transitions: not shown"): every rule here is a convention of
 * the description, never a fact of the contract.
 */
import type { ErrorAnswerName, Normalisation, OrderKind } from "../schemas/index.ts";

/** The refusals the lifecycle can call for; each maps to the profile's pinned error of that name. */
export type LifecycleError = Extract<
  ErrorAnswerName,
  "invalidOrderState" | "invalidCode" | "orderNotFound" | "duplicateMerchantOrderId" | "validation"
>;

/** What a target documents for a refusal; unset parts accept any 4xx and any codeError but "none". */
export interface ExpectedError {
  httpStatus?: number | undefined;
  codeError?: string | undefined;
}

/** A target's lifecycle conventions, as plain data (the reference provider's in docs/api.md). */
export interface LifecycleConventions {
  /** The status each successful operation answers with, per order kind (§3's observed statuses). */
  statusAfter: Readonly<Record<OrderKind, { create: string; confirm: string }>>;
  /**
   * Confirmation codes with a defined outcome, and the statuses the order enters after the
   * processing delay, in order (`3333`: `failed_by_terminal`, then `succeeded_by_appeal`). The
   * first is the code a plain success uses.
   */
  outcomes: readonly { code: string; statuses: readonly string[] }[];
  /** A well-formed code the target refuses as wrong. */
  wrongCode: string;
  /** The status an order unconfirmed past its lifetime enters; null when the target documents no expiry. */
  expiredStatus: string | null;
  /** Statuses whose entry sends a callback (§6). */
  callbackStatuses: readonly string[];
  errors: Readonly<Record<LifecycleError, ExpectedError>>;
  /** What confirming through the other order kind's confirm path answers, in every state. */
  otherKindConfirm: LifecycleError;
  /** What confirming another merchant's order answers; undefined: any refusal (none is documented). */
  otherMerchantConfirm?: LifecycleError | undefined;
  /** Where merchantOrderID must be unique: per merchant (the API description's wording) or across the service. */
  merchantOrderIdScope: "merchant" | "service";
  /**
   * Creations the target must refuse, each named by the one rule its body breaks (the runner
   * builds the body); each carries the merchantOrderID the order is then created with.
   */
  refusedCreations?: readonly string[] | undefined;
  /** Codes one step off the code format, each named by how: refused, like a wrong code. */
  malformedCodes?: readonly { name: string; code: string; normalisation?: Normalisation }[] | undefined;
}

export type StateId = string;
export type OperationId = string;

export interface LifecycleState {
  id: StateId;
  /** The order's status in this state; undefined before creation. */
  status: string | undefined;
  /** The order can still be confirmed. */
  awaitsConfirmation: boolean;
  /** Nothing moves the order any more. */
  final: boolean;
  /** A state the order leaves by itself after the processing delay, for this one. */
  settlesTo?: StateId;
  /**
   * The operation whose answer shows the order is still in this state, tried after a refusal
   * here: a creation with the merchantOrderID (still free), the right code (still awaited).
   */
  proof?: OperationId;
}

export interface LifecycleOperation {
  id: OperationId;
  action: "create" | "confirm" | "advance-clock" | "await-processing";
  /** The confirmation code sent (confirm). */
  code?: string;
  /** Own kind's confirm path, or the other kind's (confirm). */
  path?: "own" | "other-kind";
  /** Which merchant's API key the request carries. */
  merchant?: "own" | "other";
  /** create: a fresh merchantOrderID, or the order's own. */
  merchantOrderId?: "fresh" | "same";
  /** advance-clock: past the order's lifetime, or part of it (the order must still await confirmation). */
  clock?: "past-lifetime" | "part-of-lifetime";
  /** What a target must offer for this operation to be tried. */
  needs: readonly ("second-merchant" | "expiry")[];
  /** create: the rule its body breaks, so that it is refused. */
  refusedBody?: string;
  /** confirm: how its code is off the code format. */
  malformedCode?: string;
  /** confirm: the harmless normalisation that reads the malformed code as a valid one, if any. */
  normalisation?: Normalisation;
}

export type ExpectedAnswer =
  | { outcome: "accepted"; httpClass: "2xx"; status: string }
  | ({ outcome: "refused"; httpClass: "4xx"; error: LifecycleError } & ExpectedError)
  /** A clock move or a wait: the API itself is not asked anything. */
  | { outcome: "no-request" };

export interface LifecycleTransition {
  state: StateId;
  operation: OperationId;
  expect: ExpectedAnswer;
  next: StateId;
  /** Callback statuses this move must cause, in order; an empty list means none may arrive. */
  callbacks: readonly string[];
  /** What else to check, e.g. that `timer` went down by the seconds the clock moved. */
  also?: string;
  /** A refusal: the operation tried after it to show it changed nothing (its state's proof). */
  proof?: OperationId;
}

export interface LifecycleModel {
  kind: OrderKind;
  initial: StateId;
  states: readonly LifecycleState[];
  operations: readonly LifecycleOperation[];
  transitions: readonly LifecycleTransition[];
}

export const NOT_CREATED = "not-created";
export const AWAITING_CONFIRMATION = "awaiting-confirmation";
export const AFTER_WRONG_CODE = "after-wrong-code";

/** The state after a code's outcome has been entered up to `statuses[index]`. */
function outcomeStateId(statuses: readonly string[], index: number): StateId {
  const rest = statuses.slice(index + 1);
  const status = statuses[index] as string;
  return rest.length === 0 ? status : `${status} (then ${rest.join(", then ")})`;
}

function processingStateId(code: string): StateId {
  return `processing (code ${code})`;
}

function validate(conventions: LifecycleConventions): void {
  const problems: string[] = [];
  if (conventions.outcomes.length === 0)
    problems.push("outcomes: at least one confirmation code with its outcome");
  const codes = conventions.outcomes.map((o) => o.code);
  if (new Set(codes).size !== codes.length)
    problems.push(`outcomes: a code is listed twice (${codes.join(", ")})`);
  if (codes.includes(conventions.wrongCode)) {
    problems.push(`wrongCode: ${conventions.wrongCode} is also listed as an outcome code`);
  }
  for (const outcome of conventions.outcomes) {
    if (outcome.statuses.length === 0) problems.push(`outcomes: code ${outcome.code} leads to no status`);
  }
  if (problems.length > 0) throw new Error(`invalid lifecycle conventions:\n  ${problems.join("\n  ")}`);
}

/** The operations of a model, from the conventions. */
function operationsOf(conventions: LifecycleConventions): LifecycleOperation[] {
  const success = conventions.outcomes[0]?.code as string;
  const ops: LifecycleOperation[] = [
    { id: "create", action: "create", merchant: "own", merchantOrderId: "fresh", needs: [] },
    ...conventions.outcomes.map(
      (o): LifecycleOperation => ({
        id: `confirm with code ${o.code}`,
        action: "confirm",
        code: o.code,
        path: "own",
        merchant: "own",
        needs: [],
      }),
    ),
    {
      id: "confirm with the wrong code",
      action: "confirm",
      code: conventions.wrongCode,
      path: "own",
      merchant: "own",
      needs: [],
    },
    {
      id: "confirm through the other kind's path",
      action: "confirm",
      code: success,
      path: "other-kind",
      merchant: "own",
      needs: [],
    },
    {
      id: "confirm as the other merchant",
      action: "confirm",
      code: success,
      path: "own",
      merchant: "other",
      needs: ["second-merchant"],
    },
    {
      id: "create with the same merchantOrderID",
      action: "create",
      merchant: "own",
      merchantOrderId: "same",
      needs: [],
    },
    {
      id: "create with the same merchantOrderID as the other merchant",
      action: "create",
      merchant: "other",
      merchantOrderId: "same",
      needs: ["second-merchant"],
    },
    {
      id: "advance the clock by part of the lifetime",
      action: "advance-clock",
      clock: "part-of-lifetime",
      needs: [],
    },
    { id: "await processing", action: "await-processing", needs: [] },
  ];
  for (const rule of conventions.refusedCreations ?? []) {
    ops.push({
      id: `create refused: ${rule}`,
      action: "create",
      merchant: "own",
      merchantOrderId: "fresh",
      refusedBody: rule,
      needs: [],
    });
  }
  for (const { name, code, normalisation } of conventions.malformedCodes ?? []) {
    ops.push({
      id: `confirm with a malformed code: ${name}`,
      action: "confirm",
      code,
      path: "own",
      merchant: "own",
      malformedCode: name,
      ...(normalisation ? { normalisation } : {}),
      needs: [],
    });
  }
  if (conventions.expiredStatus !== null) {
    ops.push({
      id: "advance the clock past the lifetime",
      action: "advance-clock",
      clock: "past-lifetime",
      needs: ["expiry"],
    });
  }
  return ops;
}

/** Builds the explicit state machine of one order kind from a target's conventions. */
export function buildLifecycleModel(kind: OrderKind, conventions: LifecycleConventions): LifecycleModel {
  validate(conventions);
  const statusAfter = conventions.statusAfter[kind];
  const callbacksOn = (status: string) => (conventions.callbackStatuses.includes(status) ? [status] : []);
  const refused = (error: LifecycleError): ExpectedAnswer => ({
    outcome: "refused",
    httpClass: "4xx",
    error,
    ...conventions.errors[error],
  });

  // --- states
  const confirmRight = `confirm with code ${conventions.outcomes[0]?.code as string}`;
  const states: LifecycleState[] = [
    { id: NOT_CREATED, status: undefined, awaitsConfirmation: false, final: false, proof: "create" },
    {
      id: AWAITING_CONFIRMATION,
      status: statusAfter.create,
      awaitsConfirmation: true,
      final: false,
      proof: confirmRight,
    },
    {
      id: AFTER_WRONG_CODE,
      status: statusAfter.create,
      awaitsConfirmation: true,
      final: false,
      proof: confirmRight,
    },
  ];
  const addState = (state: LifecycleState) => {
    const existing = states.find((s) => s.id === state.id);
    if (!existing) states.push(state);
  };
  for (const { code, statuses } of conventions.outcomes) {
    addState({
      id: processingStateId(code),
      status: statusAfter.confirm,
      awaitsConfirmation: false,
      final: false,
      settlesTo: outcomeStateId(statuses, 0),
    });
    statuses.forEach((status, index) => {
      const last = index === statuses.length - 1;
      addState({
        id: outcomeStateId(statuses, index),
        status,
        awaitsConfirmation: false,
        final: last,
        ...(last ? {} : { settlesTo: outcomeStateId(statuses, index + 1) }),
      });
    });
  }
  if (conventions.expiredStatus !== null) {
    addState({
      id: conventions.expiredStatus,
      status: conventions.expiredStatus,
      awaitsConfirmation: false,
      final: true,
    });
  }

  // --- transitions
  const operations = operationsOf(conventions);
  const transitions: LifecycleTransition[] = [];
  const add = (
    state: StateId,
    operation: OperationId,
    expect: ExpectedAnswer,
    next: StateId,
    callbacks: string[] = [],
    also?: string,
  ) => {
    // A refusal changes nothing: the state it leaves the order in must still answer its proof.
    const proof = expect.outcome === "refused" ? states.find((s) => s.id === next)?.proof : undefined;
    transitions.push({
      state,
      operation,
      expect,
      next,
      callbacks,
      ...(also ? { also } : {}),
      ...(proof ? { proof } : {}),
    });
  };

  add(
    NOT_CREATED,
    "create",
    { outcome: "accepted", httpClass: "2xx", status: statusAfter.create },
    AWAITING_CONFIRMATION,
  );
  // A refused creation reserves nothing: its merchantOrderID is still free for the corrected one.
  for (const op of operations.filter((o) => o.refusedBody !== undefined))
    add(NOT_CREATED, op.id, refused("validation"), NOT_CREATED);

  for (const state of states) {
    if (state.id === NOT_CREATED) continue;
    const here = state.id;
    for (const op of operations) {
      if (op.refusedBody !== undefined) {
        // Tried before the order exists only (above).
      } else if (op.malformedCode !== undefined) {
        // A code off the format is refused like a wrong one, and the order still awaits the right
        // one. Tried on an order fresh from creation: after a wrong code it asks the same question.
        if (here === AWAITING_CONFIRMATION)
          add(here, op.id, { outcome: "refused", httpClass: "4xx", error: "invalidCode" }, here);
      } else if (op.action === "confirm" && op.merchant === "other") {
        // Another merchant's order must not leak: refused whatever its state, as the profile pins it.
        add(
          here,
          op.id,
          conventions.otherMerchantConfirm
            ? refused(conventions.otherMerchantConfirm)
            : { outcome: "refused", httpClass: "4xx", error: "orderNotFound" },
          here,
        );
      } else if (op.action === "confirm" && op.path === "other-kind") {
        add(here, op.id, refused(conventions.otherKindConfirm), here);
      } else if (op.action === "confirm" && state.awaitsConfirmation) {
        const outcome = conventions.outcomes.find((o) => o.code === op.code);
        if (outcome) {
          add(
            here,
            op.id,
            { outcome: "accepted", httpClass: "2xx", status: statusAfter.confirm },
            processingStateId(outcome.code),
            callbacksOn(statusAfter.confirm),
          );
        } else {
          // The wrong code: refused, and the order still awaits its confirmation.
          add(here, op.id, refused("invalidCode"), AFTER_WRONG_CODE);
        }
      } else if (op.action === "confirm") {
        // Confirmed, finished or expired: no code, right or wrong, confirms it again.
        add(here, op.id, refused("invalidOrderState"), here);
      } else if (op.action === "create" && op.merchantOrderId === "same" && op.merchant === "own") {
        add(here, op.id, refused("duplicateMerchantOrderId"), here);
      } else if (op.action === "create" && op.merchantOrderId === "same") {
        add(
          here,
          op.id,
          conventions.merchantOrderIdScope === "merchant"
            ? { outcome: "accepted", httpClass: "2xx", status: statusAfter.create }
            : refused("duplicateMerchantOrderId"),
          here,
        );
      } else if (
        op.action === "advance-clock" &&
        op.clock === "part-of-lifetime" &&
        state.awaitsConfirmation
      ) {
        add(
          here,
          op.id,
          { outcome: "no-request" },
          here,
          [],
          "a confirmation then answers a timer lower by the seconds moved",
        );
      } else if (
        op.action === "advance-clock" &&
        op.clock === "past-lifetime" &&
        conventions.expiredStatus !== null
      ) {
        if (state.awaitsConfirmation) {
          add(
            here,
            op.id,
            { outcome: "no-request" },
            conventions.expiredStatus,
            callbacksOn(conventions.expiredStatus),
          );
        } else if (state.final && state.id !== conventions.expiredStatus) {
          // A finished order does not expire: no status change, no `expired` callback.
          add(here, op.id, { outcome: "no-request" }, here, [], "no callback may arrive");
        }
        // A state that settles by itself is not probed with the clock: the outcome would race it.
      } else if (op.action === "await-processing" && state.settlesTo !== undefined) {
        const next = states.find((s) => s.id === state.settlesTo) as LifecycleState;
        add(here, op.id, { outcome: "no-request" }, next.id, callbacksOn(next.status as string));
      }
    }
  }
  return { kind, initial: NOT_CREATED, states, operations, transitions };
}

/** The transition of a (state, operation) pair, or undefined when the operation is not tried there. */
export function transitionOf(
  model: LifecycleModel,
  state: StateId,
  operation: OperationId,
): LifecycleTransition | undefined {
  return model.transitions.find((t) => t.state === state && t.operation === operation);
}

export interface ReachablePair {
  state: StateId;
  operation: OperationId;
  /** The operations that lead from a new order to `state`, starting with `create`. */
  path: readonly OperationId[];
  transition: LifecycleTransition;
}

export interface ReachableOptions {
  /** What the target offers; an operation needing something absent is never tried. */
  offers?: { secondMerchant?: boolean; expiry?: boolean } | undefined;
}

/**
 * Every (state, operation) pair reachable from a new order, each with the shortest sequence of
 * operations that reaches its state. States are visited breadth first, operations in the model's
 * order, so the list is the same on every run.
 */
export function reachablePairs(model: LifecycleModel, options: ReachableOptions = {}): ReachablePair[] {
  const offers = { secondMerchant: true, expiry: true, ...options.offers };
  const usable = new Set(
    model.operations
      .filter((op) =>
        op.needs.every((need) => (need === "second-merchant" ? offers.secondMerchant : offers.expiry)),
      )
      .map((op) => op.id),
  );
  const pathTo = new Map<StateId, OperationId[]>([[model.initial, []]]);
  const queue: StateId[] = [model.initial];
  const pairs: ReachablePair[] = [];
  while (queue.length > 0) {
    const state = queue.shift() as StateId;
    const path = pathTo.get(state) as OperationId[];
    for (const op of model.operations) {
      if (!usable.has(op.id)) continue;
      const transition = transitionOf(model, state, op.id);
      if (!transition) continue;
      pairs.push({ state, operation: op.id, path, transition });
      if (!pathTo.has(transition.next)) {
        pathTo.set(transition.next, [...path, op.id]);
        queue.push(transition.next);
      }
    }
  }
  return pairs;
}

/** States no reachable pair leads to under these options (e.g. `expired` without expiry). */
export function unreachableStates(model: LifecycleModel, options: ReachableOptions = {}): StateId[] {
  const reached = new Set(reachablePairs(model, options).flatMap((p) => [p.state, p.transition.next]));
  return model.states.map((s) => s.id).filter((id) => !reached.has(id));
}

/**
 * What an answer says of the move it answers: the target took it as modelled (the expected class,
 * 2xx for an acceptance, 4xx for a refusal), otherwise, or nothing at all: a 5xx (a proxy's 502
 * for a request that never reached the target, a crash) or a 429 is no answer of the target's
 * application, so the order's state after it is unknown and no later move may be judged as if it
 * had been taken.
 */
export function answeredAsModelled(
  expect: ExpectedAnswer,
  httpStatus: number,
): "as modelled" | "otherwise" | "unknown" {
  if (expect.outcome === "no-request") return "as modelled";
  if (httpStatus >= 500 || httpStatus === 429) return "unknown";
  const expected = expect.outcome === "accepted" ? 2 : 4;
  return Math.floor(httpStatus / 100) === expected ? "as modelled" : "otherwise";
}
