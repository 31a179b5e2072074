/**
 * How a generated order's failure is reproduced: a creation or confirmation failure is shrunk to
 * the smallest request that still fails the check, by resending it; a callback failure is told
 * step by step, with the curl of its creation.
 */
import { createRequestSchema, dataOf, type Exchange, shrinkRequest } from "../../contract/index.ts";
import { callbackId } from "../reports/callback-evidence.ts";
import type { GeneratedRun, Judged, Probe } from "./generated-orders.driver.ts";
import {
  curlOf,
  type JudgedCase,
  neutralToken,
  reproductionOf,
  sendRaw,
  uniquePartOf,
  withFreshMerchantOrderId,
} from "./support/probes.ts";

/** Most resends one shrink may make, per depth. */
const SHRINK_ATTEMPTS = { quick: 25, thorough: 120 } as const;

/** Shrinks a failing order to the smallest request that still fails the check, by resending it. */
async function shrunk(
  run: GeneratedRun,
  p: Probe,
  entry: Judged<unknown>,
): Promise<ReturnType<typeof reproductionOf>> {
  const { target } = run;
  const { profile } = target;
  const { depth, merchantOrderIdPrefix } = target.probes;
  const check = entry.check;
  const unique = uniquePartOf(p.order, merchantOrderIdPrefix);
  let lastFailing: Exchange = p.created;
  const stillFails = async (candidate: Record<string, unknown>) => {
    const body = withFreshMerchantOrderId(candidate, unique, merchantOrderIdPrefix, "s", ++run.resends);
    const json = JSON.stringify(body);
    const client = target.client();
    const created = await sendRaw(client, p.order.operation, json);
    const id = dataOf(created.response.json)?.id;
    // A candidate the target refuses fails for another reason: it does not stand for this failure.
    if (entry.check.group !== "envelope" && created.response.status !== 200) return false;
    const confirmed =
      entry.stage === "confirm" && typeof id === "string"
        ? await client.confirmOrder(p.order.kind, id, profile.confirmation.successCode)
        : undefined;
    const fails = !check.run(entry.input({ ...p, body, created, confirmed, callbacks: [] })).ok;
    if (fails) lastFailing = created;
    return fails;
  };
  const result = await shrinkRequest(p.body, stillFails, {
    schema: createRequestSchema(p.order.kind),
    method: p.order.method,
    maxLengths: profile.maxLengths,
    requestRules: profile.requestRules,
    maxAttempts: SHRINK_ATTEMPTS[depth],
  });
  return reproductionOf(target, check.name, {
    request: lastFailing.request.body,
    shrunk: [`generated order ${p.order.name}`, ...result.steps, `${result.attempts} resend(s)`],
    curl: curlOf(target, lastFailing),
    ...(entry.stage === "confirm"
      ? {
          steps: [
            `create the order (curl below), then confirm it with code ${profile.confirmation.successCode}`,
          ],
        }
      : {}),
  });
}

/** One probe as the check's case: its input, its evidence, and how to reproduce its failure. */
export function caseOf(run: GeneratedRun, p: Probe, entry: Judged<unknown>): JudgedCase<unknown> {
  const { target } = run;
  const { profile } = target;
  const evidence =
    entry.stage === "create"
      ? [p.created]
      : entry.stage === "confirm"
        ? [p.created, p.confirmed]
        : [p.created, p.confirmed];
  return {
    label: p.order.name,
    input: entry.input(p),
    evidence,
    ...(entry.stage === "callback"
      ? { subject: null, callbacks: p.callbacks.map((c) => callbackId(c.seq)) }
      : {}),
    reproduce:
      entry.stage === "callback"
        ? async () =>
            reproductionOf(target, entry.check.name, {
              request: p.created.request.body,
              steps: [
                `create generated order ${p.order.name} with metadata.webHook ${p.order.webHook}`,
                `confirm it with ${profile.confirmation.successCode}`,
                `callbacks received: ${p.callbacks.map((c) => `${c.status ?? "?"} at ${neutralToken(c.path)}`).join(", ") || "none"}`,
              ],
              curl: curlOf(target, p.created),
            })
        : () => shrunk(run, p, entry),
  };
}
