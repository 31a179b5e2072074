/**
 * The answer's size: an answer the client had to cut is a finding of its own. The engine judges
 * every answer of the run, the probes' too: one failed record per cut answer, pointing at it
 * (kept cut, with its real size); when none was cut, one passed record says how many were read.
 */
import type { ExchangeResponse } from "../client/index.ts";
import { type Check, defineCheck, exchangeWhere, fail, pass, type RunJudgement } from "./check.ts";

const bytes = (n: number) => `${n.toLocaleString("en-US")} bytes`;

export const envelopeWithinSizeLimit: Check<ExchangeResponse> = defineCheck<ExchangeResponse>(
  "envelope.within-size-limit",
  "envelope",
  "Every answer fits the suite's response size limit (64 KiB unless configured): a larger one is cut, and only its first part is kept as evidence.",
  (response) => {
    if (!response.truncated) {
      const size = response.size?.bytes ?? Buffer.byteLength(response.body);
      return pass(`${bytes(size)}, within the limit`);
    }
    const limit = response.limitBytes ?? Buffer.byteLength(response.body);
    const size = response.size;
    const real =
      size === undefined
        ? "over the limit"
        : size.from === "content-length"
          ? `${bytes(size.bytes)} (Content-Length)`
          : size.from === "counted"
            ? `${bytes(size.bytes)} (counted)`
            : `at least ${bytes(size.bytes)} (reading stopped there)`;
    const compressed = response.contentEncoding?.decoded
      ? `; ${response.contentEncoding.codings.join(", ")}-compressed: ${real} on the wire, over ${bytes(limit)} decoded`
      : "";
    return fail(
      compressed
        ? `answer decodes to more than the limit of ${bytes(limit)}${compressed}; only the first ${bytes(limit)} are kept`
        : `answer is ${real}, over the limit of ${bytes(limit)}; only the first ${bytes(limit)} are kept`,
    );
  },
  {
    overRun: ({ exchanges, profile }) => {
      const failures: RunJudgement[] = [];
      for (const exchange of exchanges) {
        const outcome = envelopeWithinSizeLimit.run(exchange.response);
        if (outcome.ok) continue;
        const where = exchangeWhere(exchange);
        failures.push({
          outcome: fail(`${where}: ${outcome.detail}`),
          case: where,
          exchanges: [exchange.id],
        });
      }
      if (failures.length > 0) return failures;
      return [
        {
          outcome: pass(
            `all ${exchanges.length} answer(s) within the limit of ${bytes(profile.limits.maxBodyBytes)}`,
          ),
        },
      ];
    },
    source: {
      kind: "advisory",
      reason:
        "the API description sets no size; an answer over the suite's limit (limits.maxBodyBytes) cannot be kept whole as evidence",
      declaredBy: ["limits.maxBodyBytes"],
    },
  },
);
