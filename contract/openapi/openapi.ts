/**
 * The OpenAPI 3.1 document of one integration, generated from the zod contract (zod 4's JSON
 * Schema output, draft 2020-12, which is OpenAPI 3.1's schema dialect) and the target's profile.
 * Nothing here restates a field: the components are the contract's schemas, the requests bound by
 * contract/openapi/openapi-requests.ts; this file lays out paths, auth, callbacks and the error answers
 * (contract/schemas/error-answers.ts) with the statuses and codes the profile pins.
 */
import * as z from "zod";
import type { Profile } from "../profile/index.ts";
import {
  buildContract,
  CALLBACK_STATUSES,
  type Contract,
  ENDPOINTS,
  ENVELOPE_MARKERS,
  type ErrorAnswerName,
  ErrorEnvelope,
  ErrorResult,
  errorAnswersOf,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
  SuccessResult,
  successEnvelopeSchema,
} from "../schemas/index.ts";
import {
  addPattern,
  dateConventionPattern,
  MONEY_DECIMALS_KEYS,
  spellForGenericTools,
  withDecimals,
} from "./openapi-generic.ts";
import { confirmRequestSchema, createRequestSchema } from "./openapi-requests.ts";

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

/** The component name of each endpoint's `data` on success: a confirmation's result is named per flow. */
const DATA_COMPONENT = Object.fromEntries(
  OPERATION_NAMES.map((operation) => {
    const { kind, step } = OPERATIONS[operation];
    const name =
      step === "confirm"
        ? `${pascal(kind)}ConfirmationResult`
        : kind === "mobile_commerce"
          ? "OrderRecord"
          : `${pascal(kind)}CreationResult`;
    return [operation, name];
  }),
) as Record<OperationName, string>;

/**
 * Each endpoint's `data` on success, its status the one the profile expects that operation to
 * answer (`expectedStatus`, semantics.status-after-operation): a confirmation's result differs per flow.
 */
function successDataOf(contract: Contract, profile: Profile): Record<OperationName, z.ZodType> {
  return Object.fromEntries(
    OPERATION_NAMES.map((operation): [OperationName, z.ZodType] => {
      const { kind, step } = OPERATIONS[operation];
      const data: z.ZodObject =
        step === "confirm"
          ? contract.confirmationResult
          : kind === "mobile_commerce"
            ? contract.orderRecord
            : contract.quasiEcomCreationResult;
      return [operation, data.extend({ status: z.literal(profile.expectedStatus[operation]) }) as z.ZodType];
    }),
  ) as Record<OperationName, z.ZodType>;
}

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
  /** The pinned HTTP status, or `4XX` where an answer's status is not pinned. */
  status: string;
  answers: PinnedAnswer[];
}

/** An error answer as the profile pins it: the status and code it gives, where it gives them. */
interface PinnedAnswer {
  name: ErrorAnswerName;
  httpStatus?: number | undefined;
  codeError?: string | undefined;
  when: string;
}

/**
 * The error responses of each operation: the answers the profile pins, grouped by HTTP status (an
 * answer whose status is not pinned is any 4xx). A status whose codes differ between creating and
 * confirming operations gets one component per role.
 */
function errorResponseGroups(profile: Profile): Record<OperationName, ErrorResponseGroup[]> {
  const byOperation = {} as Record<OperationName, ErrorResponseGroup[]>;
  const codesByStatus = new Map<string, Set<string>>();
  for (const operation of OPERATION_NAMES) {
    const groups = new Map<string, PinnedAnswer[]>();
    for (const [name, answer] of errorAnswersOf(operation)) {
      const pinned = profile.errors[name];
      const status = pinned?.httpStatus !== undefined ? String(pinned.httpStatus) : "4XX";
      const entry = { name, httpStatus: pinned?.httpStatus, codeError: pinned?.codeError, when: answer.when };
      groups.set(status, [...(groups.get(status) ?? []), entry]);
    }
    byOperation[operation] = [...groups].map(([status, answers]) => {
      const key = answers.map((a) => a.codeError ?? "*").join(",");
      codesByStatus.set(status, (codesByStatus.get(status) ?? new Set()).add(key));
      return { component: "", status, answers };
    });
  }
  for (const [operation, groups] of Object.entries(byOperation) as [OperationName, ErrorResponseGroup[]][]) {
    for (const group of groups) {
      const shared = (codesByStatus.get(group.status) ?? new Set()).size === 1;
      const role = OPERATIONS[operation].step === "create" ? "OnCreate" : "OnConfirm";
      group.component = `ErrorEnvelope${group.status}${shared ? "" : role}`;
    }
  }
  return byOperation;
}

