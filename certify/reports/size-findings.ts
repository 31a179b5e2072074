/**
 * Bounded evidence: `envelope.within-size-limit` over every exchange of the run. Each
 * answer the client had to cut is a failed record of its own, pointing at that exchange (kept cut,
 * with its real size); when none was cut, one passed record says how many were looked at.
 */
import {
  envelopeWithinSizeLimit,
  type Profile,
  type RecordedExchange,
  requirementOf,
} from "../../contract/index.ts";
import type { Masker } from "../../contract/kit/index.ts";
import type { CheckRecord } from "../engine/run-model.ts";

export function sizeLimitChecks(
  exchanges: readonly RecordedExchange[],
  profile: Profile,
  masker: Masker,
): CheckRecord[] {
  const requirement = requirementOf(envelopeWithinSizeLimit, profile);
  const record = (
    status: "passed" | "failed",
    detail: string,
    ids: string[],
    where?: string,
  ): CheckRecord => ({
    endpoint: "(all endpoints)",
    check: envelopeWithinSizeLimit.name,
    ...(where === undefined ? {} : { case: where }),
    rule: envelopeWithinSizeLimit.rule,
    status,
    required: requirement.required,
    detail: masker.text(detail),
    ...(requirement.required ? {} : { reason: requirement.reason }),
    durationMs: 0,
    exchanges: ids,
    source: "runner",
  });
  const failures: CheckRecord[] = [];
  for (const exchange of exchanges) {
    const outcome = envelopeWithinSizeLimit.run(exchange.response);
    if (outcome.ok) continue;
    const where = `${exchange.request.method} ${new URL(exchange.request.url).pathname} (${exchange.id})`;
    failures.push(record("failed", `${where}: ${outcome.detail}`, [exchange.id], where));
  }
  if (failures.length > 0) return failures;
  return [
    record(
      "passed",
      `all ${exchanges.length} answer(s) within the limit of ${profile.limits.maxBodyBytes.toLocaleString("en-US")} bytes`,
      [],
    ),
  ];
}
