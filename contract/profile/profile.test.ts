import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CHECK_REGISTRY } from "../checks/index.ts";
import { ProfileError, parseProfile, readProfile } from "./profile.ts";

const path = (name: string) => fileURLToPath(new URL(`../../fixtures/profiles/${name}`, import.meta.url));
const known = new Set(CHECK_REGISTRY.keys());
// biome-ignore lint/suspicious/noExplicitAny: a test breaks a parsed profile in arbitrary places
type Editable = any;
const reference = () => JSON.parse(readFileSync(path("reference.json"), "utf8"));

describe("target profiles", () => {
  it("the reference profile describes the reference provider", async () => {
    const profile = await readProfile(path("reference.json"), known);
    expect(profile).toMatchObject({
      name: "reference",
      sandboxClock: true,
      methods: {
        mobile_commerce: { methodID: 101, currency: "RUB" },
        quasi_ecom: { methodID: 201, currency: "RUB" },
      },
      confirmation: { successCode: "1111", wrongCode: "0000" },
      callbacks: {
        signature: { scheme: "hmac-sha256", header: "X-Signature", prefix: "sha256=", encoding: "hex" },
      },
    });
  });

  it("refuses requestRules that would change a rule the API description states or that is necessary", () => {
    const broken = {
      ...reference(),
      requestRules: {
        "requisites.lifetimeMonth": { pattern: "none" },
        "requisites.lifetimeYear": { pattern: ".*" },
        "metadata.webHook": { format: "none" },
        clientID: { maxLength: "none" },
      },
    };
    const message = (() => {
      try {
        parseProfile(broken, "rules.json", known);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(
      /requestRules\.requisites\.lifetimeMonth\.pattern .*stated: the API description, §4\.3/,
    );
    expect(message).toMatch(/requestRules\.requisites\.lifetimeYear\.pattern .*stated/);
    expect(message).toMatch(/requestRules\.metadata\.webHook\.format .*necessary/);
    expect(message).not.toMatch(/clientID/);
  });

  it("reads a profile saved with a UTF-8 byte order mark, and refuses a deadline no timer can wait", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-profile-"));
    const file = join(dir, "bom.json");
    writeFileSync(file, `\uFEFF${JSON.stringify(reference())}`);
    expect((await readProfile(file, known)).name).toBe("reference");
    const tooLong = { ...reference(), limits: { ...reference().limits, deadlineMs: 2 ** 31 } };
    expect(() => parseProfile(tooLong, "deadline.json", known)).toThrow(/limits\.deadlineMs/);
  });

  it("the annotated example for a foreign provider is valid, its comments included", async () => {
    const profile = await readProfile(path("example-foreign.json"), known);
    expect(profile.callbackTriggers.succeeded_by_appeal).toMatchObject({
      manual: expect.any(String),
      waitSeconds: 900,
    });
    expect(profile.informationalChecks).toEqual({ "semantics.timer-valid": expect.any(String) });
    expect(profile.errors.unauthorized).toEqual({ httpStatus: 401 });
  });

  it("fills defaults for what a minimal profile leaves out", () => {
    const { name, methods, confirmation, callbackTriggers } = reference();
    const profile = parseProfile({ name, methods, confirmation, callbackTriggers }, "minimal.json");
    expect(profile.timeouts).toEqual({ requestMs: 5000, callbackMs: 15000 });
    expect(profile.gaps.dateFormat).toBe("string");
    expect(profile.expectedStatus.confirmMobileCommerceOrder).toBe("waiting_for_terminal");
    expect(profile.errors).toEqual({});
    expect(profile.callbacks.signature).toEqual({ scheme: "none" });
    // A 429's Retry-After is waited out up to 5 s, twice per request.
    expect(profile.limits).toEqual({ maxBodyBytes: 65_536, retryAfterMaxMs: 5_000, rateLimitRetries: 2 });
  });

  it("fills the rate-limit defaults inside a limits section that leaves them out", () => {
    const profile = parseProfile({ ...reference(), limits: { maxBodyBytes: 1024 } }, "limits.json");
    expect(profile.limits).toEqual({ maxBodyBytes: 1024, retryAfterMaxMs: 5_000, rateLimitRetries: 2 });
  });

  it.each([
    [
      "a typo in a key",
      (p: Editable) => (p.timeouts.requestMS = 1),
      'timeouts.requestMS is not a known key (did you mean "requestMs"?)',
    ],
    [
      "a wrong type",
      (p: Editable) => (p.methods.mobile_commerce.amount = "1500"),
      'methods.mobile_commerce.amount is the string "1500": expected a number',
    ],
    [
      "a missing section",
      (p: Editable) => delete p.confirmation,
      "confirmation is missing: expected an object",
    ],
    [
      "an unknown signature scheme",
      (p: Editable) => (p.callbacks.signature.scheme = "rsa"),
      "callbacks.signature.scheme",
    ],
    [
      "an unknown clientMetadata field",
      (p: Editable) => (p.methods.quasi_ecom.requires = { clientMetadata: ["fax"] }),
      "methods.quasi_ecom.requires.clientMetadata.0",
    ],
    [
      "a trigger of no known kind",
      (p: Editable) => (p.callbackTriggers.expired = { after: 30 }),
      "callbackTriggers.expired",
    ],
    [
      "a callback retry policy with fewer delays than its attempts need",
      (p: Editable) => (p.callbacks.retryPolicy = { attempts: 5, delaysMs: [100], toleranceMs: 50 }),
      "callbacks.retryPolicy.delaysMs is an array of 1: one wait between each two attempts: 5 attempts need 4 delays, not 1",
    ],
    [
      "a negative Retry-After bound",
      (p: Editable) => (p.limits = { retryAfterMaxMs: -1 }),
      "limits.retryAfterMaxMs",
    ],
    [
      "an informational check that does not exist",
      (p: Editable) => (p.informationalChecks = { "semantics.nope": "why" }),
      "informationalChecks.semantics.nope: no check has this name",
    ],
  ])("refuses %s, naming the key", (_label, breakIt, message) => {
    const broken = reference();
    breakIt(broken);
    expect(() => parseProfile(broken, "broken.json", known)).toThrow(ProfileError);
    expect(() => parseProfile(broken, "broken.json", known)).toThrow(message);
  });

  it("says which file is not JSON, and which cannot be read", async () => {
    await expect(readProfile("/no/such/profile.json")).rejects.toThrow(
      "cannot read profile /no/such/profile.json: ENOENT",
    );
    await expect(readProfile(fileURLToPath(import.meta.url))).rejects.toThrow(
      /profile .*profile\.test\.ts is not valid JSON/,
    );
  });
});
