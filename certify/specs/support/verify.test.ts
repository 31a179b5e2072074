import { describe, expect, it } from "vitest";
import { type Exchange, envelopeShape, readProfile } from "../../../contract/index.ts";
import { createMasker } from "../../../contract/kit/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../../fixtures/profiles/index.ts";
import type { CheckMeta } from "../../engine/run-context.ts";
import { verify } from "./verify.ts";

const answer = (transportFault?: Exchange["transportFault"]): Exchange => ({
  id: "lifecycle-7",
  startedAt: "2026-01-01T00:00:00.000Z",
  durationMs: 3,
  request: { method: "POST", url: "http://127.0.0.1:1/x", headers: {}, body: "{}" },
  response: {
    status: 200,
    headers: { "content-type": "application/json" },
    body: "{}",
    json: {
      data: { amount: 0 },
      result: { status: "success", codeError: "none", message: "ok", "x-request-id": "r" },
    },
  },
  ...(transportFault ? { transportFault } : {}),
});

describe("verify: an answer that may be another request's is judged by no check", () => {
  it("leaves the check not evaluated, the desync its cause", async () => {
    const target = {
      profile: await readProfile(REFERENCE_PROFILE_PATH),
      masker: createMasker({ secrets: [] }),
    };
    const context = { task: { meta: {} as { h2h?: CheckMeta } } };
    const desynced = answer({
      kind: "desync",
      detail: "HTTP desync: this answer may belong to another request",
    });
    verify(context, target, envelopeShape, desynced.response, [desynced]);
    expect(context.task.meta.h2h).toMatchObject({
      outcome: "not evaluated",
      detail:
        "not evaluated, because transport fault: HTTP desync: this answer may belong to another request",
      blockedBy: { check: "target.transport-fault", exchange: "lifecycle-7" },
    });
  });

  it("judges the same answer when its connection carried nothing stray", async () => {
    const target = {
      profile: await readProfile(REFERENCE_PROFILE_PATH),
      masker: createMasker({ secrets: [] }),
    };
    const context = { task: { meta: {} as { h2h?: CheckMeta } } };
    verify(context, target, envelopeShape, answer().response, [answer()]);
    expect(context.task.meta.h2h?.outcome).toBe("passed");
  });
});
