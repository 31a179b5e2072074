/**
 * Two verdicts from one observed session: the provider's (every answer and callback through the
 * named checks that apply to traffic the suite did not choose) and the merchant's (every request
 * against the contract and the profile, every callback answer of its receiver). A rule nothing
 * observed is "not observed", never passed.
 */
import {
  buildContract,
  CALLBACK_STATUSES,
  type CallbackScenario,
  type CallbackStatus,
  type Check,
  callbackPathsOf,
  callbacksArrives,
  callbacksBodyParses,
  callbacksExactlyOnce,
  callbacksMatchesOrder,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksRetryPolicy,
  callbacksSignatureValid,
  callbacksStopsAfterAcknowledgement,
  dataOf,
  ENDPOINTS,
  envelopeContentCodingAccepted,
  envelopeFailureData,
  envelopeFailureMarkers,
  envelopeFailureMessage,
  envelopeJsonContentType,
  envelopeRequestIdPresent,
  envelopeRequestIdUnique,
  envelopeShape,
  envelopeSuccessMarkers,
  fieldsConfirmationResult,
  fieldsOrderRecord,
  fieldsQuasiEcomCreationResult,
  fieldsStatusKnown,
  lifetimeSecondsOf,
  matchEndpoint,
  merchantConfirmsConfirmable,
  merchantConfirmsOwnOrder,
  merchantNoBlindResend,
  merchantOrderIdUnique,
  merchantRequestBodyValid,
  merchantRequestHeaders,
  OPERATION_NAMES,
  OPERATIONS,
  ORDER_STATUSES,
  orderMethodsOf,
  type Profile,
  type RequirementContext,
  receiverAcknowledgesDuplicates,
  receiverAcknowledgesValid,
  rejectsDuplicateMerchantOrderId,
  rejectsWrongCode,
  requirementOf,
  SANDBOX_CLOCK_ADVANCE_PATH,
  semanticsAmountEchoed,
  semanticsCommissionNonNegative,
  semanticsConfirmationEchoesOrder,
  semanticsCurrencyOfMethod,
  semanticsDatesOrdered,
  semanticsExchangeRatePositive,
  semanticsMerchantOrderIdEchoed,
  semanticsMethodEchoed,
  semanticsRoutingAttemptsEmpty,
  semanticsStatusAfterOperation,
  semanticsTimerValid,
  semanticsUsdtAmount,
  semanticsUsdtCommission,
} from "../../contract/index.ts";
import type { CheckRecord } from "../engine/run-model.ts";
import { acceptsCoding } from "./decoding.ts";
import {
  jsonOf,
  type ObservedCallbackDelivery,
  type ObservedExchange,
  type ObserveSession,
} from "./session.ts";
import { CheckTally } from "./tally.ts";

type ExchangeResponse = Parameters<typeof envelopeShape.run>[0];
type ObservedCallback = CallbackScenario["callbacks"][number];

export type Side = "provider" | "merchant";
export type SideVerdict = "conformant" | "not conformant" | "nothing observed" | "not judged";

export interface SideJudgement {
  verdict: SideVerdict;
  /**
   * Per check and endpoint: its failures with their evidence up to a cap, a record counting the
   * rest, and one counting its passes (`count`): as many records for an hour as for a minute.
   */
  checks: CheckRecord[];
  /** Rules that apply to observed traffic and that nothing observed exercised. */
  notObserved: { check: string; rule: string }[];
  /** Failed results of required checks, all of them (listed or not). */
  failed: number;
}

export interface Coverage {
  endpoints: { seen: Record<string, number>; notSeen: string[] };
  /** Order statuses seen in answers. */
  statuses: string[];
  callbackKinds: { seen: string[]; notSeen: string[] };
  /** Refusals seen: `HTTP 422 invalid_code` and how often. */
  refusals: Record<string, number>;
}

export interface ObserveJudgement {
  provider: SideJudgement;
  merchant: SideJudgement;
  coverage: Coverage;
  exchanges: number;
  callbacks: number;
  /** Exchanges the provider did not answer (unreachable, reset): transport, not a violation. */
  transportFaults: number;
  /** Whether callbacks went through the proxy (not with --keep-webhook). */
  callbacksObserved: boolean;
  /** Callbacks to a URL the session never gave out: refused, counted. */
  unknownCallbacks: number;
  /** The one line each verdict ends with. */
  lines: { provider: string; merchant: string };
}