/** What a profile declares of a failure's body (`gaps.failureData`, `gaps.failureMessage`), if anything. */
function failureBodyOf(profile: Profile): { data?: string; message?: string } {
  const gaps = profile.gaps as { failureData?: string; failureMessage?: string };
  return { data: gaps.failureData, message: gaps.failureMessage };
}

/**
 * The error envelope narrowed to the codes one response carries (where an answer of the group pins
 * no code, any code other than the success marker), and to the failure body the profile declares.
 */
function errorEnvelopeOf(answers: readonly PinnedAnswer[], profile: Profile): z.ZodType {
  const codes = answers.map((answer) => answer.codeError);
  const declared = failureBodyOf(profile);
  const result = ErrorResult.extend({
    ...(codes.some((code) => code === undefined)
      ? {}
      : { codeError: z.enum([...new Set(codes)] as [string, ...string[]]) }),
    ...(declared.message === "string" ? { message: z.string() } : {}),
  });
  return ErrorEnvelope.extend({
    result,
    ...(declared.data === "null" ? { data: z.null().optional() } : {}),
  });
}

/** The response-side schemas of the contract (for the profile's gaps) as named JSON Schema components. */
function contractComponents(
  contract: Contract,
  groups: Record<OperationName, ErrorResponseGroup[]>,
  profile: Profile,
): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  const data = successDataOf(contract, profile);
  const named: [string, z.ZodType][] = [
    ["DateTime", contract.date],
    ["PaymentDetailsData", contract.paymentDetailsData],
    ...OPERATION_NAMES.map((operation): [string, z.ZodType] => [DATA_COMPONENT[operation], data[operation]]),
    ["SuccessResult", SuccessResult],
    ["ErrorResult", ErrorResult],
    ["ErrorEnvelope", ErrorEnvelope],
    ...OPERATION_NAMES.map((operation): [string, z.ZodType] => [
      RESPONSE_COMPONENT[operation],
      successEnvelopeSchema(data[operation]),
    ]),
  ];
  const errorComponents = new Map<string, PinnedAnswer[]>();
  for (const group of Object.values(groups).flat()) errorComponents.set(group.component, group.answers);
  for (const [id, answers] of errorComponents) named.push([id, errorEnvelopeOf(answers, profile)]);
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
  addPattern(schemas.DateTime as Record<string, unknown>, dateConventionPattern(profile.conventions.dates));
  const money = profile.conventions.money;
  for (const operation of OPERATION_NAMES) {
    const fields = (
      schemas[DATA_COMPONENT[operation]] as { properties: Record<string, Record<string, unknown>> }
    ).properties;
    for (const [field, key] of Object.entries(MONEY_DECIMALS_KEYS)) {
      const schema = fields[field];
      if (schema) withDecimals(schema, money?.[key], `conventions.money.${key}`);
    }
  }
  return schemas;
}

/** The request components: each kind's create request for the profile's methods, and the confirmation. */
function requestComponents(profile: Profile): Record<string, unknown> {
  return Object.fromEntries(
    OPERATION_NAMES.map((operation) => {
      const { kind, step } = OPERATIONS[operation];
      return [
        REQUEST_COMPONENT[operation],
        step === "create" ? createRequestSchema(kind, profile) : confirmRequestSchema(profile),
      ];
    }),
  );
}

/** The error responses of one operation, by HTTP status. */
function errorResponses(group: readonly ErrorResponseGroup[], profile: Profile): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const { status, answers, component } of group) {
    const lines = answers.map((a) =>
      a.codeError !== undefined
        ? `\`${a.codeError}\`: ${a.when}.`
        : `${a.name} (any codeError but \`${ENVELOPE_MARKERS.successCodeError}\`): ${a.when}.`,
    );
    responses[status] = {
      description: `${lines.join(" ")} As profile ${profile.name} pins them (\`errors\`; §7 shows no failures).`,
      content: { "application/json": { schema: REF(component) } },
    };
  }
  return responses;
}

