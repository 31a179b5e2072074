/**
 * Authentication and input validation on all four endpoints (seed §4, §5, §7): what the target
 * must refuse. The required fields and field types come from the contract's request schemas,
 * plus the conditional fields the profile says this target requires.
 */
import { beforeAll, describe, it } from "vitest";
import type { Exchange } from "../../contract/index.ts";
import {
  ENDPOINTS,
  type OperationName,
  type OrderKind,
  rejectsMalformedJson,
  rejectsMissingApiKey,
  rejectsMissingField,
  rejectsNonPositiveAmount,
  rejectsTrafficTypeOutsideEnum,
  rejectsWrongApiKey,
  rejectsWrongType,
  requestFields,
  withField,
  wrongTypeValue,
} from "../../contract/index.ts";
import { createOrder, orderIdOf, orderRequest } from "./support/orders.ts";
import { failureEnvelopeTests, titled } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";
import { verifyRejection } from "./support/verify.ts";

const target = loadSpecTarget(import.meta.url);
/** A key no merchant has, shaped like a real one. */
const WRONG_API_KEY = "h2h-certify-wrong-key-0000000000";

/** The conditional fields this target requires for an order kind (profile), as dotted paths. */
function profileRequiredFields(kind: OrderKind): string[] {
  const method = target.profile.methods[kind];
  return [
    ...(method.requires.clientID ? ["clientID"] : []),
    ...method.requires.clientMetadata.map((field) => `clientMetadata.${field}`),
  ];
}

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

    let missingKey: Exchange;
    it(rejectsMissingApiKey.name, async (ctx) => {
      missingKey = await send(validBody(), { apiKey: null });
      verifyRejection(ctx, target, rejectsMissingApiKey, missingKey, "unauthorized");
    });
    failureEnvelopeTests(target, () => missingKey, "missing API key");

    it(rejectsWrongApiKey.name, async (ctx) => {
      const exchange = await send(validBody(), { apiKey: WRONG_API_KEY });
      verifyRejection(ctx, target, rejectsWrongApiKey, exchange, "unauthorized");
    });

    let malformed: Exchange;
    it(rejectsMalformedJson.name, async (ctx) => {
      malformed = await send(undefined, { rawBody: '{"methodID": 1,' });
      verifyRejection(ctx, target, rejectsMalformedJson, malformed, "invalidJson");
    });
    failureEnvelopeTests(target, () => malformed, "malformed JSON");

    const fields = requestFields(endpoint.request);
    const required = [
      ...fields.filter((f) => f.required).map((f) => f.path),
      ...(isCreate ? profileRequiredFields(kind) : []),
    ];
    for (const path of required) {
      it(titled(rejectsMissingField, path), async (ctx) => {
        const exchange = await send(withField(validBody(), path, { remove: true }));
        verifyRejection(ctx, target, rejectsMissingField, exchange, "validation");
      });
    }

    for (const field of fields) {
      const value = wrongTypeValue(field.jsonType);
      it(titled(rejectsWrongType, `${field.path} = ${JSON.stringify(value)}`), async (ctx) => {
        const exchange = await send(withField(validBody(), field.path, { value }));
        verifyRejection(ctx, target, rejectsWrongType, exchange, "validation");
      });
    }

    if (isCreate) {
      it(rejectsTrafficTypeOutsideEnum.name, async (ctx) => {
        const exchange = await send({ ...validBody(), trafficType: "bulk" });
        verifyRejection(ctx, target, rejectsTrafficTypeOutsideEnum, exchange, "validation");
      });
      for (const amount of [0, -1]) {
        it(titled(rejectsNonPositiveAmount, `amount = ${amount}`), async (ctx) => {
          const exchange = await send({ ...validBody(), amount });
          verifyRejection(ctx, target, rejectsNonPositiveAmount, exchange, "validation");
        });
      }
    }
  });
}
