/**
 * What the generated and stateful probes read from a target's profile, in the plain shapes they
 * take: every payment method as an {@link OrderMethod} (contract/generation/request-json-schema.ts) and the
 * lifecycle as {@link LifecycleConventions} (contract/generation/lifecycle-model.ts). One place turns a
 * profile into these, so specs, tests and the reference provider's own record agree.
 */
import type { LifecycleConventions, LifecycleError, OrderMethod } from "../generation/index.ts";
import {
  CALLBACK_STATUSES,
  type CallbackStatus,
  nearMissCodes,
  OPERATIONS_BY_KIND,
  ORDER_KINDS,
  type OrderKind,
  STATUS,
  standInCodePattern,
} from "../schemas/index.ts";
import type { MethodProfile, OtherMethodProfile, Profile } from "./profile.ts";

/** The conditional fields a profile's `requires` names, as dotted request paths. */
export function requiredFieldsOf(method: Pick<MethodProfile, "requires">): string[] {
  return [
    ...(method.requires.clientID ? ["clientID"] : []),
    ...method.requires.clientMetadata.map((field) => `clientMetadata.${field}`),
  ];
}

function toOrderMethod(kind: OrderKind, method: MethodProfile | OtherMethodProfile): OrderMethod {
  return {
    kind,
    methodID: method.methodID,
    currency: method.currency,
    minAmount: method.minAmount,
    maxAmount: method.maxAmount,
    requiredFields: requiredFieldsOf(method),
  };
}

/** Every method of the profile, per order kind the fixed checks' method first, then the others. */
export function orderMethodsOf(profile: Profile): OrderMethod[] {
  return ORDER_KINDS.flatMap((kind) => [
    toOrderMethod(kind, profile.methods[kind]),
    ...profile.otherMethods[kind].map((method) => toOrderMethod(kind, method)),
  ]);
}

/** The profile's `errors` entry each lifecycle refusal is judged by. */
const LIFECYCLE_ERROR_KEYS = {
  invalidOrderState: "invalidOrderState",
  invalidCode: "invalidCode",
  orderNotFound: "orderNotFound",
  duplicateMerchantOrderId: "duplicateMerchantOrderId",
  validation: "validation",
} as const satisfies Record<LifecycleError, keyof Profile["errors"]>;

/** The outcome of each confirmation code: the profile's own list, or one status per `code` trigger. */
function outcomesOf(profile: Profile): LifecycleConventions["outcomes"] {
  if (profile.lifecycle.outcomes) return profile.lifecycle.outcomes;
  const { successCode } = profile.confirmation;
  const byCode = new Map<string, string[]>([[successCode, [STATUS.succeeded]]]);
  for (const status of CALLBACK_STATUSES) {
    const trigger = profile.callbackTriggers[status as CallbackStatus];
    if ("code" in trigger && !byCode.has(trigger.code)) byCode.set(trigger.code, [status]);
  }
  return [...byCode].map(([code, statuses]) => ({ code, statuses }));
}

/** The lifetime of an unconfirmed order, in seconds, when the profile provokes expiry by waiting. */
export function lifetimeSecondsOf(profile: Profile): number | undefined {
  const trigger = profile.callbackTriggers.expired;
  return "unconfirmedForSeconds" in trigger ? trigger.unconfirmedForSeconds : undefined;
}

/** The rule each refused creation of the lifecycle breaks; the lifecycle spec's driver builds its body. */
export const REFUSED_CREATION = {
  nonPositiveAmount: "an amount of zero",
  trafficType: "a trafficType outside ftd, td and mixed",
  noMethod: "no methodID",
  otherKindMethod: "a method of the other order kind",
  aboveMaximum: "an amount above the method's maximum",
} as const;

/** Creations the lifecycle tries to have refused: an amount above the maximum only where both kinds' methods declare one. */
export function refusedCreationsOf(profile: Profile): string[] {
  const { aboveMaximum, ...always } = REFUSED_CREATION;
  const bounded = ORDER_KINDS.every((kind) => profile.methods[kind].maxAmount !== undefined);
  return [...Object.values(always), ...(bounded ? [aboveMaximum] : [])];
}

/**
 * The confirmation code's format: the profile's `requestRules.code.pattern`, declared; without
 * one, a stand-in (the success code's kind and length), which only advises.
 */
export function codeFormatOf(profile: Profile): { pattern: string; declared: boolean } {
  const pattern = profile.requestRules.code?.pattern;
  return pattern !== undefined && pattern !== "none"
    ? { pattern, declared: true }
    : { pattern: standInCodePattern(profile.confirmation.successCode), declared: false };
}

/** The target's lifecycle as the model takes it (the reference provider's in docs/api.md). */
export function lifecycleConventionsOf(profile: Profile): LifecycleConventions {
  const errors = Object.fromEntries(
    Object.entries(LIFECYCLE_ERROR_KEYS).map(([name, key]) => {
      const pinned = profile.errors[key];
      return [
        name,
        {
          ...(pinned?.httpStatus !== undefined ? { httpStatus: pinned.httpStatus } : {}),
          ...(pinned?.codeError !== undefined ? { codeError: pinned.codeError } : {}),
        },
      ];
    }),
  ) as LifecycleConventions["errors"];
  return {
    statusAfter: Object.fromEntries(
      ORDER_KINDS.map((kind) => [
        kind,
        {
          create: profile.expectedStatus[OPERATIONS_BY_KIND[kind].create],
          confirm: profile.expectedStatus[OPERATIONS_BY_KIND[kind].confirm],
        },
      ]),
    ) as LifecycleConventions["statusAfter"],
    outcomes: outcomesOf(profile),
    wrongCode: profile.confirmation.wrongCode,
    expiredStatus: lifetimeSecondsOf(profile) !== undefined ? STATUS.expired : null,
    callbackStatuses: CALLBACK_STATUSES,
    errors,
    otherKindConfirm: profile.lifecycle.otherKindConfirm,
    otherMerchantConfirm: profile.lifecycle.otherMerchantConfirm,
    merchantOrderIdScope: profile.lifecycle.merchantOrderIdScope,
    refusedCreations: refusedCreationsOf(profile),
    malformedCodes: nearMissCodes(profile.confirmation.successCode, codeFormatOf(profile).pattern, [
      ...outcomesOf(profile).map((o) => o.code),
      profile.confirmation.wrongCode,
    ]).map((miss) => ({
      name: miss.name,
      code: miss.value,
      ...(miss.normalisation ? { normalisation: miss.normalisation } : {}),
    })),
  };
}
