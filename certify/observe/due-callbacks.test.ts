/**
 * Callbacks a session must have seen, beyond those a confirmation code makes due: an expiry (the
 * declared lifetime run out, or the declared sandbox clock moved past it), and the appeal the
 * profile's lifecycle says follows a failure. A scripted merchant drives the reference provider
 * through the proxy; a provider fault that never sends the callback fails it, the clean provider
 * passes, and a session stopped sooner leaves it not observed.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { type Profile, readProfile } from "../../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../../fixtures/providers/reference/index.ts";
import { scaledMs } from "../../fixtures/testing/load-allowance.ts";
import { judgeSession } from "./judge.ts";
import { type ObserveResult, runObserve } from "./observe.ts";
import { ObserveSession } from "./session.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The profile's callback timeout in these sessions: short, stretched on a loaded machine. */
const CALLBACK_MS = scaledMs(1_500);

interface Merchant {
  /** POSTs through the proxy with the merchant's key; the answer's status and data. */
  post(path: string, body: unknown): Promise<{ status: number; data: Record<string, unknown> | undefined }>;
  create(): Promise<string>;
  hook: string;
}

interface ScriptedSession {
  result: ObserveResult;
  /** The receiver's answers, in order: the status each delivery got. */
  answered: number[];
}

/**
 * One observe session against the reference provider: `script` runs as the merchant, then the
 * session runs `lingerMs` more and stops. `answer` is the receiver's status for each delivery.
 */
