/** What every run sets up from its settings: the passphrase masked, the rate-limit waits bounded. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseProfile } from "../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import { rateLimitRetryOf, runMasker } from "./run-setup.ts";

describe("run setup", () => {
  it("masks the client key's passphrase like a key", () => {
    const passphrase = "Pass-phrase-of-the-client-key-42";
    const masker = runMasker({ tlsPassphrase: passphrase });
    const masked = masker.text(
      `error from a target that echoed ${passphrase} and ${JSON.stringify({ p: passphrase })}`,
    );
    expect(masked).not.toContain(passphrase);
    expect(masked).toContain("error from a target that echoed");
  });

  it("gives the masker of a set of secrets again, and another set its own, which masks its secrets", () => {
    const secrets = { apiKey: "sandbox-key-merchant-1", sinkToken: "token-of-the-first-sink-0123456789" };
    const first = runMasker(secrets);
    // Another object of the same secrets (a spec file's context, null for absent) gets the same masker.
    expect(runMasker({ ...secrets, callbackSecret: null, cardNumbers: undefined })).toBe(first);
    // A base URL with no credentials adds no secret (the bundled provider's, known only later).
    expect(runMasker({ ...secrets, baseUrl: "http://127.0.0.1:40123" })).toBe(first);
    const withCredentials = runMasker({
      ...secrets,
      baseUrl: "http://certifier:S3cret-pass@127.0.0.1:40123",
    });
    expect(withCredentials).not.toBe(first);
    expect(withCredentials.text("S3cret-pass")).toBe("***");
    const other = runMasker({ ...secrets, sinkToken: "token-of-the-second-sink-9876543210" });
    expect(other).not.toBe(first);
    expect(other.text("/callbacks/x token-of-the-second-sink-9876543210")).not.toContain("second-sink");
    expect(first.text("token-of-the-first-sink-0123456789 sandbox-key-merchant-1")).toBe("*** ***");
  });

  it("waits out a 429 as the profile bounds it, never past the deadline", () => {
    const profile = parseProfile(JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8")), "reference.json");
    expect(rateLimitRetryOf(profile, 1_000)).toEqual({ maxWaitMs: 5_000, maxRetries: 2, deadlineAt: 1_000 });
    const strict = { ...profile, limits: { ...profile.limits, retryAfterMaxMs: 0, rateLimitRetries: 0 } };
    expect(rateLimitRetryOf(strict, undefined)).toEqual({ maxWaitMs: 0, maxRetries: 0 });
  });
});
