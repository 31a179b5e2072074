import { describe, expect, it } from "vitest";
import { REFERENCE_LIFECYCLE } from "../../fixtures/providers/reference/index.ts";
import {
  AFTER_WRONG_CODE,
  AWAITING_CONFIRMATION,
  answeredAsModelled,
  buildLifecycleModel,
  type LifecycleConventions,
  NOT_CREATED,
  reachablePairs,
  transitionOf,
  unreachableStates,
} from "./lifecycle-model.ts";

const mobile = buildLifecycleModel("mobile_commerce", REFERENCE_LIFECYCLE);
const quasi = buildLifecycleModel("quasi_ecom", REFERENCE_LIFECYCLE);
const CONFIRM = "confirm with code 1111";
const WRONG = "confirm with the wrong code";
const EXPIRE = "advance the clock past the lifetime";
const AWAIT = "await processing";

const expectOf = (state: string, operation: string, model = mobile) => {
  const transition = transitionOf(model, state, operation);
  if (!transition) throw new Error(`no transition for ${state} × ${operation}`);
  return transition;
};

describe("the reference lifecycle as a state machine", () => {
  it("creates an order awaiting confirmation with each kind's status", () => {
    expect(expectOf(NOT_CREATED, "create").expect).toEqual({
      outcome: "accepted",
      httpClass: "2xx",
      status: "payment_pending",
    });
    expect(expectOf(NOT_CREATED, "create", quasi).expect).toMatchObject({ status: "created" });
    expect(expectOf(NOT_CREATED, "create").next).toBe(AWAITING_CONFIRMATION);
  });

  it("refuses a wrong code with 422 invalid_code and leaves the order confirmable", () => {
    const wrong = expectOf(AWAITING_CONFIRMATION, WRONG);
    expect(wrong.expect).toEqual({
      outcome: "refused",
      httpClass: "4xx",
      error: "invalidCode",
      httpStatus: 422,
      codeError: "invalid_code",
    });
    expect(wrong.next).toBe(AFTER_WRONG_CODE);
    expect(expectOf(AFTER_WRONG_CODE, CONFIRM).expect).toMatchObject({
      outcome: "accepted",
      status: "waiting_for_terminal",
    });
    expect(expectOf(AFTER_WRONG_CODE, WRONG).next).toBe(AFTER_WRONG_CODE);
  });

  it("refuses a second confirmation with 409 invalid_order_state, while processing and after", () => {
    const processing = expectOf(AWAITING_CONFIRMATION, CONFIRM).next;
    expect(processing).toBe("processing (code 1111)");
    for (const state of [processing, "succeeded", "failed_by_terminal", "succeeded_by_appeal"]) {
      for (const op of [CONFIRM, WRONG, "confirm with code 2222"]) {
        expect(expectOf(state, op).expect, `${state} × ${op}`).toEqual({
          outcome: "refused",
          httpClass: "4xx",
          error: "invalidOrderState",
          httpStatus: 409,
          codeError: "invalid_order_state",
        });
        expect(expectOf(state, op).next).toBe(state);
      }
    }
  });

  it("expires an unconfirmed order with a callback, then refuses a confirmation with 409 invalid_order_state", () => {
    for (const state of [AWAITING_CONFIRMATION, AFTER_WRONG_CODE]) {
      expect(expectOf(state, EXPIRE)).toMatchObject({ next: "expired", callbacks: ["expired"] });
    }
    expect(expectOf("expired", CONFIRM).expect).toMatchObject({
      httpStatus: 409,
      codeError: "invalid_order_state",
    });
    expect(expectOf("expired", WRONG).expect).toMatchObject({
      httpStatus: 409,
      codeError: "invalid_order_state",
    });
  });

  it("never expires a finished order, and never sends an expired callback for it", () => {
    for (const state of ["succeeded", "failed_by_terminal", "succeeded_by_appeal"]) {
      expect(expectOf(state, EXPIRE)).toMatchObject({ next: state, callbacks: [] });
    }
    // While processing, the outcome would race the clock: the clock is not moved there.
    expect(transitionOf(mobile, "processing (code 1111)", EXPIRE)).toBeUndefined();
  });

  it("answers 404 order_not_found to the other merchant in every state, and 409 through the other kind's path", () => {
    for (const state of mobile.states.filter((s) => s.id !== NOT_CREATED)) {
      expect(expectOf(state.id, "confirm as the other merchant").expect).toMatchObject({
        httpStatus: 404,
        codeError: "order_not_found",
      });
      expect(expectOf(state.id, "confirm through the other kind's path").expect).toMatchObject({
        httpStatus: 409,
      });
      expect(expectOf(state.id, "create with the same merchantOrderID").expect).toMatchObject({
        httpStatus: 409,
        codeError: "duplicate_merchant_order_id",
      });
      expect(
        expectOf(state.id, "create with the same merchantOrderID as the other merchant").expect,
      ).toMatchObject({
        outcome: "accepted",
      });
    }
  });

  it("plays each code's outcome through the processing delay, with one callback per status entered", () => {
    const path = (code: string) => {
      const statuses: string[] = [];
      const callbacks: string[] = [];
      let state = expectOf(AWAITING_CONFIRMATION, `confirm with code ${code}`).next;
      for (
        let transition = transitionOf(mobile, state, AWAIT);
        transition;
        transition = transitionOf(mobile, state, AWAIT)
      ) {
        state = transition.next;
        statuses.push(state);
        callbacks.push(...transition.callbacks);
      }
      return { statuses, callbacks };
    };
    expect(path("1111")).toEqual({ statuses: ["succeeded"], callbacks: ["succeeded"] });
    expect(path("2222")).toEqual({ statuses: ["failed_by_terminal"], callbacks: ["failed_by_terminal"] });
    expect(path("3333")).toEqual({
      statuses: ["failed_by_terminal (then succeeded_by_appeal)", "succeeded_by_appeal"],
      callbacks: ["failed_by_terminal", "succeeded_by_appeal"],
    });
  });

  it("expects the timer to follow the clock while the order awaits confirmation", () => {
    expect(expectOf(AWAITING_CONFIRMATION, "advance the clock by part of the lifetime")).toMatchObject({
      next: AWAITING_CONFIRMATION,
      also: expect.stringContaining("timer"),
    });
  });

  it("answers alike in a state the order leaves by itself and in the state it settles to, so timing cannot flip a verdict", () => {
    for (const model of [mobile, quasi]) {
      for (const state of model.states.filter((s) => s.settlesTo !== undefined)) {
        for (const transition of model.transitions.filter(
          (t) => t.state === state.id && t.operation !== AWAIT,
        )) {
          const settled = transitionOf(model, state.settlesTo as string, transition.operation);
          expect(settled?.expect, `${state.id} × ${transition.operation}`).toEqual(transition.expect);
        }
      }
    }
  });
});

