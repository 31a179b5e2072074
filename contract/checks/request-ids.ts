/**
 * Request ids over a whole run: result.x-request-id identifies a request (§2.1), so no two
 * answers carry one. Judged over the answers that are envelopes; the others fail envelope.shape.
 */
import { type Check, defineCheck, fail, pass, show } from "./check.ts";
import { answerRootCause } from "./root-cause.ts";

export interface RequestIdSighting {
  requestId: unknown;
  /** Where it was seen, e.g. an exchange id or a request line. */
  where: string;
}

export const envelopeRequestIdUnique: Check<RequestIdSighting[]> = defineCheck<RequestIdSighting[]>(
  "envelope.request-id-unique",
  "envelope",
  "result.x-request-id differs from one response to the next (it identifies a request, §2.1).",
  (sightings) => {
    const seen = new Map<string, string[]>();
    for (const { requestId, where } of sightings) {
      if (typeof requestId !== "string" || requestId === "") continue;
      seen.set(requestId, [...(seen.get(requestId) ?? []), where]);
    }
    const repeated = [...seen].filter(([, places]) => places.length > 1);
    if (sightings.length < 2)
      return fail(`only ${sightings.length} response(s) seen: uniqueness cannot be judged`);
    if (repeated.length === 0) return pass(`${seen.size} distinct ids in ${sightings.length} responses`);
    const [id, places] = repeated[0] as [string, string[]];
    return fail(
      `${repeated.length} id(s) repeated; ${show(id)} appears in ${places.length} responses (${places.slice(0, 3).join(", ")}${places.length > 3 ? ", ..." : ""})`,
    );
  },
  {
    overRun: ({ exchanges }) => {
      const readable = exchanges.filter((e) => answerRootCause(e.response) === undefined);
      const sightings = readable.map((e) => ({
        requestId: (e.response.json as { result?: Record<string, unknown> } | undefined)?.result?.[
          "x-request-id"
        ],
        where: e.id,
      }));
      const outcome = envelopeRequestIdUnique.run(sightings);
      if (readable.length >= 2) return [{ outcome }];
      return [
        {
          outcome: fail(
            `not evaluated, because ${readable.length} of ${exchanges.length} answers were envelopes: uniqueness needs two`,
          ),
          blockedBy: { check: "envelope.shape", reason: "the answers are not envelopes" },
        },
      ];
    },
  },
);