async function scripted(options: {
  faults?: string[];
  provider?: { lifetimeSeconds?: number; callbackRetryDelaysMs?: number[] };
  profile?: (profile: Profile) => Profile;
  script: (merchant: Merchant) => Promise<void>;
  lingerMs: number;
  answer?: (delivery: number, body: string) => number;
}): Promise<ScriptedSession> {
  const provider = await startReferenceProvider({
    port: 0,
    processingDelayMs: 50,
    faults: options.faults ?? [],
    ...options.provider,
  });
  const answered: number[] = [];
  const receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const status = options.answer?.(answered.length + 1, Buffer.concat(chunks).toString("utf8")) ?? 200;
    answered.push(status);
    res.writeHead(status, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const reportDir = await mkdtemp(join(tmpdir(), "h2h-observe-due-"));
  dirs.push(reportDir);
  const stop = new AbortController();
  let scriptError: unknown;
  const base = await readProfile(REFERENCE_PROFILE_PATH);
  const shortened: Profile = { ...base, timeouts: { ...base.timeouts, callbackMs: CALLBACK_MS } };
  try {
    const result = await runObserve({
      profile: options.profile ? options.profile(shortened) : shortened,
      settings: {
        callbackSecret: REFERENCE_CALLBACK_SECRET,
        sinkPort: 0,
        sinkPublicUrl: undefined,
        apiKey: undefined,
        secondApiKey: undefined,
      },
      upstream: provider.url,
      tls: undefined,
      port: 0,
      keepWebhook: false,
      reportDir,
      signal: stop.signal,
      print: () => {},
      providerInProcess: true,
      onListening: (url) => {
        const post: Merchant["post"] = async (path, body) => {
          const answer = await request(`${url}${path}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: `Bearer ${REFERENCE_API_KEYS.merchant1}`,
            },
            body: JSON.stringify(body),
          });
          const json = (await answer.body.json().catch(() => undefined)) as
            | { data?: Record<string, unknown> | null }
            | undefined;
          return { status: answer.statusCode, data: json?.data ?? undefined };
        };
        let n = 0;
        const create = async () => {
          n += 1;
          const { data } = await post("/api/v1/payin/mobile-commerce/h2h", {
            methodID: 101,
            amount: 1500,
            merchantOrderID: `due-${Date.now()}-${n}`,
            metadata: { webHook: hook },
          });
          return String(data?.id);
        };
        options
          .script({ post, create, hook })
          .then(() => new Promise((resolve) => setTimeout(resolve, options.lingerMs)))
          .catch((error) => {
            scriptError = error;
          })
          .finally(() => stop.abort("the merchant's script ended"));
      },
    });
    if (scriptError) throw scriptError;
    return { result, answered };
  } finally {
    await new Promise<void>((resolve) => {
      receiver.close(() => resolve());
      receiver.closeAllConnections();
    });
    await provider.stop({ cutInFlight: true });
  }
}

const recordsOf = (result: ObserveResult, check: string) =>
  result.judgement.provider.checks.filter((c) => c.check === check);

const confirmPath = (id: string) => `/api/v1/orders/${id}/mobile-commerce-confirm/h2h`;

describe("observe: callbacks an expiry makes due", () => {
  it("awaits the expired callback once the declared sandbox clock moved the order past its lifetime", async () => {
    let order = "";
    const script = async (m: Merchant) => {
      order = await m.create();
      expect((await m.post("/sandbox/v1/clock/advance", { seconds: 3600, orderId: order })).status).toBe(200);
    };
    const clean = await scripted({ script, lingerMs: CALLBACK_MS + 500 });
    expect(recordsOf(clean.result, "callbacks.arrives").map((c) => [c.case, c.status])).toEqual([
      [`${order} expired`, "passed"],
    ]);
    expect(clean.result.judgement.provider.verdict).toBe("conformant");

    const faulty = await scripted({ faults: ["no-expired-callback"], script, lingerMs: CALLBACK_MS + 500 });
    expect(recordsOf(faulty.result, "callbacks.arrives").map((c) => [c.case, c.status])).toEqual([
      [`${order} expired`, "failed"],
    ]);
    expect(faulty.result.judgement.provider.verdict).toBe("not conformant");
  }, 120_000);

  it("awaits it once the declared lifetime ran out, a refused code leaving the order unconfirmed", async () => {
    const lifetime = (profile: Profile): Profile => ({
      ...profile,
      callbackTriggers: { ...profile.callbackTriggers, expired: { unconfirmedForSeconds: 1 } },
    });
    let order = "";
    const script = async (m: Merchant) => {
      order = await m.create();
      expect((await m.post(confirmPath(order), { code: "0000" })).status).toBe(422);
    };
    const options = {
      profile: lifetime,
      provider: { lifetimeSeconds: 1 },
      script,
      lingerMs: 1_000 + CALLBACK_MS + 500,
    };
    const clean = await scripted(options);
    expect(recordsOf(clean.result, "callbacks.arrives").map((c) => [c.case, c.status])).toEqual([
      [`${order} expired`, "passed"],
    ]);
    const faulty = await scripted({ ...options, faults: ["no-expired-callback"] });
    expect(recordsOf(faulty.result, "callbacks.arrives").map((c) => [c.case, c.status])).toEqual([
      [`${order} expired`, "failed"],
    ]);
    // Stopped before the lifetime and the timeout ran out: not observed, never failed.
    const early = await scripted({ ...options, faults: ["no-expired-callback"], lingerMs: 0 });
    expect(recordsOf(early.result, "callbacks.arrives")).toEqual([]);
    expect(early.result.judgement.provider.notObserved.map((r) => r.check)).toContain("callbacks.arrives");
    expect(early.result.judgement.provider.verdict).toBe("conformant");
  }, 180_000);

  it("awaits no expiry of a confirmed order, nor one the profile gives no lifetime", async () => {
    const script = async (m: Merchant) => {
      const order = await m.create();
      expect((await m.post(confirmPath(order), { code: "1111" })).status).toBe(200);
      await m.create();
    };
    const manual = (profile: Profile): Profile => ({
      ...profile,
      callbackTriggers: { ...profile.callbackTriggers, expired: { manual: "ask support", waitSeconds: 1 } },
    });
    const { result } = await scripted({
      profile: manual,
      provider: { lifetimeSeconds: 1 },
      script,
      lingerMs: 1_000 + CALLBACK_MS + 500,
    });
    // The confirmed order's succeeded callback only: the unconfirmed one expired, but no lifetime is declared.
    expect(recordsOf(result, "callbacks.arrives").map((c) => c.case?.split(" ")[1])).toEqual(["succeeded"]);
  }, 120_000);
});

describe("observe: the appeal the profile's lifecycle says follows a failure", () => {
  // The appeal has no code of its own here: only lifecycle.outcomes says 3333 ends in it.
  const appealByOutcome = (profile: Profile): Profile => ({
    ...profile,
    callbackTriggers: {
      ...profile.callbackTriggers,
      succeeded_by_appeal: { manual: "the payer appeals", waitSeconds: 1 },
    },
  });
  const script = async (m: Merchant) => {
    const order = await m.create();
    expect((await m.post(confirmPath(order), { code: "3333" })).status).toBe(200);
  };

  it("awaits succeeded_by_appeal after the failure, and fails a provider that never sends it", async () => {
    const clean = await scripted({ profile: appealByOutcome, script, lingerMs: CALLBACK_MS + 500 });
    expect(
      recordsOf(clean.result, "callbacks.arrives").map((c) => [c.case?.split(" ")[1], c.status]),
    ).toEqual([["succeeded_by_appeal", "passed"]]);
    expect(clean.result.judgement.provider.verdict).toBe("conformant");
    const faulty = await scripted({
      faults: ["no-appeal-callback"],
      profile: appealByOutcome,
      script,
      lingerMs: CALLBACK_MS + 500,
    });
    expect(
      recordsOf(faulty.result, "callbacks.arrives").map((c) => [c.case?.split(" ")[1], c.status]),
    ).toEqual([["succeeded_by_appeal", "failed"]]);
    expect(faulty.result.judgement.provider.verdict).toBe("not conformant");
  }, 120_000);

  it("awaits nothing the profile does not declare: without the outcome, a 3333 is no appeal's trigger", async () => {
    const undeclared = (profile: Profile): Profile => {
      const { outcomes: _outcomes, ...lifecycle } = appealByOutcome(profile).lifecycle;
      return { ...appealByOutcome(profile), lifecycle };
    };
    const { result } = await scripted({
      faults: ["no-appeal-callback"],
      profile: undeclared,
      script,
      lingerMs: CALLBACK_MS + 500,
    });
    expect(recordsOf(result, "callbacks.arrives")).toEqual([]);
    expect(result.judgement.provider.verdict).toBe("conformant");
  }, 120_000);
});

describe("observe: retry intervals, as the profile's retryPolicy declares", () => {
  // The reference profile: 5 attempts, 0.1, 0.2, 0.3, 0.4 s apart, ± 0.25 s.
  const confirmed = async (m: Merchant) => {
    const order = await m.create();
    expect((await m.post(confirmPath(order), { code: "1111" })).status).toBe(200);
  };
  // Past the whole schedule, then the time a due retry may take to arrive (callbackMs).
  const retried = { script: confirmed, lingerMs: scaledMs(2_000) + CALLBACK_MS, answer: () => 503 };
  const retryRecords = (result: ObserveResult) =>
    recordsOf(result, "callbacks.retry-policy").map((c) => `${c.status}: ${c.detail}`);

  it("passes the reference provider's retries of a refused callback, and a retry the receiver took", async () => {
    const refusedAll = await scripted(retried);
    expect(refusedAll.answered).toEqual([503, 503, 503, 503, 503]);
    expect(retryRecords(refusedAll.result)).toEqual([expect.stringMatching(/^passed: 5 attempt\(s\)/)]);
    const takenSecond = await scripted({ ...retried, answer: (delivery) => (delivery === 1 ? 503 : 200) });
    expect(takenSecond.answered).toEqual([503, 200]);
    expect(retryRecords(takenSecond.result)).toEqual([expect.stringMatching(/^passed: 2 attempt\(s\)/)]);
    // Taken at once: no retry to judge.
    const taken = await scripted({ ...retried, answer: () => 200 });
    expect(recordsOf(taken.result, "callbacks.retry-policy")).toEqual([]);
    expect(taken.result.judgement.provider.notObserved.map((r) => r.check)).toContain(
      "callbacks.retry-policy",
    );
  }, 120_000);

  it("fails a provider that stops retrying early, retries too soon, or changes the body on a retry", async () => {
    const cutShort = await scripted({ ...retried, faults: ["callback-retries-cut-short"] });
    expect(retryRecords(cutShort.result)).toEqual([
      expect.stringMatching(/^failed: 3 attempt\(s\).*3 attempts, the policy says 5/),
    ]);
    // The profile says a second between retries; this provider retries after 10 ms.
    const secondApart = (profile: Profile): Profile => ({
      ...profile,
      callbacks: {
        ...profile.callbacks,
        retryPolicy: { attempts: 5, delaysMs: [1_000, 1_000, 1_000, 1_000], toleranceMs: 250 },
      },
    });
    const tooSoon = await scripted({
      ...retried,
      profile: secondApart,
      provider: { callbackRetryDelaysMs: [10, 10, 10, 10] },
    });
    expect(retryRecords(tooSoon.result)).toEqual([
      expect.stringMatching(
        // Which retries a loaded machine spaces out enough to pass varies; one at least is too soon.
        /^failed: 5 attempt\(s\).*retry \d after 0\.\d\d s, the policy says 1\.00 s ± 0\.25 s/,
      ),
    ]);
    const reserialised = await scripted({ ...retried, faults: ["retry-reserialised"] });
    expect(retryRecords(reserialised.result)).toEqual([
      expect.stringMatching(/^failed: .*retry 1 carries other bytes than the first attempt/),
    ]);
    expect(reserialised.result.judgement.provider.verdict).toBe("not conformant");
  }, 180_000);

  it("leaves retries not observed, never failed, when the profile declares no policy", async () => {
    const undeclared = (profile: Profile): Profile => {
      const { retryPolicy: _policy, ...callbacks } = profile.callbacks;
      return { ...profile, callbacks };
    };
    const { result } = await scripted({
      ...retried,
      profile: undeclared,
      faults: ["callback-retries-cut-short"],
    });
    expect(recordsOf(result, "callbacks.retry-policy")).toEqual([]);
    expect(result.judgement.provider.notObserved.map((r) => r.check)).toContain("callbacks.retry-policy");
  }, 120_000);
});

describe("observe: which deliveries a retry is judged on", () => {
  const delivery = (id: string, atMs: number, status: number | undefined, durationMs = 5) => ({
    id,
    receivedAtMs: atMs,
    orderId: "o-1",
    status: "succeeded",
    json: { id: "o-1", status: "succeeded" },
    headers: {},
    body: { text: '{"id":"o-1","status":"succeeded"}', bytes: 33 },
    signature: "not-checked" as const,
    key: "w1",
    ...(status === undefined
      ? { error: "ECONNRESET" }
      : { answer: { status, body: { text: "", bytes: 0 }, durationMs } }),
  });
  const judged = async (deliveries: ReturnType<typeof delivery>[]) => {
    const session = new ObserveSession(65_536);
    for (const d of deliveries) session.beginCallback(d);
    const profile = await readProfile(REFERENCE_PROFILE_PATH);
    return judgeSession(session, { profile, signed: false, callbacksObserved: true, endedAtMs: 20_000 })
      .provider.checks.filter((c) => c.check === "callbacks.retry-policy")
      .map((c) => `${c.status}: ${c.detail}`);
  };

  it("takes a 2xx later than the timeout as settling, unless the provider delivered again", async () => {
    // Answered 200 after 6 s (the timeout is 5 s), and not delivered again: the provider took it.
    expect(await judged([delivery("c1", 1_000, 200, 6_000)])).toEqual([]);
    // Delivered again 0.1 s after that slow answer: a retry, its delay counted from the answer.
    expect(await judged([delivery("c1", 1_000, 200, 6_000), delivery("c2", 7_100, 200)])).toEqual([
      expect.stringMatching(/^passed: 2 attempt\(s\)/),
    ]);
    // No answer at all is a refusal: the retries that never came are missing.
    expect(await judged([delivery("c1", 1_000, undefined)])).toEqual([
      expect.stringMatching(/^failed: 1 attempt\(s\): 1 attempts, the policy says 5/),
    ]);
  });
});