describe("reachable (state, operation) pairs", () => {
  const pairs = reachablePairs(mobile);

  it("try every operation in every reachable state, each with the path that leads there", () => {
    const states = new Set(pairs.map((p) => p.state));
    expect([...states].sort()).toEqual(mobile.states.map((s) => s.id).sort());
    expect(pairs.length).toBe(mobile.transitions.length);
    const expired = pairs.find((p) => p.state === "expired" && p.operation === CONFIRM);
    expect(expired?.path).toEqual(["create", EXPIRE]);
    const appeal = pairs.find((p) => p.state === "succeeded_by_appeal" && p.operation === WRONG);
    expect(appeal?.path).toEqual(["create", "confirm with code 3333", AWAIT, AWAIT]);
    const afterWrong = pairs.find((p) => p.state === AFTER_WRONG_CODE && p.operation === CONFIRM);
    expect(afterWrong?.path).toEqual(["create", WRONG]);
  });

  it("are listed in the same order on every run", () => {
    expect(reachablePairs(buildLifecycleModel("mobile_commerce", REFERENCE_LIFECYCLE))).toEqual(pairs);
  });

  it("leave out what the target cannot do, and the states only that reaches", () => {
    const withoutExtras = reachablePairs(mobile, { offers: { secondMerchant: false, expiry: false } });
    expect(withoutExtras.some((p) => p.operation.includes("other merchant"))).toBe(false);
    expect(withoutExtras.some((p) => p.state === "expired")).toBe(false);
    expect(unreachableStates(mobile, { offers: { expiry: false } })).toEqual(["expired"]);
  });
});

