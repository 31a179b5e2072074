/**
 * The OpenAPI 3.1 document of the API, generated from the zod contract (zod 4's JSON Schema
 * output, draft 2020-12, which is OpenAPI 3.1's schema dialect). Nothing here restates a field:
 * the components are the contract's schemas; this file only lays out paths, auth, callbacks and
 * the error answers (contract/error-answers.ts), each a response of the operations it applies to.
 */
import * as z from "zod";
import { ENDPOINTS } from "./endpoints.ts";
import { type ErrorAnswer, errorAnswersOf } from "./error-answers.ts";
import {
  CALLBACK_STATUSES,
  ENVELOPE_MARKERS,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
} from "./names.ts";
import {
  ConfirmOrderRequest,
  type Contract,
  CreateMobileCommerceOrderRequest,
  CreateQuasiEcomOrderRequest,
  ErrorEnvelope,
  ErrorResult,
  contract as lenientContract,
  SuccessResult,
} from "./schemas.ts";

const REF = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** An order kind as it reads in a component name: `mobile_commerce` → `MobileCommerce`. */
const pascal = (kind: string) =>
  kind.replace(/(^|_)([a-z])/g, (_, _sep, letter: string) => letter.toUpperCase());

/** The component name of each endpoint's success envelope (`MobileCommerceOrderResponse`, ...). */
const RESPONSE_COMPONENT = Object.fromEntries(
  OPERATION_NAMES.map((operation) => {
    const { kind, step } = OPERATIONS[operation];
    return [operation, `${pascal(kind)}${step === "create" ? "Order" : "Confirmation"}Response`];
  }),
) as Record<OperationName, string>;

/** The component name of each endpoint's request (`CreateMobileCommerceOrderRequest`, `ConfirmOrderRequest`). */
const REQUEST_COMPONENT = Object.fromEntries(
  OPERATION_NAMES.map((operation) => {
    const { kind, step } = OPERATIONS[operation];
    return [operation, step === "create" ? `Create${pascal(kind)}OrderRequest` : "ConfirmOrderRequest"];
  }),
) as Record<OperationName, string>;

interface ErrorResponseGroup {
  /** The component's name, e.g. `ErrorEnvelope409OnConfirm`. */
  component: string;
  httpStatus: number;
  answers: ErrorAnswer[];
}

/**
 * The error responses of each operation: its error answers grouped by HTTP status. A status
 * whose codes differ between creating and confirming operations gets one component per role.
 */
function errorResponseGroups(): Record<OperationName, ErrorResponseGroup[]> {
  const byOperation = {} as Record<OperationName, ErrorResponseGroup[]>;
  const codesByStatus = new Map<number, Set<string>>();
  for (const operation of OPERATION_NAMES) {
    const groups = new Map<number, ErrorAnswer[]>();
    for (const [, answer] of errorAnswersOf(operation)) {
      groups.set(answer.httpStatus, [...(groups.get(answer.httpStatus) ?? []), answer]);
    }
    byOperation[operation] = [...groups].map(([httpStatus, answers]) => {
      const key = answers.map((a) => a.codeError).join(",");
      codesByStatus.set(httpStatus, (codesByStatus.get(httpStatus) ?? new Set()).add(key));
      return { component: "", httpStatus, answers };
    });
  }
  for (const [operation, groups] of Object.entries(byOperation) as [OperationName, ErrorResponseGroup[]][]) {
    for (const group of groups) {
      const shared = (codesByStatus.get(group.httpStatus)?.size ?? 0) === 1;
      const role = OPERATIONS[operation].step === "create" ? "OnCreate" : "OnConfirm";
      group.component = `ErrorEnvelope${group.httpStatus}${shared ? "" : role}`;
    }
  }
  return byOperation;
}

const ERROR_RESPONSE_GROUPS = errorResponseGroups();

/** The error envelope narrowed to the codes one response carries. */
function errorEnvelopeOf(codes: string[]): z.ZodType {
  return ErrorEnvelope.extend({
    result: ErrorResult.extend({ codeError: z.enum(codes as [string, ...string[]]) }),
  });
}

