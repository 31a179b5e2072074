/**
 * A machine so slow that the right code goes out after the order's declared lifetime: the
 * clean-room sandbox (5 s lifetime, no sandbox clock) behind a proxy that holds the answer to
 * an order's first wrong code past that lifetime, so the suite sends the right code late, as a
 * loaded machine would. The sandbox refuses it, correctly (the order expired): the checks that
 * expect it accepted are not evaluated, with the lifetime and the time measured, never failed;
 * the callbacks of those orders do not fail either (their expired callback may arrive). A refusal
 * sent late stays judged, so the run is limited to the checks of the acceptances and callbacks.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
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
import { fileTimeout } from "../fixtures/testing/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";

fileTimeout(180_000);

const PROFILE = fileURLToPath(new URL("../fixtures/profiles/cleanroom.json", import.meta.url));
const profile = JSON.parse(readFileSync(PROFILE, "utf8")) as {
  confirmation: { successCode: string; wrongCode: string };
  callbackTriggers: { expired: { unconfirmedForSeconds: number } };
  timeouts: { requestMs: number };
};
const LIFETIME_SECONDS = profile.callbackTriggers.expired.unconfirmedForSeconds;
/** How long the answer to a wrong code is held: past the lifetime, so the right code follows late. */
const HOLD_MS = (LIFETIME_SECONDS + 1) * 1000;
const [alpha, bravo] = MERCHANTS as [(typeof MERCHANTS)[0], (typeof MERCHANTS)[0]];

/** The checks of a step expected to be accepted, and of the callbacks that follow it. */
const ONLY = [
  "behaviour.confirmable-after-wrong-code",
  "behaviour.refusal-changes-nothing",
  "callbacks.follow-lifecycle",
];

/** The clean-room profile, its request timeout longer than the hold (a held answer is no timeout). */
function slowProfile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "h2h-late-code-")), "cleanroom.json");
  const timeouts = { ...profile.timeouts, requestMs: HOLD_MS + 5_000 };
  writeFileSync(path, JSON.stringify({ ...profile, timeouts }));
  return path;
}

/** A loopback proxy that holds the answer to each order's first wrong code for HOLD_MS. */
async function startSlowAfterWrongCode(upstream: string) {
  const up = new URL(upstream);
  const heldOrders = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let code: unknown;
      try {
        code = (JSON.parse(body.toString("utf8")) as { code?: unknown }).code;
      } catch {
        code = undefined;
      }
      const orderId = /^\/api\/v1\/orders\/([^/]+)\/[a-z-]+-confirm\/h2h$/.exec(req.url ?? "")?.[1];
      const hold =
        orderId !== undefined && code === profile.confirmation.wrongCode && !heldOrders.has(orderId);
      if (hold) heldOrders.add(orderId);
      const forward = httpRequest(
        { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const answerChunks: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => answerChunks.push(chunk));
          answer.on("end", () =>
            setTimeout(
              () => {
                res.writeHead(answer.statusCode ?? 502, answer.headers);
                res.end(Buffer.concat(answerChunks));
              },
              hold ? HOLD_MS : 0,
            ),
          );
        },
      );
      forward.on("error", () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => heldOrders.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let provider: RunningCleanroomProvider;
let proxy: Awaited<ReturnType<typeof startSlowAfterWrongCode>>;
let report: RunReport;
let output: string;

beforeAll(async () => {
  provider = await startCleanroomProvider({ port: 0 });
  proxy = await startSlowAfterWrongCode(provider.url);
  const run = await certifyInProcess(
    {
      H2H_BASE_URL: proxy.url,
      H2H_API_KEY: alpha.apiKey,
      H2H_API_KEY_2: bravo.apiKey,
      H2H_CALLBACK_SECRET: CALLBACK_SECRET,
      H2H_PROFILE: slowProfile(),
      H2H_SEED: "1",
    },
    // The files that send the right code after a wrong one: one kind's confirmation flow, the lifecycle.
    { specFiles: ["mobile-commerce.spec.ts", "lifecycle.spec.ts"], only: ONLY },
  );
  report = run.report;
  output = run.output;
}, 170_000);
afterAll(async () => {
  await proxy?.close();
  await provider?.close();
});

/** The reason a late refusal is not judged, the time measured captured. */
const LATE = new RegExp(
  `^not evaluated, because the order's declared lifetime \\(${LIFETIME_SECONDS} s\\) had passed when the right code was sent( after the wrong one)? \\(answered (\\d+\\.\\d) s after its creation\\): its refusal may be the expiry$`,
);
const RIGHT_CODE = `after-wrong-code: confirm with code ${profile.confirmation.successCode}`;

describe("the right code sent after the order's declared lifetime, behind a slow answer to the wrong code", () => {
  it("is refused by a correct provider, and nothing fails for it", () => {
    expect(proxy.held(), "wrong codes held").toBeGreaterThan(2);
    expect(
      report.checks.filter((c) => c.status === "failed").map((c) => `${c.check} ${c.case}: ${c.detail}`),
      output,
    ).toEqual([]);
  });

  it("leaves confirmable-after-wrong-code not evaluated, naming the lifetime and the time measured", () => {
    const late = report.checks.filter(
      (c) =>
        c.check === "behaviour.confirmable-after-wrong-code" &&
        (c.endpoint === "confirmMobileCommerceOrder" || c.case === RIGHT_CODE),
    );
    // The confirmation flow's, and the lifecycle's of each kind.
    expect(late.map((c) => c.endpoint).sort()).toEqual([
      "confirmMobileCommerceOrder",
      "lifecycle (mobile commerce)",
      "lifecycle (quasi-ecom)",
    ]);
    for (const record of late) {
      expect(record.status, `${record.endpoint} ${record.case}`).toBe("not evaluated");
      const measured = LATE.exec(record.detail ?? "");
      expect(measured, record.detail).not.toBeNull();
      expect(Number(measured?.[2])).toBeGreaterThanOrEqual(LIFETIME_SECONDS);
      expect(record.blockedBy?.check).toBe("lifecycle.order-lifetime");
    }
  });

  it("judges the callbacks of the order whose right code came late: its expired callback may arrive", () => {
    const callbacks = report.checks.filter(
      (c) => c.check === "callbacks.follow-lifecycle" && c.case === RIGHT_CODE,
    );
    expect(callbacks.length, "one per order kind").toBe(2);
    for (const record of callbacks) expect(record.status, record.detail).toBe("passed");
  });
});
