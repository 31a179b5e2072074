/**
 * Observe mode end to end: the example merchant through the proxy against the reference provider.
 * A clean session gives two conformant verdicts with coverage; each faulty merchant variant fails
 * the merchant's verdict naming its rule; a provider fault fails the provider's.
 */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readProfile } from "../../contract/index.ts";
import {
  type ExampleMerchantResult,
  type MerchantPlan,
  type MerchantVariant,
  runExampleMerchant,
} from "../../fixtures/merchants/example/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import {
  MERCHANTS as CLEANROOM_MERCHANTS,
  CALLBACK_SECRET as CLEANROOM_SECRET,
  startCleanroomProvider,
} from "../../fixtures/providers/cleanroom/index.ts";
import {
  MERCHANTS as EVERYDAY_MERCHANTS,
  CALLBACK_SECRET as EVERYDAY_SECRET,
  startEverydayProvider,
} from "../../fixtures/providers/everyday/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../../fixtures/providers/reference/index.ts";
import { mountTmpfs } from "../../fixtures/testing/index.ts";
import { type ObserveResult, runObserve } from "./observe.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface Target {
  url: string;
  stop(): Promise<unknown>;
  profilePath: string;
  apiKey: string;
  secret: string;
  plan?: MerchantPlan;
}

/**
 * The reference provider with quick processing, so that a session takes a second or two; its
 * retries are its profile's (0.1 to 0.4 s), which observe judges.
 */
async function reference(faults: string[] = []): Promise<Target> {
  const provider = await startReferenceProvider({ port: 0, processingDelayMs: 50, faults });
  return {
    url: provider.url,
    stop: () => provider.stop({ cutInFlight: true }),
    profilePath: REFERENCE_PROFILE_PATH,
    apiKey: REFERENCE_API_KEYS.merchant1,
    secret: REFERENCE_CALLBACK_SECRET,
  };
}

async function observed(
  variant: MerchantVariant,
  faults: string[] = [],
  keepWebhook = false,
  target?: Target,
  /** The session's temporary folder goes here (TMPDIR), the reports elsewhere. */
  tempDir?: string,
): Promise<{ result: ObserveResult; merchant: ExampleMerchantResult; report: string }> {
  const provider = target ?? (await reference(faults));
  const reportDir = await mkdtemp(join(tmpdir(), "h2h-observe-test-"));
  dirs.push(reportDir);
  const stop = new AbortController();
  let merchant: ExampleMerchantResult | undefined;
  let merchantError: unknown;
  const savedTmp = process.env.TMPDIR;
  if (tempDir !== undefined) process.env.TMPDIR = tempDir;
  try {
    const result = await runObserve({
      profile: await readProfile(provider.profilePath),
      settings: {
        callbackSecret: provider.secret,
        sinkPort: 0,
        sinkPublicUrl: undefined,
        apiKey: undefined,
        secondApiKey: undefined,
      },
      upstream: provider.url,
      tls: undefined,
      port: 0,
      keepWebhook,
      reportDir,
      signal: stop.signal,
      print: () => {},
      providerInProcess: true,
      onListening: (url) => {
        runExampleMerchant({
          baseUrl: url,
          apiKey: provider.apiKey,
          callbackSecret: provider.secret,
          variant,
          // Past the profile's callback timeout (5 s): a callback that never came is then judged.
          callbackWaitMs: 7_000,
          ...(provider.plan ? { plan: provider.plan } : {}),
        })
          .then((done) => {
            merchant = done;
          })
          .catch((error) => {
            merchantError = error;
          })
          .finally(() => stop.abort("the merchant's session ended"));
      },
    });
    if (merchantError) throw merchantError;
    const report = await readFile(result.paths.json, "utf8");
    return { result, merchant: merchant as ExampleMerchantResult, report };
  } finally {
    if (tempDir !== undefined)
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    await provider.stop();
  }
}

const failedChecks = (result: ObserveResult, side: "provider" | "merchant") => [
  ...new Set(
    result.judgement[side].checks.filter((c) => c.status === "failed" && c.required).map((c) => c.check),
  ),
];