/** The rules of each side that observed traffic can exercise: listed as not observed when none did. */
const PROVIDER_RULES: Check<never>[] = [
  envelopeContentCodingAccepted,
  envelopeJsonContentType,
  envelopeShape,
  envelopeRequestIdPresent,
  envelopeRequestIdUnique,
  envelopeSuccessMarkers,
  envelopeFailureMarkers,
  envelopeFailureData,
  envelopeFailureMessage,
  fieldsOrderRecord,
  fieldsQuasiEcomCreationResult,
  fieldsConfirmationResult,
  fieldsStatusKnown,
  semanticsUsdtAmount,
  semanticsUsdtCommission,
  semanticsCommissionNonNegative,
  semanticsExchangeRatePositive,
  semanticsAmountEchoed,
  semanticsMethodEchoed,
  semanticsCurrencyOfMethod,
  semanticsMerchantOrderIdEchoed,
  semanticsDatesOrdered,
  semanticsRoutingAttemptsEmpty,
  semanticsStatusAfterOperation,
  semanticsConfirmationEchoesOrder,
  semanticsTimerValid,
  rejectsWrongCode,
  rejectsDuplicateMerchantOrderId,
  callbacksArrives,
  callbacksBodyParses,
  callbacksNamesOrder,
  callbacksNamesStatus,
  callbacksSignatureValid,
  callbacksMatchesOrder,
  callbacksExactlyOnce,
  callbacksStopsAfterAcknowledgement,
  callbacksRetryPolicy,
] as Check<never>[];

const MERCHANT_RULES: Check<never>[] = [
  merchantRequestHeaders,
  merchantRequestBodyValid,
  merchantOrderIdUnique,
  merchantConfirmsOwnOrder,
  merchantConfirmsConfirmable,
  merchantNoBlindResend,
  receiverAcknowledgesValid,
  receiverAcknowledgesDuplicates,
] as Check<never>[];

const is2xx = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

/** What the session learnt of one order created through it. */
interface KnownOrder {
  orderId: string;
  kind: string;
  amount: unknown;
  currency: unknown;
  merchantOrderID: string | null;
  createdBy: string;
  /** When its creation was sent and answered: its lifetime counts from then. */
  createdSentAtMs: number;
  createdAnsweredAtMs: number;
  /** Whether its webhook went through the sink: its callbacks are observed. */
  webhookRewritten: boolean;
  /** Why it can no longer be confirmed, from the merchant's view, with when it learnt so. */
  finalAtMs?: { atMs: number; why: string };
}

export interface JudgeOptions {
  profile: Profile;
  /** Whether callback signatures could be verified (a secret was known). */
  signed: boolean;
  callbacksObserved: boolean;
  /** When the session stopped (ms since the epoch): a callback not yet due by then is not judged. */
  endedAtMs?: number;
  /**
   * How late the sink may have stamped each retried callback's deliveries (its own stalls) and how
   * long the machine's CPU was contended meanwhile, by the first delivery's id: room for a retry
   * to be late, as certify gives it.
   */
  retryStalls?: ReadonlyMap<string, { observerStallMs: number; machineStallMs: number }>;
  /** Whether the provider runs on this machine, so that its CPU contention can make a retry late. Default true. */
  targetOnThisHost?: boolean;
}