/** The contract's schemas as named JSON Schema components, with $refs between them. */
export function contractComponents(contract: Contract = lenientContract): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  const named: [string, z.ZodType][] = [
    ["CreateMobileCommerceOrderRequest", CreateMobileCommerceOrderRequest],
    ["CreateQuasiEcomOrderRequest", CreateQuasiEcomOrderRequest],
    ["ConfirmOrderRequest", ConfirmOrderRequest],
    ["OrderStatus", contract.orderStatus],
    ["PaymentDetailsData", contract.paymentDetailsData],
    ["OrderRecord", contract.orderRecord],
    ["ConfirmationResult", contract.confirmationResult],
    ["QuasiEcomCreationResult", contract.quasiEcomCreationResult],
    ["SuccessResult", SuccessResult],
    ["ErrorResult", ErrorResult],
    ["ErrorEnvelope", ErrorEnvelope],
    ["CallbackBody", contract.referenceCallbackBody],
    ...(Object.entries(RESPONSE_COMPONENT) as [OperationName, string][]).map(
      ([operation, id]) => [id, contract.responses[operation]] as [string, z.ZodType],
    ),
  ];
  const errorComponents = new Map<string, string[]>();
  for (const group of Object.values(ERROR_RESPONSE_GROUPS).flat()) {
    errorComponents.set(
      group.component,
      group.answers.map((answer) => answer.codeError),
    );
  }
  for (const [id, codes] of errorComponents) named.push([id, errorEnvelopeOf(codes)]);
  for (const [id, schema] of named) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: "throw",
  });
  for (const schema of Object.values(schemas) as { $schema?: unknown; $id?: unknown }[]) {
    // The dialect comes from the document, and an $id with a fragment is not valid in 2020-12.
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}

const ERROR_NOTE =
  "The seed shows no failures (§7): these are the reference provider's conventions; a target's own " +
  "codes are pinned in its profile (`errors`).";

/** The error responses of one operation, by HTTP status. */
function errorResponses(operation: OperationName): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const group of ERROR_RESPONSE_GROUPS[operation]) {
    responses[String(group.httpStatus)] = {
      description: `${group.answers.map((a) => `\`${a.codeError}\`: ${a.when}.`).join(" ")} ${ERROR_NOTE}`,
      content: { "application/json": { schema: REF(group.component) } },
    };
  }
  return responses;
}

const CALLBACK_DESCRIPTION =
  `Sent when an order enters one of: ${CALLBACK_STATUSES.join(", ")} (§6), to metadata.webHook of the ` +
  "creating request. The seed shows no method, headers, body shape, signature or retry behaviour; this " +
  "body and the signature header are the reference provider's (DESIGN §3): POST JSON, header " +
  "`X-Signature: sha256=<hex HMAC-SHA256 of the raw body>`, retried on non-2xx or a 5 s timeout, " +
  "5 attempts with 0.5, 1, 2, 4 s backoff.";

export function buildOpenApiDocument(contract: Contract = lenientContract): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const endpoint of Object.values(ENDPOINTS)) {
    const isCreate = !endpoint.path.includes("{id}");
    paths[endpoint.path] = {
      [endpoint.method.toLowerCase()]: {
        operationId: endpoint.operation,
        summary: endpoint.summary,
        description: `Seed §${endpoint.section}.`,
        tags: [endpoint.orderKind === "mobile_commerce" ? "mobile commerce" : "quasi-ecom"],
        ...(isCreate
          ? {}
          : {
              parameters: [
                {
                  name: "id",
                  in: "path",
                  required: true,
                  description: "The order ID in the service.",
                  schema: { type: "string" },
                },
              ],
            }),
        requestBody: {
          required: true,
          content: { "application/json": { schema: REF(REQUEST_COMPONENT[endpoint.operation]) } },
        },
        responses: {
          "200": {
            description: `Success: codeError \`${ENVELOPE_MARKERS.successCodeError}\`, message null, status \`${ENVELOPE_MARKERS.successStatus}\` (§2.1, §7).`,
            content: { "application/json": { schema: REF(RESPONSE_COMPONENT[endpoint.operation]) } },
          },
          ...errorResponses(endpoint.operation),
          default: {
            description:
              "Any other failure (e.g. 413 for a body over the size limit, 5xx). The envelope carries " +
              `codeError other than \`${ENVELOPE_MARKERS.successCodeError}\`, a message and result.x-request-id.`,
            content: { "application/json": { schema: REF("ErrorEnvelope") } },
          },
        },
        ...(isCreate
          ? {
              callbacks: {
                orderStatusChanged: {
                  "{$request.body#/metadata/webHook}": {
                    post: {
                      summary: "Order status callback",
                      description: CALLBACK_DESCRIPTION,
                      requestBody: {
                        required: true,
                        content: { "application/json": { schema: REF("CallbackBody") } },
                      },
                      responses: { "200": { description: "Any 2xx acknowledges the callback." } },
                    },
                  },
                },
              },
            }
          : {}),
      },
    };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "H2H pay-in API: mobile commerce and quasi-ecom",
      version: "v1",
      description:
        "Generated by h2h-certify from its zod contract (contract/schemas.ts). Where the provider's " +
        "documentation leaves a gap, the schemas are lenient; see the comments in contract/schemas.ts.",
    },
    servers: [{ url: "{base_url}", variables: { base_url: { default: "http://127.0.0.1:8080" } } }],
    security: [{ bearerAuth: [] }],
    tags: [{ name: "mobile commerce" }, { name: "quasi-ecom" }],
    paths,
    components: {
      schemas: contractComponents(contract),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "`Authorization: Bearer <API_KEY>`, the merchant's API key (§5).",
        },
      },
    },
  };
}