describe("observe mode", () => {
  it("judges a clean session conformant on both sides, with coverage, callbacks passed through", async () => {
    const { result, merchant, report } = await observed("clean");
    expect(failedChecks(result, "provider")).toEqual([]);
    expect(
      result.judgement.merchant.checks
        .filter((c) => c.status === "failed")
        .map((c) => `${c.check}: ${c.detail}`),
    ).toEqual([]);
    expect(result.judgement.provider.verdict).toBe("conformant");
    expect(result.judgement.merchant.verdict).toBe("conformant");
    expect(result.exitCode).toBe(0);
    // The receiver verified every signature (no 401): the bytes and headers came through as sent.
    expect(merchant.answers[401]).toBeUndefined();
    // Its one 503 reached the provider, which delivered the callback again: a duplicate, taken.
    expect(merchant.answers[503]).toBe(1);
    expect(merchant.callbacks).toHaveLength(4);
    // That refusal and its retry are judged against the profile's retryPolicy.
    expect(
      result.judgement.provider.checks
        .filter((c) => c.check === "callbacks.retry-policy")
        .map((c) => c.status),
    ).toEqual(["passed"]);
    const { coverage } = result.judgement;
    expect(coverage.endpoints.notSeen).toEqual([]);
    expect(coverage.callbackKinds.seen).toEqual(["expired", "failed_by_terminal", "succeeded"]);
    expect(Object.keys(coverage.refusals)).toEqual(["HTTP 422 invalid_code"]);
    expect(result.judgement.lines.provider).toMatch(
      /^no violation in \d+ exchanges and \d+ callbacks; coverage endpoints 4\/4/,
    );
    // Rules nothing exercised are listed, never passed.
    expect(result.judgement.provider.notObserved.map((r) => r.check)).toContain(
      "behaviour.rejects-duplicate-merchant-order-id",
    );
    expect(result.judgement.merchant.checks.some((c) => c.check === "receiver.acknowledges-duplicates")).toBe(
      true,
    );
    // No key, secret or sink token in the report.
    expect(report).not.toContain(REFERENCE_API_KEYS.merchant1);
    expect(report).not.toContain(REFERENCE_CALLBACK_SECRET);
    expect(report).not.toMatch(/\/callbacks\/[0-9a-f]{64}/);
    expect(JSON.parse(report).provider.verdict).toBe("CONFORMANT");
    expect(result.paths.junit).toBeDefined();
  }, 60_000);

  it.each([
    ["blind-resend", "merchant.no-blind-resend"],
    ["text-plain", "merchant.request-headers"],
    ["duplicate-500", "receiver.acknowledges-duplicates"],
  ] as const)(
    "fails the merchant's verdict for the %s variant, naming %s",
    async (variant, rule) => {
      const { result } = await observed(variant);
      expect(result.judgement.merchant.verdict).toBe("not conformant");
      expect(failedChecks(result, "merchant")).toContain(rule);
      expect(result.judgement.lines.merchant).toContain(rule);
      expect(result.exitCode).toBe(1);
    },
    60_000,
  );

  it("fails the provider's verdict when a due callback never says its status", async () => {
    const { result } = await observed("clean", ["callback-wrong-status-word"]);
    expect(result.judgement.provider.verdict).toBe("not conformant");
    expect(failedChecks(result, "provider")).toEqual(
      expect.arrayContaining(["callbacks.arrives", "callbacks.names-status"]),
    );
  }, 60_000);

  it("refuses a signing profile's session without the callback secret", async () => {
    const options = {
      profile: await readProfile(
        fileURLToPath(new URL("../../fixtures/profiles/everyday.json", import.meta.url)),
      ),
      settings: {
        callbackSecret: undefined,
        sinkPort: 0,
        sinkPublicUrl: undefined,
        apiKey: undefined,
        secondApiKey: undefined,
      },
      upstream: "http://127.0.0.1:9",
      tls: undefined,
      port: 0,
      keepWebhook: false,
      reportDir: tmpdir(),
      print: () => {},
    };
    await expect(runObserve(options)).rejects.toThrow(
      /H2H_CALLBACK_SECRET is not set: the profile "everyday"/,
    );
  });

  it("with --keep-webhook leaves webhooks alone and says callbacks went unobserved", async () => {
    const { result, merchant } = await observed("clean", [], true);
    // The receiver still took every callback, straight from the provider.
    expect(merchant.callbacks).toHaveLength(4);
    expect(result.judgement.callbacks).toBe(0);
    expect(result.judgement.callbacksObserved).toBe(false);
    expect(result.judgement.lines.provider).toContain("callbacks unobserved (--keep-webhook)");
    expect(result.judgement.provider.notObserved.map((r) => r.check)).toContain("callbacks.signature-valid");
    expect(result.judgement.provider.verdict).toBe("conformant");
  }, 60_000);

  it("fails the provider's verdict for a provider fault, naming its check", async () => {
    const { result } = await observed("clean", ["usdt-amount-multiplied"]);
    expect(result.judgement.provider.verdict).toBe("not conformant");
    expect(failedChecks(result, "provider")).toContain("semantics.usdt-amount");
    expect(result.judgement.merchant.verdict).toBe("conformant");
  }, 60_000);

  it.each([
    [
      "clean-room",
      async (): Promise<Target> => {
        const provider = await startCleanroomProvider({ port: 0 });
        return {
          url: provider.url,
          stop: () => provider.close(),
          profilePath: fileURLToPath(new URL("../../fixtures/profiles/cleanroom.json", import.meta.url)),
          apiKey: (CLEANROOM_MERCHANTS[0] as { apiKey: string }).apiKey,
          secret: CLEANROOM_SECRET,
          plan: {
            orders: {
              mobile: { methodID: 3101, amount: 250_000 },
              mobileOther: {
                methodID: 3102,
                amount: 5_000,
                extra: { clientMetadata: { email: "payer@example.test", operator: "O!" } },
              },
              quasi: { methodID: 3201, amount: 85.5, extra: { clientID: "client-42" } },
              quasiOther: { methodID: 3202, amount: 90_000 },
            },
            codes: { success: "246810", failure: "135790", wrong: "999999" },
            signature: { header: "X-Callback-Signature", prefix: "", encoding: "base64" },
            expiry: { waitSeconds: 5 },
          },
        };
      },
    ],
    [
      "everyday",
      async (): Promise<Target> => {
        const provider = await startEverydayProvider({ port: 0 });
        return {
          url: provider.url,
          stop: () => provider.close(),
          profilePath: fileURLToPath(new URL("../../fixtures/profiles/everyday.json", import.meta.url)),
          apiKey: EVERYDAY_MERCHANTS.north.apiKey,
          secret: EVERYDAY_SECRET,
          plan: {
            orders: {
              mobile: { methodID: 501, amount: 1500 },
              mobileOther: {
                methodID: 502,
                amount: 500,
                extra: { clientMetadata: { phone: "+919800000000", name: "Asha Rao" } },
              },
              quasi: { methodID: 601, amount: 150 },
              quasiOther: { methodID: 602, amount: 300, extra: { clientID: "client-42" } },
            },
            codes: { success: "10101", failure: "20202", wrong: "99999" },
            signature: { header: "X-Everyday-Signature", prefix: "v1=", encoding: "hex" },
            expiry: { waitSeconds: 6 },
          },
        };
      },
    ],
  ] as const)(
    "judges the example merchant against the %s provider conformant on both sides",
    async (_name, start) => {
      const { result, merchant } = await observed("clean", [], false, await start());
      expect(
        [...result.judgement.provider.checks, ...result.judgement.merchant.checks]
          .filter((c) => c.status === "failed" && c.required)
          .map((c) => `${c.check}: ${c.detail}`),
      ).toEqual([]);
      expect(merchant.answers[401]).toBeUndefined();
      expect(result.judgement.coverage.callbackKinds.seen).toEqual([
        "expired",
        "failed_by_terminal",
        "succeeded",
      ]);
      expect(result.exitCode).toBe(0);
    },
    90_000,
  );
});

const tmpfs = mountTmpfs("4k", "h2h-observe-full-");
const skip = "skip" in tmpfs ? tmpfs.skip : undefined;

describe.skipIf(skip !== undefined)(
  `observe mode with its temporary folder on a full disk${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    it("judges neither side, says why, exits 2, and leaves no folder behind", async () => {
      const dir = "dir" in tmpfs ? tmpfs.dir : "";
      try {
        const { result, report } = await observed("clean", [], true, undefined, dir);
        expect(result.judgement.provider.verdict).toBe("not judged");
        expect(result.judgement.merchant.verdict).toBe("not judged");
        expect(result.judgement.lines.provider).toMatch(
          /^not judged: the session's evidence could not be written to .*\(ENOSPC: .*free space in TMPDIR/,
        );
        expect(result.exitCode).toBe(2);
        expect(JSON.parse(report).provider.verdict).toBe("NOT JUDGED");
        expect(readdirSync(dir)).toEqual([]);
      } finally {
        try {
          execFileSync("umount", [dir]);
        } catch {
          // Left mounted: the folder is in TMPDIR and small.
        }
        await rm(dir, { recursive: true, force: true });
      }
    }, 60_000);
  },
);