/** The callback body as the profile locates its members (`callbacks.*Path`); other members are free. */
function callbackBodySchema(profile: Profile): Record<string, unknown> {
  const { callbacks } = profile;
  const members: [string | undefined, Record<string, unknown>][] = [
    [callbacks.idPath, { type: "string" }],
    [callbacks.statusPath, { enum: [...CALLBACK_STATUSES] }],
    [
      callbacks.amountPath,
      withDecimals(
        { type: "number" },
        profile.conventions.money?.amountDecimals,
        "conventions.money.amountDecimals",
      ),
    ],
    [callbacks.currencyPath, { type: "string" }],
    [callbacks.merchantOrderIdPath, { type: ["string", "null"] }],
    [
      callbacks.dateUpdatedPath,
      addPattern({ type: "string" }, dateConventionPattern(profile.conventions.dates)),
    ],
  ];
  const root: Record<string, unknown> = { type: "object" };
  for (const [path, leaf] of members) {
    if (path === undefined) continue;
    let node = root as { required?: string[]; properties?: Record<string, Record<string, unknown>> };
    const parts = path.split(".");
    for (const [index, part] of parts.entries()) {
      node.required = [...new Set([...(node.required ?? []), part])];
      node.properties ??= {};
      if (index === parts.length - 1) node.properties[part] = leaf;
      else {
        const child = node.properties[part] ?? { type: "object" };
        node.properties[part] = child;
        node = child as typeof node;
      }
    }
  }
  return root;
}

/** Any answer other than a 2xx: the callback is not acknowledged (retried where the profile says so). */
const CALLBACK_NOT_ACKNOWLEDGED =
  "Not an acknowledgement: the callback may be delivered again (retries: see the description above).";

function callbackDescription(profile: Profile): string {
  const { signature, retryPolicy } = profile.callbacks;
  const signed =
    signature.scheme === "none"
      ? "unsigned"
      : `signed: header \`${signature.header}: ${signature.prefix}<${signature.encoding} HMAC-SHA256 of the raw body>\``;
  const retried = retryPolicy
    ? `${retryPolicy.attempts} attempts, ${retryPolicy.delaysMs.join(", ")} ms apart`
    : "retries not documented";
  return (
    `Sent when an order enters one of: ${CALLBACK_STATUSES.join(", ")} (§6), to metadata.webHook of the ` +
    `creating request. The API description shows no method, headers, body, signature or retries (§6 gap); profile ` +
    `${profile.name}: POST JSON, ${signed}; ${retried}.`
  );
}

/**
 * The OpenAPI 3.1 document of one integration: the contract, with the profile's methods, declared
 * request rules, gap policy and pinned errors.
 */
export function buildOpenApiDocument(profile: Profile): Record<string, unknown> {
  const contract = buildContract(profile.gaps);
  const groups = errorResponseGroups(profile);
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
          ...errorResponses(groups[endpoint.operation], profile),
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
                      description: callbackDescription(profile),
                      requestBody: {
                        required: true,
                        content: { "application/json": { schema: REF("CallbackBody") } },
                      },
                      responses: {
                        "200": { description: "Any 2xx acknowledges the callback." },
                        "4XX": { description: CALLBACK_NOT_ACKNOWLEDGED },
                        "5XX": { description: CALLBACK_NOT_ACKNOWLEDGED },
                      },
                    },
                  },
                },
              },
            }
          : {}),
      },
    };
  }

  const document = {
    openapi: "3.1.0",
    info: {
      title: "H2H pay-in API: mobile commerce and quasi-ecom",
      version: "v1",
      description:
        `Generated by h2h-certify from its zod contract (contract/schemas/schemas.ts) for profile ${profile.name}. ` +
        "A request constraint is here only if the API description states it, the profile declares it " +
        "or it necessarily follows (contract/generation/request-rules.ts); the suite's advisory limits are not. " +
        "Where the description leaves a gap the profile does not close, the schemas are lenient.",
    },
    servers: [{ url: "{base_url}", variables: { base_url: { default: "http://127.0.0.1:8080" } } }],
    security: [{ bearerAuth: [] }],
    tags: [
      {
        name: "mobile commerce",
        description: "Orders with the payer's phone data; they answer payment details (§1, §4.1, §4.2).",
      },
      {
        name: "quasi-ecom",
        description: "Orders with the payer's card data in the request (§1, §4.3, §4.4).",
      },
    ],
    paths,
    components: {
      schemas: {
        ...requestComponents(profile),
        ...contractComponents(contract, groups, profile),
        CallbackBody: callbackBodySchema(profile),
      },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "`Authorization: Bearer <API_KEY>`, the merchant's API key (§5).",
        },
      },
    },
  };
  spellForGenericTools(document.components.schemas);
  return document;
}