describe("a foreign target's conventions", () => {
  const foreign: LifecycleConventions = {
    ...REFERENCE_LIFECYCLE,
    statusAfter: {
      ...REFERENCE_LIFECYCLE.statusAfter,
      quasi_ecom: { create: "new", confirm: "in_progress" },
    },
    outcomes: [{ code: "777777", statuses: ["succeeded"] }],
    wrongCode: "000000",
    expiredStatus: null,
    errors: { ...REFERENCE_LIFECYCLE.errors, orderNotFound: {} },
    otherKindConfirm: "orderNotFound",
    merchantOrderIdScope: "service",
  };
  const model = buildLifecycleModel("quasi_ecom", foreign);

  it("come from the description alone: statuses, codes, errors, no expiry, scope", () => {
    expect(model.states.map((s) => s.id)).toEqual([
      NOT_CREATED,
      AWAITING_CONFIRMATION,
      AFTER_WRONG_CODE,
      "processing (code 777777)",
      "succeeded",
    ]);
    expect(expectOf(AWAITING_CONFIRMATION, "confirm with code 777777", model).expect).toMatchObject({
      status: "in_progress",
    });
    expect(expectOf("succeeded", "confirm through the other kind's path", model).expect).toEqual({
      outcome: "refused",
      httpClass: "4xx",
      error: "orderNotFound",
    });
    expect(
      expectOf(AWAITING_CONFIRMATION, "create with the same merchantOrderID as the other merchant", model)
        .expect,
    ).toMatchObject({
      error: "duplicateMerchantOrderId",
    });
    expect(model.operations.some((op) => op.id === EXPIRE)).toBe(false);
  });

  it("are refused when they contradict themselves", () => {
    expect(() => buildLifecycleModel("quasi_ecom", { ...foreign, wrongCode: "777777" })).toThrow(
      /wrongCode: 777777 is also listed as an outcome code/,
    );
    expect(() => buildLifecycleModel("quasi_ecom", { ...foreign, outcomes: [] })).toThrow(
      /outcomes: at least one/,
    );
  });
});

describe("refusals change nothing", () => {
  it("refuse each broken creation before any order exists, and prove its merchantOrderID free with a creation", () => {
    const refused = mobile.operations.filter((op) => op.refusedBody !== undefined);
    expect(refused.map((op) => op.refusedBody)).toEqual(REFERENCE_LIFECYCLE.refusedCreations);
    for (const op of refused) {
      expect(expectOf(NOT_CREATED, op.id)).toMatchObject({
        expect: { outcome: "refused", httpStatus: 400, codeError: "validation_error" },
        next: NOT_CREATED,
        proof: "create",
        callbacks: [],
      });
      expect(transitionOf(mobile, AWAITING_CONFIRMATION, op.id)).toBeUndefined();
    }
  });

  it("refuse a malformed code on an order fresh from creation, leave it awaiting, and prove it with the right code", () => {
    const malformed = mobile.operations.filter((op) => op.malformedCode !== undefined);
    expect(malformed.map((op) => op.code)).toContain("x1111");
    for (const op of malformed) {
      expect(expectOf(AWAITING_CONFIRMATION, op.id)).toMatchObject({
        expect: { outcome: "refused", httpClass: "4xx" },
        next: AWAITING_CONFIRMATION,
        proof: CONFIRM,
      });
      // Any refusal: the profile pins no error for a code off the format.
      expect(expectOf(AWAITING_CONFIRMATION, op.id).expect).not.toHaveProperty("httpStatus");
      expect(transitionOf(mobile, AFTER_WRONG_CODE, op.id)).toBeUndefined();
      expect(transitionOf(mobile, "succeeded", op.id)).toBeUndefined();
    }
  });

  it("prove every refusal that leaves an order awaiting confirmation, and none after which nothing can be proven", () => {
    for (const t of mobile.transitions) {
      const after = mobile.states.find((s) => s.id === t.next);
      const provable =
        t.expect.outcome === "refused" && (after?.awaitsConfirmation || t.next === NOT_CREATED);
      expect(t.proof !== undefined, `${t.state} × ${t.operation}`).toBe(provable);
    }
    expect(expectOf(AWAITING_CONFIRMATION, WRONG).proof).toBe(CONFIRM);
    expect(expectOf("succeeded", WRONG).proof).toBeUndefined();
  });
});

describe("answeredAsModelled: an answer that is not the target's own moves no order", () => {
  const accepted = { outcome: "accepted", httpClass: "2xx", status: "waiting_for_terminal" } as const;
  const refused = { outcome: "refused", httpClass: "4xx", error: "invalidOrderState" } as const;
  it("takes the expected class as the move taken", () => {
    expect(answeredAsModelled(accepted, 200)).toBe("as modelled");
    expect(answeredAsModelled(refused, 409)).toBe("as modelled");
  });
  it("says a refused acceptance or an accepted refusal went otherwise", () => {
    expect(answeredAsModelled(accepted, 409)).toBe("otherwise");
    expect(answeredAsModelled(refused, 200)).toBe("otherwise");
  });
  it("knows nothing of the order after a 502 (a proxy's), a 500 or a 429", () => {
    for (const status of [502, 500, 503, 429]) {
      expect(answeredAsModelled(accepted, status)).toBe("unknown");
      expect(answeredAsModelled(refused, status)).toBe("unknown");
    }
  });
});
