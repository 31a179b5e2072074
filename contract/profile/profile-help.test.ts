/**
 * Profiles that are easy to write: the shipped JSON Schema is the one generated from
 * the zod schema, every key described; the bundled profiles validate against it with an independent
 * validator (Ajv); and mistakes get messages that name the path and the fix.
 */
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  EXAMPLE_FOREIGN_PROFILE_PATH,
  PROFILE_SCHEMA_PATH,
  REFERENCE_PROFILE_PATH,
} from "../../fixtures/profiles/index.ts";
import { CHECK_REGISTRY } from "../checks/index.ts";
import { ProfileError, parseProfile, profileJsonSchema, readProfile } from "./profile.ts";
import { PROFILE_KEY_DOCS, walkSchema } from "./profile-help.ts";

const shipped = () => JSON.parse(readFileSync(PROFILE_SCHEMA_PATH, "utf8")) as Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: a test breaks a parsed profile in arbitrary places
const reference = (): any => JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8"));
const known = new Set(CHECK_REGISTRY.keys());

/** The message a broken profile is refused with. */
function refusal(profile: unknown): string {
  try {
    parseProfile(profile, "my-provider.json", known);
  } catch (error) {
    expect(error).toBeInstanceOf(ProfileError);
    return (error as Error).message;
  }
  throw new Error("the profile was accepted");
}

describe("the profile's JSON Schema", () => {
  it("is shipped up to date with the zod schema (npm run profile:schema writes it)", () => {
    expect(shipped(), "fixtures/profiles/profile.schema.json is stale: run npm run profile:schema").toEqual(
      JSON.parse(JSON.stringify(profileJsonSchema())),
    );
  });

  it("describes every key, and the descriptions name no key the schema lacks", () => {
    const undocumented = new Set<string>();
    const paths: string[][] = [];
    walkSchema(profileJsonSchema(), (node, path, step) => {
      paths.push([...path]);
      // Keys (and map keys) are what a writer types; list elements and union forms share theirs.
      if ((step === "root" || step === "key" || step === "map") && node.description === undefined)
        undocumented.add(path.join(".") || "(the profile itself)");
    });
    expect(
      [...undocumented],
      "add a line for each to PROFILE_KEY_DOCS in contract/profile/profile-help.ts",
    ).toEqual([]);
    const fits = (pattern: string, path: string[]) => {
      const parts = pattern === "" ? [] : pattern.split(".");
      return parts.length === path.length && parts.every((part, i) => part === "*" || part === path[i]);
    };
    const stale = Object.keys(PROFILE_KEY_DOCS).filter(
      (pattern) => !paths.some((path) => fits(pattern, path)),
    );
    expect(stale, "PROFILE_KEY_DOCS describes keys the profile schema does not have").toEqual([]);
  });

  it("validates the bundled profiles with an independent validator, and refuses a broken one", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(shipped());
    for (const path of [REFERENCE_PROFILE_PATH, EXAMPLE_FOREIGN_PROFILE_PATH]) {
      const profile = JSON.parse(readFileSync(path, "utf8"));
      expect(profile.$schema, `${path} references the schema`).toBe("./profile.schema.json");
      expect(validate(profile), `${path}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    const broken = reference();
    broken.sandboxClok = true;
    delete broken.confirmation.successCode;
    expect(validate(broken)).toBe(false);
    expect(ajv.errorsText(validate.errors)).toMatch(/successCode/);
  });
});

describe("a mistake in a profile gets the path and the fix", () => {
  it("a missing key: its path, what it must be, and what it is for", () => {
    const profile = reference();
    delete profile.confirmation.successCode;
    expect(refusal(profile)).toBe(
      "invalid profile my-provider.json:\n  confirmation.successCode is missing: expected a string (A code the sandbox accepts and that leads to succeeded.)",
    );
  });

  it("a typo in a key: the nearest known key", () => {
    const profile = reference();
    profile.sandboxClok = profile.sandboxClock;
    delete profile.sandboxClock;
    profile.timeouts.requestMS = 5000;
    const message = refusal(profile);
    expect(message).toContain('sandboxClok is not a known key (did you mean "sandboxClock"?)');
    expect(message).toContain('timeouts.requestMS is not a known key (did you mean "requestMs"?)');
    const checks = reference();
    checks.informationalChecks = { "semantics.timer-vaild": "documented" };
    expect(refusal(checks)).toContain(
      'informationalChecks.semantics.timer-vaild: no check has this name (did you mean "semantics.timer-valid"?)',
    );
  });

  it("a union: which of its forms was meant, or the forms it takes", () => {
    const meant = reference();
    meant.callbackTriggers.succeeded = { code: 1111 };
    expect(refusal(meant)).toContain(
      "callbackTriggers.succeeded.code is the number 1111: expected a string (read as the { code } form)",
    );
    const none = reference();
    none.callbackTriggers.expired = { waitSecond: 30 };
    expect(refusal(none)).toContain(
      'callbackTriggers.expired is an object with waitSecond: expected one of the forms { code }, { unconfirmedForSeconds }, { manual, waitSeconds } ("waitSecond": did you mean "waitSeconds"?)',
    );
    const scheme = reference();
    scheme.callbacks.signature.scheme = "hmac";
    expect(refusal(scheme)).toContain(
      'callbacks.signature.scheme is the string "hmac": expected one of "none", "hmac-sha256" (did you mean "hmac-sha256"?)',
    );
    const clock = reference();
    clock.sandboxClock = "yes";
    expect(refusal(clock)).toContain(
      'sandboxClock is the string "yes": expected true or false or "required"',
    );
  });

  it("no zod wording reaches the reader", () => {
    const profile = reference();
    profile.methods.quasi_ecom.methodID = "201";
    delete profile.confirmation;
    const message = refusal(profile);
    expect(message).toContain('methods.quasi_ecom.methodID is the string "201": expected a number');
    expect(message).toContain("confirmation is missing: expected an object");
    expect(message).not.toMatch(/Invalid input|received undefined/);
  });

  it("bad JSON: the line and column, with the line shown", async () => {
    const path = join(tmpdir(), `h2h-profile-${process.pid}.json`);
    await writeFile(path, '{\n  "name": "acme",\n  "methods": {,\n}\n');
    const error = (await readProfile(path).then(
      () => new Error("accepted"),
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(ProfileError);
    expect(error.message).toMatch(new RegExp(`^profile ${path} is not valid JSON: line 3, column 15: `));
    expect(error.message).toContain(`\n      "methods": {,\n    ${" ".repeat(14)}^`);
  });
});