export function judgeSession(session: ObserveSession, options: JudgeOptions): ObserveJudgement {
  const { profile } = options;
  const context: RequirementContext = {
    informationalChecks: profile.informationalChecks,
    declaredKeys: profile.declaredKeys,
    strictInput: profile.strictInput,
  };
  const contract = buildContract(profile.gaps);
  const knownStatuses = [...ORDER_STATUSES, ...(profile.gaps.extraStatuses ?? [])];
  const methods = orderMethodsOf(profile);
  // Tallied as judged, not kept one record per result: a long session's results would fill memory.
  const providerChecks = new CheckTally();
  const merchantChecks = new CheckTally();

  const judge = <Input>(
    into: CheckTally,
    endpoint: string,
    check: Check<Input>,
    input: Input,
    evidence: { exchanges?: string[]; callbacks?: string[]; case?: string } = {},
  ) => {
    const began = performance.now();
    const outcome = check.run(input);
    const requirement = requirementOf(check as Check<never>, context);
    into.add({
      endpoint,
      check: check.name,
      ...(evidence.case !== undefined ? { case: evidence.case } : {}),
      rule: check.rule,
      status: outcome.notEvaluated ? "not evaluated" : outcome.ok ? "passed" : "failed",
      required: requirement.required,
      ...(requirement.required ? {} : { reason: requirement.reason }),
      detail: outcome.detail,
      durationMs: performance.now() - began,
      exchanges: evidence.exchanges ?? [],
      ...(evidence.callbacks ? { callbacks: evidence.callbacks } : {}),
      source: "observe",
      ruleSource: check.source,
      ...(outcome.findings ? { findings: outcome.findings } : {}),
      ...(evidence.exchanges?.[0] ? { subject: evidence.exchanges[0] } : {}),
    });
  };

  const orders = new Map<string, KnownOrder>();
  /** The webhook key of each creation, to the order id its answer gave. */
  const orderOfKey = new Map<string, string>();
  const seenMerchantOrderIds = new Map<string, string>();
  const coverage: Coverage = {
    endpoints: { seen: {}, notSeen: [] },
    statuses: [],
    callbackKinds: { seen: [], notSeen: [] },
    refusals: {},
  };
  const statuses = new Set<string>();
  const requestIds: { requestId: unknown; where: string }[] = [];
  const creations: { exchangeId: string; order: string; merchantOrderID: string | null; atMs: number }[] = [];
  const unanswered: { exchangeId: string; order: string; merchantOrderID: string | null }[] = [];
  const moidUses = new Map<string, { merchantOrderID: string; order: string; exchangeId: string }[]>();
  // What the merchant had been told, by when: callbacks acknowledged, in arrival order.
  // Deliveries are read back from the spill file once; exchanges are streamed, twice.
  const allCallbacks = [...session.eachCallback()];
  const finalCallbacks = allCallbacks.filter(
    (c) => c.orderId !== null && c.status !== null && FINAL_FOR_CONFIRMATION.has(c.status),
  );
  let transportFaults = 0;
  // Accepted confirmations whose code the profile says leads to a callback status: the callback is due.
  const codeTriggers = new Map<string, CallbackStatus>();
  for (const status of CALLBACK_STATUSES) {
    const trigger = profile.callbackTriggers[status];
    if ("code" in trigger) codeTriggers.set(trigger.code, status);
  }
  // A code the profile's lifecycle says ends in another callback status (failed_by_terminal, then
  // succeeded_by_appeal) makes that last callback due too.
  const outcomeTriggers = new Map<string, CallbackStatus>();
  for (const outcome of profile.lifecycle.outcomes ?? []) {
    const last = outcome.statuses.at(-1) as string;
    if ((CALLBACK_STATUSES as readonly string[]).includes(last))
      outcomeTriggers.set(outcome.code, last as CallbackStatus);
  }
  const dueFor = (code: unknown): CallbackStatus[] =>
    typeof code !== "string"
      ? []
      : [...new Set([codeTriggers.get(code), outcomeTriggers.get(code)])].filter(
          (status): status is CallbackStatus => status !== undefined,
        );
  // What may have moved each order's clock, and what its confirmations were answered: an expiry's due time.
  const clockAdvances: {
    orderId: string | undefined;
    ms: number;
    sentAtMs: number;
    answeredAtMs: number;
    id: string;
    /** No answer came: whether the clock moved is not known. */
    unanswered: boolean;
  }[] = [];
  const confirmationsOf = new Map<string, ("accepted" | "refused" | "unknown")[]>();
  const triggered: {
    orderId: string;
    status: CallbackStatus;
    sentAtMs: number;
    answeredAtMs: number;
    exchangeId: string;
  }[] = [];
  // Each order's accepted confirmations and when their answers came: what the merchant knew by then.
  const acceptedConfirmations = new Map<string, { id: string; endMs: number }[]>();
  for (const e of session.eachExchange()) {
    const confirmed = matchEndpoint(pathOf(e));
    if (
      !confirmed?.orderId ||
      OPERATIONS[confirmed.operation].step !== "confirm" ||
      !is2xx(e.response?.status)
    )
      continue;
    const list = acceptedConfirmations.get(confirmed.orderId) ?? [];
    list.push({ id: e.id, endMs: e.startedAtMs + e.durationMs });
    acceptedConfirmations.set(confirmed.orderId, list);
  }
  /** The merchant account a request is of: its key, never shown. */
  const accountOf = (e: ObservedExchange) => e.requestHeaders.authorization ?? "";

  for (const exchange of session.eachExchange()) {
    const pathname = URL.canParse(exchange.path, "http://x")
      ? new URL(exchange.path, "http://x").pathname
      : "";
    const match = matchEndpoint(pathname);
    if (pathname === SANDBOX_CLOCK_ADVANCE_PATH) {
      const advance = (jsonOf(exchange.requestBody) ?? {}) as { seconds?: unknown; orderId?: unknown };
      // An advance accepted moves the clock as asked; one whose answer was lost may have.
      if (typeof advance.seconds === "number" && (!exchange.response || is2xx(exchange.response.status)))
        clockAdvances.push({
          orderId: typeof advance.orderId === "string" ? advance.orderId : undefined,
          ms: advance.seconds * 1000,
          sentAtMs: exchange.startedAtMs,
          answeredAtMs: exchange.startedAtMs + exchange.durationMs,
          id: exchange.id,
          unanswered: !exchange.response,
        });
    }
    if (!match) continue;
    const operation = match.operation;
    const spec = OPERATIONS[operation];
    const endpoint = operation;
    coverage.endpoints.seen[operation] = (coverage.endpoints.seen[operation] ?? 0) + 1;
    const ids = { exchanges: [exchange.id] };
    const requestJson = jsonOf(exchange.requestBody);
    const request = (requestJson ?? {}) as Record<string, unknown>;

    // --- the merchant's request ---
    judge(merchantChecks, endpoint, merchantRequestHeaders, { headers: exchange.requestHeaders }, ids);
    const sentMethod = spec.step === "create" ? request.methodID : undefined;
    const method = methods.find((m) => m.kind === spec.kind && m.methodID === sentMethod);
    // A compressed request is judged decoded; one that does not decode is not judged, by name.
    const undecoded = exchange.requestEncoding?.decoded === false ? exchange.requestEncoding : undefined;
    judge(
      merchantChecks,
      endpoint,
      undecoded
        ? notJudgedAs(merchantRequestBodyValid, `its body is not decoded: ${undecoded.problem}`)
        : merchantRequestBodyValid,
      {
        text: exchange.requestBody.text,
        schema: ENDPOINTS[operation].request,
        requiredFields: method?.requiredFields ?? [],
        ...(spec.step === "create" ? { method: { methodID: sentMethod, known: method !== undefined } } : {}),
      },
      ids,
    );

    const orderKey =
      spec.step === "create"
        ? `${accountOf(exchange)}\n${JSON.stringify({ ...request, merchantOrderID: undefined, metadata: undefined })}`
        : "";
    const moid = typeof request.merchantOrderID === "string" ? request.merchantOrderID : null;
    if (spec.step === "create") {
      creations.push({
        exchangeId: exchange.id,
        order: orderKey,
        merchantOrderID: moid,
        atMs: exchange.startedAtMs,
      });
      if (moid !== null) {
        // Added in place: a copy per creation made judging quadratic in the session's creations.
        const uses = moidUses.get(accountOf(exchange)) ?? [];
        uses.push({ merchantOrderID: moid, order: orderKey, exchangeId: exchange.id });
        moidUses.set(accountOf(exchange), uses);
      }
      if (exchange.merchantGaveUp || exchange.transportFault !== undefined || !exchange.response)
        unanswered.push({ exchangeId: exchange.id, order: orderKey, merchantOrderID: moid });
    }

    if (spec.step === "confirm" && match.orderId !== undefined) {
      confirmationsOf.set(match.orderId, [
        ...(confirmationsOf.get(match.orderId) ?? []),
        !exchange.response || exchange.response.body.cut
          ? "unknown"
          : is2xx(exchange.response.status)
            ? "accepted"
            : "refused",
      ]);
      const known = orders.get(match.orderId);
      const accepted = (acceptedConfirmations.get(match.orderId) ?? []).find(
        (e) => e.id !== exchange.id && e.endMs <= exchange.startedAtMs,
      );
      const toldFinal = finalCallbacks.find(
        (c) =>
          c.orderId === match.orderId &&
          is2xx(c.answer?.status) &&
          c.receivedAtMs + (c.answer?.durationMs ?? 0) < exchange.startedAtMs,
      );
      const input = {
        orderId: match.orderId,
        created: known ? { kind: known.kind } : undefined,
        pathKind: spec.kind,
        answerStatus: exchange.response?.status,
        notConfirmableBecause: accepted
          ? `its confirmation was accepted in ${accepted.id}`
          : toldFinal
            ? `its ${toldFinal.status} callback (${toldFinal.id}) was acknowledged`
            : undefined,
      };
      judge(merchantChecks, endpoint, merchantConfirmsOwnOrder, input, ids);
      judge(merchantChecks, endpoint, merchantConfirmsConfirmable, input, ids);
    }

    // --- the provider's answer ---
    // No answer: the provider's transport (counted), or a merchant that went away mid-request.
    if (exchange.transportFault !== undefined) transportFaults += 1;
    if (exchange.transportFault !== undefined || !exchange.response) continue;
    const answer = exchange.response;
    // A compressed answer: its coding judged, its body judged decoded (or not at all, when it does not decode).
    if (answer.encoding) {
      const acceptEncoding = exchange.requestHeaders["accept-encoding"];
      judge(
        providerChecks,
        endpoint,
        envelopeContentCodingAccepted,
        {
          codings: answer.encoding.codings,
          acceptEncoding,
          refused: answer.encoding.codings.filter((coding) => !acceptsCoding(acceptEncoding, coding)),
          decoded: answer.encoding.decoded,
          problem: answer.encoding.problem,
        },
        ids,
      );
      if (!answer.encoding.decoded) continue;
    }
    const json = jsonOf(answer.body);
    const response: ExchangeResponse = {
      status: answer.status,
      headers: answer.headers,
      body: answer.body.text,
      json,
    };
    if (answer.body.cut) continue;
    judge(providerChecks, endpoint, envelopeJsonContentType, response, ids);
    judge(providerChecks, endpoint, envelopeShape, response, ids);
    judge(providerChecks, endpoint, envelopeRequestIdPresent, response, ids);
    const result = (json as { result?: Record<string, unknown> } | undefined)?.result;
    if (result && typeof result === "object")
      requestIds.push({ requestId: result["x-request-id"], where: exchange.id });
    if (!is2xx(answer.status)) {
      const refusal = `HTTP ${answer.status} ${typeof result?.codeError === "string" ? result.codeError : "(no codeError)"}`;
      coverage.refusals[refusal] = (coverage.refusals[refusal] ?? 0) + 1;
      judge(providerChecks, endpoint, envelopeFailureMarkers, response, ids);
      judge(
        providerChecks,
        endpoint,
        envelopeFailureData,
        { response, failureData: profile.gaps.failureData, failureMessage: profile.gaps.failureMessage },
        ids,
      );
      judge(
        providerChecks,
        endpoint,
        envelopeFailureMessage,
        { response, failureData: profile.gaps.failureData, failureMessage: profile.gaps.failureMessage },
        ids,
      );
    } else judge(providerChecks, endpoint, envelopeSuccessMarkers, response, ids);

    // Refusals the merchant's own traffic asked for: a wrong code, a merchantOrderID used before.
    if (spec.step === "confirm" && request.code === profile.confirmation.wrongCode)
      judge(providerChecks, endpoint, rejectsWrongCode, { response }, ids);
    if (spec.step === "create" && moid !== null) {
      const earlier = seenMerchantOrderIds.get(`${accountOf(exchange)}\n${moid}`);
      if (earlier !== undefined)
        judge(providerChecks, endpoint, rejectsDuplicateMerchantOrderId, { response }, ids);
      else if (is2xx(answer.status)) seenMerchantOrderIds.set(`${accountOf(exchange)}\n${moid}`, exchange.id);
    }

    const data = dataOf(json);
    if (!is2xx(answer.status) || !data) continue;
    if (typeof data.status === "string") statuses.add(data.status);
    judge(providerChecks, endpoint, fieldsStatusKnown, { status: data.status, known: knownStatuses }, ids);
    judge(
      providerChecks,
      endpoint,
      semanticsStatusAfterOperation,
      { operation, expected: profile.expectedStatus[operation], received: data.status },
      ids,
    );
    if (operation === "createMobileCommerceOrder") {
      judge(providerChecks, endpoint, fieldsOrderRecord, { data, contract }, ids);
      judge(
        providerChecks,
        endpoint,
        semanticsUsdtAmount,
        { record: data, tolerance: profile.usdtTolerance },
        ids,
      );
      judge(
        providerChecks,
        endpoint,
        semanticsUsdtCommission,
        { record: data, tolerance: profile.usdtTolerance },
        ids,
      );
      judge(providerChecks, endpoint, semanticsCommissionNonNegative, data, ids);
      judge(providerChecks, endpoint, semanticsExchangeRatePositive, data, ids);
      judge(
        providerChecks,
        endpoint,
        semanticsAmountEchoed,
        { field: "amount", expected: request.amount, received: data.amount },
        ids,
      );
      const details = (data.paymentDetailsData ?? {}) as Record<string, unknown>;
      judge(
        providerChecks,
        endpoint,
        semanticsMethodEchoed,
        { field: "paymentDetailsData.methodID", expected: request.methodID, received: details.methodID },
        ids,
      );
      if (method)
        judge(
          providerChecks,
          endpoint,
          semanticsCurrencyOfMethod,
          { field: "currency", expected: method.currency, received: data.currency },
          ids,
        );
      judge(
        providerChecks,
        endpoint,
        semanticsMerchantOrderIdEchoed,
        { field: "idTransactionMerchant", expected: moid, received: data.idTransactionMerchant },
        ids,
      );
      judge(
        providerChecks,
        endpoint,
        semanticsDatesOrdered,
        { record: data, rfc3339: profile.gaps.dateFormat === "rfc3339" },
        ids,
      );
      judge(providerChecks, endpoint, semanticsRoutingAttemptsEmpty, data, ids);
    } else if (operation === "createQuasiEcomOrder") {
      judge(providerChecks, endpoint, fieldsQuasiEcomCreationResult, { data, contract }, ids);
      judge(
        providerChecks,
        endpoint,
        semanticsMerchantOrderIdEchoed,
        { field: "merchantOrderID", expected: moid, received: data.merchantOrderID },
        ids,
      );
    } else {
      judge(providerChecks, endpoint, fieldsConfirmationResult, { data, contract }, ids);
      judge(providerChecks, endpoint, semanticsTimerValid, data, ids);
      const known = match.orderId !== undefined ? orders.get(match.orderId) : undefined;
      for (const due of dueFor(request.code))
        if (known?.webhookRewritten && match.orderId !== undefined)
          triggered.push({
            orderId: match.orderId,
            status: due,
            sentAtMs: exchange.startedAtMs,
            answeredAtMs: exchange.startedAtMs + exchange.durationMs,
            exchangeId: exchange.id,
          });
      if (known && match.orderId !== undefined)
        judge(
          providerChecks,
          endpoint,
          semanticsConfirmationEchoesOrder,
          {
            pathId: match.orderId,
            order: { amount: known.amount, currency: known.currency, merchantOrderID: known.merchantOrderID },
            result: data,
          },
          ids,
        );
    }
    if (spec.step === "create" && typeof data.id === "string") {
      orders.set(data.id, {
        orderId: data.id,
        kind: spec.kind,
        amount: request.amount,
        currency: data.currency ?? method?.currency,
        merchantOrderID: moid,
        createdBy: exchange.id,
        createdSentAtMs: exchange.startedAtMs,
        createdAnsweredAtMs: exchange.startedAtMs + exchange.durationMs,
        webhookRewritten: exchange.webhookRewritten !== undefined,
      });
      if (exchange.webhookRewritten) orderOfKey.set(exchange.webhookRewritten.key, data.id);
    }
  }
  if (requestIds.length >= 2) judge(providerChecks, "(all endpoints)", envelopeRequestIdUnique, requestIds);
  if (creations.length > 0) {
    // Unique within one merchant account (§4.1): judged per API key the traffic carried.
    let account = 0;
    for (const uses of moidUses.values()) {
      account += 1;
      judge(merchantChecks, "(all endpoints)", merchantOrderIdUnique, uses, {
        ...(moidUses.size > 1 ? { case: `merchant account ${account}` } : {}),
      });
    }
    judge(merchantChecks, "(all endpoints)", merchantNoBlindResend, { unanswered, creations });
  }

  // --- callbacks: per order and status entered, what arrived, and the receiver's answers ---
  const timeoutMs = profile.timeouts.callbackMs;
  const byOrder = new Map<string, ObservedCallbackDelivery[]>();
  for (const delivery of allCallbacks) {
    const key = delivery.orderId ?? `(no order id, ${delivery.key})`;
    byOrder.set(key, [...(byOrder.get(key) ?? []), delivery]);
  }
  const callbackKinds = new Set<string>();
  const watchedUntilMs = options.endedAtMs ?? Date.now();
  const retryPolicy = profile.callbacks.retryPolicy;
  for (const [orderId, deliveries] of byOrder) {
    const known = orders.get(orderId);
    const expectedOrder = deliveries[0]?.key ? orderOfKey.get(deliveries[0].key) : undefined;
    const observed: ObservedCallback[] = deliveries.map((d) => ({
      json: d.json,
      receivedAtMs: d.receivedAtMs,
      signature: d.signature,
      answeredWith: d.answer?.status ?? 0,
      body: d.body.text,
    }));
    const statusesOfOrder = [...new Set(deliveries.map((d) => d.status ?? "(none)"))];
    for (const status of statusesOfOrder) {
      callbackKinds.add(status);
      const ofStatus = deliveries.filter((d) => (d.status ?? "(none)") === status);
      const ids = { callbacks: ofStatus.map((d) => d.id), case: `${orderId} ${status}` };
      const scenario: CallbackScenario = {
        orderId: expectedOrder ?? orderId,
        statusEntered: status,
        callbacks: observed,
        triggeredAtMs: 0,
        timeoutMs,
        paths: callbackPathsOf(profile.callbacks),
        order: {
          amount: Number(known?.amount),
          currency: String(known?.currency),
          merchantOrderID: known?.merchantOrderID ?? null,
        },
        signed: options.signed,
      };
      const endpoint = "(callbacks)";
      judge(providerChecks, endpoint, callbacksBodyParses, scenario, ids);
      judge(providerChecks, endpoint, callbacksNamesOrder, scenario, ids);
      judge(providerChecks, endpoint, callbacksNamesStatus, scenario, ids);
      judge(
        providerChecks,
        endpoint,
        fieldsStatusKnown,
        { status, known: [...CALLBACK_STATUSES, ...(profile.gaps.extraStatuses ?? [])] },
        ids,
      );
      judge(providerChecks, endpoint, callbacksSignatureValid, scenario, ids);
      if (known) judge(providerChecks, endpoint, callbacksMatchesOrder, scenario, ids);
      judge(providerChecks, endpoint, callbacksExactlyOnce, scenario, ids);
      judge(providerChecks, endpoint, callbacksStopsAfterAcknowledgement, scenario, ids);

      // A delivery the receiver refused (not a 2xx, or none) is retried as the profile's policy
      // declares, up to the attempt it acknowledged; no policy declared: not observed. A 2xx later
      // than the timeout settles it unless the provider, having given up on it, delivered again.
      const settledAt = ofStatus.findIndex(
        (d, i) =>
          is2xx(d.answer?.status) &&
          ((d.answer?.durationMs ?? Number.POSITIVE_INFINITY) <= timeoutMs || i === ofStatus.length - 1),
      );
      if (retryPolicy && settledAt !== 0) {
        const attempts = settledAt === -1 ? ofStatus : ofStatus.slice(0, settledAt + 1);
        const stalls = options.retryStalls?.get((attempts[0] as ObservedCallbackDelivery).id);
        judge(
          providerChecks,
          endpoint,
          callbacksRetryPolicy,
          {
            attemptsAtMs: attempts.map((d) => d.receivedAtMs),
            policy: retryPolicy,
            observerStallMs: stalls?.observerStallMs ?? 0,
            machineStallMs: attempts.slice(1).map(() => stalls?.machineStallMs ?? 0),
            targetOnThisHost: options.targetOnThisHost ?? true,
            settled: settledAt !== -1,
            // A retry, like any callback, may take callbackMs to arrive once due (certify waits as long).
            observedUntilMs: watchedUntilMs - timeoutMs,
            // An answer refuses when it comes; no answer, at the timeout at the latest.
            refusedAfterMs: attempts.map((d) => d.answer?.durationMs ?? timeoutMs),
            bodies: attempts.map((d) => (d.body.cut ? undefined : d.body.text)),
          },
          { ...ids, callbacks: attempts.map((d) => d.id) },
        );
      }

      // The receiver: a genuine callback is taken (2xx) within the profile's timeout; its first
      // answer may be a refusal the provider's retry then settles, as the profile's retries allow.
      const genuine = ofStatus.filter((d) => d.signature === "valid" || d.signature === "not-checked");
      if (genuine.length === 0) continue;
      const answerOf = (d: ObservedCallbackDelivery) => ({
        case: `${status}, order ${orderId}, delivery ${d.id}`,
        status: d.answer?.status,
        durationMs: d.answer?.durationMs ?? timeoutMs + 1,
        error: d.error,
      });
      const taken = genuine.find((d) => is2xx(d.answer?.status)) ?? genuine[genuine.length - 1];
      judge(
        merchantChecks,
        endpoint,
        receiverAcknowledgesValid,
        { answer: answerOf(taken as ObservedCallbackDelivery), timeoutMs },
        ids,
      );
      const firstSettled = genuine.findIndex((d) => d.answer !== undefined);
      const again = genuine.slice(firstSettled + 1);
      if (firstSettled >= 0 && again.length > 0)
        judge(
          merchantChecks,
          endpoint,
          receiverAcknowledgesDuplicates,
          { answers: again.map(answerOf), timeoutMs },
          ids,
        );
    }
  }

  // An order left unconfirmed (or refused every confirmation) expires once its declared lifetime ran
  // out, sooner by what the sandbox clock the profile declares moved it: its expired callback is due.
  const lifetimeS = lifetimeSecondsOf(profile);
  if (lifetimeS !== undefined)
    for (const order of orders.values()) {
      if (!order.webhookRewritten) continue;
      if ((confirmationsOf.get(order.orderId) ?? []).some((c) => c !== "refused")) continue;
      const advances = clockAdvances
        .filter((a) => a.orderId === undefined || a.orderId === order.orderId)
        .filter((a) => a.answeredAtMs > order.createdSentAtMs)
        .sort((a, b) => a.answeredAtMs - b.answeredAtMs);
      // A clock the profile does not declare, one moved while the order was being created, or one
      // whose answer was lost: its expiry cannot be timed from what the profile says.
      if (
        advances.length > 0 &&
        (profile.sandboxClock === false ||
          advances.some((a) => a.unanswered || a.sentAtMs < order.createdAnsweredAtMs))
      )
        continue;
      // The latest moment it can have expired: its age since the creation's answer plus every
      // advance answered by then reaches the lifetime.
      let advancedMs = 0;
      let byMs = order.createdAnsweredAtMs + lifetimeS * 1000;
      let by: (typeof advances)[number] | undefined;
      for (const advance of advances) {
        if (advance.answeredAtMs >= byMs) break;
        advancedMs += advance.ms;
        const after = Math.max(
          advance.answeredAtMs,
          order.createdAnsweredAtMs + lifetimeS * 1000 - advancedMs,
        );
        if (after < byMs) {
          byMs = after;
          by = advance;
        }
      }
      triggered.push({
        orderId: order.orderId,
        status: "expired",
        sentAtMs: by ? by.sentAtMs : order.createdSentAtMs + lifetimeS * 1000 - advancedMs,
        answeredAtMs: byMs,
        exchangeId: by ? by.id : order.createdBy,
      });
    }

  // Each callback a confirmation, a lifetime or the sandbox clock made due, once the session outlasted its timeout: it arrived and says so.
  const endedAtMs = options.endedAtMs ?? Date.now();
  for (const trigger of triggered) {
    if (!options.callbacksObserved || endedAtMs < trigger.answeredAtMs + timeoutMs) continue;
    const known = orders.get(trigger.orderId) as KnownOrder;
    const ofOrder = byOrder.get(trigger.orderId) ?? [];
    const toCallback = (d: ObservedCallbackDelivery): ObservedCallback => ({
      json: d.json,
      receivedAtMs: d.receivedAtMs,
      signature: d.signature,
      answeredWith: d.answer?.status ?? 0,
      body: d.body.text,
    });
    const scenario = (callbacks: ObservedCallback[]): CallbackScenario => ({
      orderId: trigger.orderId,
      statusEntered: trigger.status,
      callbacks,
      triggeredAtMs: trigger.sentAtMs,
      triggeredByMs: trigger.answeredAtMs,
      timeoutMs,
      paths: { id: profile.callbacks.idPath, status: profile.callbacks.statusPath },
      order: {
        amount: Number(known.amount),
        currency: String(known.currency),
        merchantOrderID: known.merchantOrderID,
      },
      signed: options.signed,
    });
    const ids = {
      exchanges: [trigger.exchangeId],
      callbacks: ofOrder.map((d) => d.id),
      case: `${trigger.orderId} ${trigger.status}`,
    };
    judge(
      providerChecks,
      "(callbacks)",
      callbacksArrives,
      scenario(ofOrder.filter((d) => d.status === trigger.status).map(toCallback)),
      ids,
    );
    judge(providerChecks, "(callbacks)", callbacksNamesStatus, scenario(ofOrder.map(toCallback)), ids);
  }

  coverage.endpoints.notSeen = OPERATION_NAMES.filter((name) => coverage.endpoints.seen[name] === undefined);
  coverage.statuses = [...statuses].sort();
  coverage.callbackKinds.seen = [...callbackKinds].sort();
  coverage.callbackKinds.notSeen = CALLBACK_STATUSES.filter((status) => !callbackKinds.has(status));

  const exchanges = session.exchangeCount;
  const callbacks = session.callbackCount;
  const lost = session.spillFailure;
  const side = (tally: CheckTally, rules: Check<never>[], nothing: boolean): SideJudgement => {
    const failed = tally.failedRequired;
    return {
      // Evidence the disk refused would make any verdict rest on part of the traffic.
      verdict: lost
        ? "not judged"
        : nothing
          ? "nothing observed"
          : failed > 0
            ? "not conformant"
            : "conformant",
      checks: tally.records(),
      notObserved: rules.filter((r) => !tally.ran.has(r.name)).map((r) => ({ check: r.name, rule: r.rule })),
      failed,
    };
  };
  const provider = side(providerChecks, PROVIDER_RULES, exchanges === 0);
  const merchant = side(merchantChecks, MERCHANT_RULES, exchanges === 0);
  const failing = { provider: providerChecks.failing, merchant: merchantChecks.failing };
  const coverageText = coverageLine(coverage, options.callbacksObserved);
  const line = (s: SideJudgement, failingChecks: Set<string>) =>
    lost
      ? `not judged: the session's evidence could not be written to ${lost.file} (${lost.code}: the temporary folder's disk is full or failing); free space in TMPDIR or point TMPDIR at a larger disk, and observe again`
      : s.verdict === "nothing observed"
        ? "nothing observed: no exchange passed the proxy"
        : s.verdict === "conformant"
          ? `no violation in ${exchanges} exchanges and ${callbacks} callbacks; coverage ${coverageText}`
          : `${s.failed} violation(s) of ${[...failingChecks].join(", ")} in ${exchanges} exchanges and ${callbacks} callbacks; coverage ${coverageText}`;
  return {
    provider,
    merchant,
    coverage,
    exchanges,
    callbacks,
    transportFaults,
    callbacksObserved: options.callbacksObserved,
    unknownCallbacks: session.unknownKeyCallbacks,
    lines: { provider: line(provider, failing.provider), merchant: line(merchant, failing.merchant) },
  };
}

