/**
 * `envelope.strict-json` over every answer of the run that parsed as JSON: the bytes as received
 * (a byte order mark, bytes not UTF-8, a member name twice, a lone surrogate). One record per
 * endpoint whose answers break it, pointing at them (the first one's findings in full); when none
 * does, one passed record says how many answers were read.
 */
import {
  effectiveSource,
  envelopeStrictJson,
  matchEndpoint,
  type Profile,
  type RecordedExchange,
  requirementOf,
} from "../../contract/index.ts";
import type { Masker } from "../../contract/kit/index.ts";
import type { CheckRecord } from "../engine/run-model.ts";

/** Exchanges a record points at: enough to open a few, not a list of every answer of a flood. */
const MAX_IDS = 20;

export function strictJsonChecks(
  exchanges: readonly RecordedExchange[],
  profile: Profile,
  masker: Masker,
): CheckRecord[] {
  const requirement = requirementOf(envelopeStrictJson, profile);
  const base = {
    check: envelopeStrictJson.name,
    rule: envelopeStrictJson.rule,
    required: requirement.required,
    ...(requirement.required ? {} : { reason: requirement.reason }),
    durationMs: 0,
    source: "runner",
    ruleSource: effectiveSource(envelopeStrictJson.source, profile),
  };
  // Only JSON answers: a body that is not JSON is envelope.shape's finding (one cause, one failure).
  const judged = exchanges.filter((e) => e.response.json !== undefined || e.response.jsonText !== undefined);
  const byEndpoint = new Map<string, RecordedExchange[]>();
  const failing = new Map<string, RecordedExchange[]>();
  for (const exchange of judged) {
    const path = new URL(exchange.request.url).pathname;
    // A probe sent to an endpoint's path without naming it counts under that endpoint.
    const endpoint = exchange.operation ?? matchEndpoint(path)?.operation ?? path;
    byEndpoint.set(endpoint, [...(byEndpoint.get(endpoint) ?? []), exchange]);
    if (!envelopeStrictJson.run(exchange.response).ok)
      failing.set(endpoint, [...(failing.get(endpoint) ?? []), exchange]);
  }
  if (failing.size === 0)
    return [
      {
        ...base,
        endpoint: "(all endpoints)",
        status: "passed",
        detail: `all ${judged.length} JSON answer(s): UTF-8, no byte order mark, every member name once, no lone surrogate`,
        exchanges: [],
      },
    ];
  return [...failing].map(([endpoint, bad]) => {
    const first = bad[0] as RecordedExchange;
    const outcome = envelopeStrictJson.run(first.response);
    const where = `${first.request.method} ${new URL(first.request.url).pathname} (${first.id})`;
    const of = byEndpoint.get(endpoint)?.length ?? bad.length;
    return {
      ...base,
      endpoint,
      status: "failed" as const,
      detail: masker.text(`${bad.length} of ${of} answer(s); first ${where}: ${outcome.detail}`),
      ...(outcome.findings
        ? {
            findings: outcome.findings.map((f) => ({
              ...f,
              path: masker.text(f.path),
              expected: masker.text(f.expected),
              actual: masker.text(f.actual),
            })),
          }
        : {}),
      exchanges: bad.slice(0, MAX_IDS).map((e) => e.id),
      subject: first.id,
    };
  });
}
