/**
 * The derived negatives' sending: each case as it is, a creation with the base's merchantOrderID
 * made unique again, a confirmation on an order of its own; and why a case cannot fail the run.
 */
import {
  checkOfConstraint,
  describeRuleSource,
  type Exchange,
  type GeneratedOrder,
  type NegativeCase,
  OPERATIONS_BY_KIND,
  type OrderKind,
  type OrderMethod,
} from "../../contract/index.ts";
import { createOrder, orderIdOf } from "./support/orders.ts";
import { Limiter, mapLimit, PROBE_CONCURRENCY, sendRaw, withFreshMerchantOrderId } from "./support/probes.ts";
import type { SpecTarget } from "./support/target.ts";

export interface Sent {
  testCase: NegativeCase;
  exchange: Exchange;
}

/** The run's sending of derived negatives: its target, and what all groups share. */
export interface NegativesRun {
  readonly target: SpecTarget;
  /** Requests in flight, all groups together: a burst the target (and the callback timing checks) can take. */
  readonly inFlight: Limiter;
  /** How many creations were sent so far: each gets a merchantOrderID of its own. */
  serial: number;
}

export function negativesRun(target: SpecTarget): NegativesRun {
  return { target, inFlight: new Limiter(PROBE_CONCURRENCY), serial: 0 };
}

/** Sends each case as it is; the base's merchantOrderID is made unique again for each, so a case is never refused as a duplicate. */
export async function sendCreations(
  run: NegativesRun,
  method: OrderMethod,
  base: GeneratedOrder | undefined,
  cases: readonly NegativeCase[],
): Promise<Sent[]> {
  const { target } = run;
  const { merchantOrderIdPrefix } = target.probes;
  const unique = `${merchantOrderIdPrefix}-${method.methodID}-0`;
  return mapLimit(cases, run.inFlight, async (testCase) => {
    const body =
      testCase.path !== "merchantOrderID" && typeof testCase.body === "object" && testCase.body !== null
        ? withFreshMerchantOrderId(
            testCase.body as Record<string, unknown>,
            unique,
            merchantOrderIdPrefix,
            "n",
            ++run.serial,
          )
        : testCase.body;
    const json = body === testCase.body ? testCase.json : JSON.stringify(body);
    if (!base) throw new Error(`no base request for method ${method.methodID}`);
    const probeOf = checkOfConstraint(testCase.constraint).name;
    return { testCase, exchange: await sendRaw(target.client(), base.operation, json, undefined, probeOf) };
  });
}

/** Confirm cases: each on an order of its own that awaits confirmation, so one accepted case spoils no other. */
export async function sendConfirmations(
  run: NegativesRun,
  kind: OrderKind,
  cases: readonly NegativeCase[],
): Promise<Sent[]> {
  const { target } = run;
  return mapLimit(cases, run.inFlight, async (testCase) => {
    // An order that could not be created leaves these checks not evaluated, pointing at why.
    const id = orderIdOf(await createOrder(target, kind));
    return {
      testCase,
      exchange: await sendRaw(
        target.client(),
        OPERATIONS_BY_KIND[kind].confirm,
        testCase.json,
        id,
        checkOfConstraint(testCase.constraint).name,
      ),
    };
  });
}

/** Why a case cannot fail the run: its constraint is the suite's advisory (contract/generation/request-rules.ts). */
export function advisoryReason(testCase: NegativeCase): string | undefined {
  const { basis } = testCase.constraint;
  return basis.kind === "advisory" ? describeRuleSource(basis) : undefined;
}

/** Why a case feeds no required check: it is advisory, or the profile waives the check that judges it. */
export function waivedReason(profile: SpecTarget["profile"], testCase: NegativeCase): string | undefined {
  const check = checkOfConstraint(testCase.constraint).name;
  const waived = profile.informationalChecks[check];
  return advisoryReason(testCase) ?? (waived ? `the profile waives ${check}: ${waived}` : undefined);
}