/** `check`, run as not evaluated for `reason`: named in the report, never passed or failed. */
function notJudgedAs<Input>(check: Check<Input>, reason: string): Check<Input> {
  return {
    ...check,
    run: () => ({
      ok: false,
      detail: `not evaluated, because ${reason}`,
      notEvaluated: { check: check.name, signature: `${check.name} not judged`, reason },
    }),
  };
}

/** The statuses whose callback tells the merchant the order is past confirmation. */
const FINAL_FOR_CONFIRMATION: ReadonlySet<string> = new Set(CALLBACK_STATUSES);

function pathOf(exchange: ObservedExchange): string {
  return URL.canParse(exchange.path, "http://x") ? new URL(exchange.path, "http://x").pathname : "";
}

export function coverageLine(coverage: Coverage, callbacksObserved: boolean): string {
  const seen = Object.keys(coverage.endpoints.seen);
  const parts = [
    `endpoints ${seen.length}/${OPERATION_NAMES.length}${coverage.endpoints.notSeen.length > 0 ? ` (not seen: ${coverage.endpoints.notSeen.join(", ")})` : ""}`,
    `statuses ${coverage.statuses.join(", ") || "none"}`,
    callbacksObserved
      ? `callback kinds ${coverage.callbackKinds.seen.join(", ") || "none"}${coverage.callbackKinds.notSeen.length > 0 ? ` (not seen: ${coverage.callbackKinds.notSeen.join(", ")})` : ""}`
      : "callbacks unobserved (--keep-webhook)",
    `refusals ${
      Object.entries(coverage.refusals)
        .map(([what, n]) => `${what} ×${n}`)
        .join(", ") || "none"
    }`,
  ];
  return parts.join("; ");
}
