/**
 * A machine so slow that a generated order's confirmation goes out after the order's declared
 * lifetime: the clean-room sandbox (5 s lifetime, no sandbox clock) behind a proxy that holds the
 * answer to the first generated order's creation past that lifetime. The sandbox then refuses the confirmation,
 * correctly (the order expired). That order is left out of the confirmation's checks, named with
 * the lifetime and the time measured; the other generated orders are judged as always.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CALLBACK_SECRET,
  MERCHANTS,
  type RunningCleanroomProvider,
  startCleanroomProvider,
} from "../fixtures/providers/cleanroom/index.ts";
import { fileTimeout, startForwarder } from "../fixtures/testing/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";

fileTimeout(180_000);

const PROFILE = fileURLToPath(new URL("../fixtures/profiles/cleanroom.json", import.meta.url));
const profile = JSON.parse(readFileSync(PROFILE, "utf8")) as {
  callbackTriggers: { expired: { unconfirmedForSeconds: number } };
  timeouts: { requestMs: number };
};
const LIFETIME_SECONDS = profile.callbackTriggers.expired.unconfirmedForSeconds;
/** How long the first creation's answer is held: past the lifetime, so its confirmation follows late. */
const HOLD_MS = (LIFETIME_SECONDS + 1) * 1000;
const [alpha, bravo] = MERCHANTS as [(typeof MERCHANTS)[0], (typeof MERCHANTS)[0]];

/** The clean-room profile, its request timeout longer than the hold (a held answer is no timeout). */
function slowProfile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "h2h-late-confirm-")), "cleanroom.json");
  writeFileSync(
    path,
    JSON.stringify({ ...profile, timeouts: { ...profile.timeouts, requestMs: HOLD_MS + 5_000 } }),
  );
  return path;
}

/**
 * A forwarder that holds the answer to the first generated order's creation for HOLD_MS: the run's
 * first creation is its reachability probe, the second the first generated order.
 */
async function startSlowFirstCreation(upstream: string) {
  let creations = 0;
  return startForwarder({
    upstreamOf: () => upstream,
    holdOf: (req) => {
      const creation = req.method === "POST" && /^\/api\/v1\/payin\/[a-z-]+\/h2h$/.test(req.url ?? "");
      if (creation) creations++;
      return { requestMs: 0, answerMs: creation && creations === 2 ? HOLD_MS : 0 };
    },
  });
}

let provider: RunningCleanroomProvider;
let proxy: Awaited<ReturnType<typeof startSlowFirstCreation>>;
let report: RunReport;
let output: string;

beforeAll(async () => {
  provider = await startCleanroomProvider({ port: 0 });
  proxy = await startSlowFirstCreation(provider.url);
  const run = await certifyInProcess(
    {
      H2H_BASE_URL: proxy.url,
      H2H_API_KEY: alpha.apiKey,
      H2H_API_KEY_2: bravo.apiKey,
      H2H_CALLBACK_SECRET: CALLBACK_SECRET,
      H2H_PROFILE: slowProfile(),
      H2H_SEED: "1",
    },
    {
      specFiles: ["generated-orders.spec.ts"],
      only: ["fields.confirmation-result", "envelope.success-markers"],
    },
  );
  report = run.report;
  output = run.output;
}, 170_000);
afterAll(async () => {
  await proxy?.close();
  await provider?.close();
});

describe("a generated order confirmed after its declared lifetime, behind a slow answer to its creation", () => {
  it("fails nothing: the refusal of its confirmation may be the expiry", () => {
    expect(proxy.delays().count, "creations held").toBe(1);
    expect(
      report.checks
        .filter((c) => c.status === "failed")
        .map((c) => `${c.check} ${c.endpoint} ${c.case}: ${c.detail}`),
      output,
    ).toEqual([]);
  });

  it("says which order was not judged, with the lifetime and the time measured, and judges the others", () => {
    const confirmation = report.checks.filter(
      (c) => c.check === "fields.confirmation-result" && /not judged/.test(c.detail ?? ""),
    );
    expect(confirmation.length, output).toBe(1);
    expect(confirmation[0]?.status).toBe("passed");
    expect(confirmation[0]?.detail).toMatch(
      new RegExp(
        `all \\d+ passed; 1 not judged \\([^:]+: the order's declared lifetime \\(${LIFETIME_SECONDS} s\\) had passed when the success code was sent \\(answered (\\d+\\.\\d) s after its creation\\)`,
      ),
    );
  });
});
