/**
 * Authentication and malformed input on all four endpoints (api §4, §5, §7): what the target must
 * refuse. Every constraint of the request schemas and the profile (required fields, types, formats,
 * lengths, ranges, each method's conditional fields) is probed by derived-negatives.spec.ts, one
 * case per constraint; the few hand-picked cases here stay as the plainest examples.
 */

import type { Exchange } from "../../contract/index.ts";
import {
  ENDPOINTS,
  endpointPath,
  nearMissApiKeys,
  type OperationName,
  rejectsMalformedJson,
  rejectsMissingApiKey,
  rejectsNearMissApiKey,
  rejectsNonPositiveAmount,
  rejectsQueryApiKey,
  rejectsTrafficTypeOutsideEnum,
  rejectsWrongApiKey,
} from "../../contract/index.ts";
import { beforeAll, describe, it } from "../engine/spec-api.ts";
import { createOrder, orderIdOf, orderRequest } from "./support/orders.ts";
import { failureEnvelopeTests, titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verify, verifyRejection } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);

/** `make`, called once: every caller gets the same promise. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}
/** A key no merchant has, shaped like a real one. */
const WRONG_API_KEY = "h2h-certify-wrong-key-0000000000";
/** Keys one step from a real one: a target that compares a prefix, case or trimmed key takes them. */
const NEAR_MISS_API_KEYS = nearMissApiKeys(target.apiKey, target.secondApiKey);

for (const endpoint of Object.values(ENDPOINTS)) {
  const operation: OperationName = endpoint.operation;
  const kind = endpoint.orderKind;
  const isCreate = !endpoint.path.includes("{id}");

  describe(operation, () => {
    let orderId: string | undefined;
    /** A body the target accepts for this endpoint; each case breaks one thing in it. */
    const validBody = (): Record<string, unknown> =>
      isCreate ? orderRequest(target, kind) : { code: target.profile.confirmation.successCode };
    const send = (
      body: unknown,
      options: { apiKey?: string | null; rawBody?: string } = {},
    ): Promise<Exchange> =>
      target.client().call(operation, body, { ...options, ...(orderId !== undefined ? { orderId } : {}) });

    beforeAll(async () => {
      // Confirm cases need an order of this kind that exists and awaits confirmation; the
      // refusals below must leave it so.
      if (!isCreate) orderId = orderIdOf(await createOrder(target, kind));
    });

    // Each refused request is sent once, by whichever test needs it first: `--only` may run the
    // envelope checks of an answer without the test of the refusal itself.
    const missingKey = once(() => send(validBody(), { apiKey: null }));
    it(rejectsMissingApiKey.name, async (ctx) => {
      verifyRejection(ctx, target, rejectsMissingApiKey, await missingKey(), "unauthorized");
    });
    failureEnvelopeTests(target, missingKey, "missing API key");

    it(rejectsQueryApiKey.name, async (ctx) => {
      // An order of its own: a target that takes the key from the query confirms it, and the
      // shared order must still await its code for the cases after this one.
      const own = isCreate ? undefined : orderIdOf(await createOrder(target, kind));
      const path = `${endpointPath(operation, own)}?api_key=${encodeURIComponent(target.apiKey)}`;
      const exchange = await target.client().post(path, validBody(), { apiKey: null, operation });
      verifyRejection(ctx, target, rejectsQueryApiKey, exchange, "unauthorized");
    });

    it(rejectsWrongApiKey.name, async (ctx) => {
      const exchange = await send(validBody(), { apiKey: WRONG_API_KEY });
      verifyRejection(ctx, target, rejectsWrongApiKey, exchange, "unauthorized");
    });
    for (const miss of NEAR_MISS_API_KEYS) {
      it(titled(rejectsNearMissApiKey, miss.name), async (ctx) => {
        // A target that normalises may read this key as the merchant's and confirm: an order of
        // its own keeps the shared one awaiting its code for the cases after it.
        const own =
          !isCreate && miss.normalisation !== undefined
            ? orderIdOf(await createOrder(target, kind))
            : orderId;
        const exchange = await target.client().call(operation, validBody(), {
          apiKey: miss.value,
          ...(own !== undefined ? { orderId: own } : {}),
        });
        const pinned = target.profile.errors.unauthorized;
        verify(ctx, target, rejectsNearMissApiKey, { response: exchange.response, pinned }, [exchange], {
          normalisation: miss.normalisation,
        });
      });
    }

    const malformed = once(() => send(undefined, { rawBody: '{"methodID": 1,' }));
    it(rejectsMalformedJson.name, async (ctx) => {
      verifyRejection(ctx, target, rejectsMalformedJson, await malformed(), "invalidJson");
    });
    failureEnvelopeTests(target, malformed, "malformed JSON");

    if (isCreate) {
      const badTrafficType = once(() => send({ ...validBody(), trafficType: "bulk" }));
      it(rejectsTrafficTypeOutsideEnum.name, async (ctx) => {
        verifyRejection(ctx, target, rejectsTrafficTypeOutsideEnum, await badTrafficType(), "validation");
      });
      // A validation refusal's body is judged like the others: its message says what failed.
      failureEnvelopeTests(target, badTrafficType, "validation refusal");
      for (const amount of [0, -1]) {
        it(titled(rejectsNonPositiveAmount, `amount = ${amount}`), async (ctx) => {
          const exchange = await send({ ...validBody(), amount });
          verifyRejection(ctx, target, rejectsNonPositiveAmount, exchange, "validation");
        });
      }
    }
  });
}
