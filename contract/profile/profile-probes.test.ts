import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ProfileError, parseProfile } from "./profile.ts";
import {
  codeFormatOf,
  lifecycleConventionsOf,
  orderMethodsOf,
  REFUSED_CREATION,
  refusedCreationsOf,
} from "./profile-probes.ts";

// biome-ignore lint/suspicious/noExplicitAny: a test breaks a parsed profile in arbitrary places
type Editable = any;
const reference = (): Editable =>
  JSON.parse(
    readFileSync(fileURLToPath(new URL("../../fixtures/profiles/reference.json", import.meta.url)), "utf8"),
  );
const parse = (profile: unknown) => parseProfile(profile, "p.json");

describe("what the probes read from a profile", () => {
  it("lists every method, the fixed checks' one first in each flow, with its conditional fields as paths", () => {
    const methods = orderMethodsOf(parse(reference()));
    expect(methods.map((m) => [m.kind, m.methodID, m.requiredFields])).toEqual([
      ["mobile_commerce", 101, []],
      ["mobile_commerce", 102, ["clientMetadata.phone"]],
      ["quasi_ecom", 201, []],
      ["quasi_ecom", 202, ["clientID"]],
    ]);
    expect(methods.every((m) => m.maxAmount === 1_000_000)).toBe(true);
  });

  it("without lifecycle outcomes, each code trigger leads to its own status, the success code to succeeded", () => {
    const profile = reference();
    delete profile.lifecycle;
    const conventions = lifecycleConventionsOf(parse(profile));
    expect(conventions.outcomes).toEqual([
      { code: "1111", statuses: ["succeeded"] },
      { code: "2222", statuses: ["failed_by_terminal"] },
      { code: "3333", statuses: ["succeeded_by_appeal"] },
    ]);
    expect(conventions).toMatchObject({
      otherKindConfirm: "invalidOrderState",
      merchantOrderIdScope: "merchant",
    });
  });

  it("has no expiry in the model when expiry is provoked manually", () => {
    const profile = reference();
    profile.callbackTriggers.expired = { manual: "ask support", waitSeconds: 60 };
    expect(lifecycleConventionsOf(parse(profile)).expiredStatus).toBeNull();
  });

  it.each([
    [
      "limits that cross",
      (p: Editable) => (p.methods.quasi_ecom.minAmount = 2e6),
      "methods.quasi_ecom.minAmount is the number 2000000: at most maxAmount (1000000)",
    ],
    [
      "an amount outside its limits",
      (p: Editable) => (p.methods.mobile_commerce.maxAmount = 100),
      "methods.mobile_commerce.amount is the number 1500: at most maxAmount (100)",
    ],
    [
      "a method listed twice",
      (p: Editable) => (p.otherMethods.quasi_ecom[0].methodID = 201),
      "otherMethods.quasi_ecom.0.methodID is the number 201: a method not listed yet (201 is at methods.quasi_ecom.methodID)",
    ],
    [
      "a maximum length for no field",
      (p: Editable) => (p.maxLengths = { "clientMetadata.fax": 20 }),
      "no create request has clientMetadata.fax",
    ],
    [
      "a maximum length for a number",
      (p: Editable) => (p.maxLengths = { amount: 20 }),
      "maxLengths.amount is the number 20: a string field; amount is a number",
    ],
    [
      "a test card failing the Luhn check",
      (p: Editable) => (p.testCards = ["4111111111111112"]),
      "card 0 (ending 1112) is not one",
    ],
    [
      "outcomes without the success code",
      (p: Editable) => p.lifecycle.outcomes.shift(),
      "an outcome for the success code 1111",
    ],
    [
      "an outcome for the wrong code",
      (p: Editable) => p.lifecycle.outcomes.push({ code: "0000", statuses: ["succeeded"] }),
      "no outcome for the wrong code 0000",
    ],
    ["a race of one", (p: Editable) => (p.races.concurrency = 1), "races.concurrency"],
    [
      "an unknown refusal for the other flow's path",
      (p: Editable) => (p.lifecycle.otherKindConfirm = "conflict"),
      "lifecycle.otherKindConfirm",
    ],
  ])("refuses %s, naming the key", (_label, breakIt, message) => {
    const broken = reference();
    breakIt(broken);
    expect(() => parse(broken)).toThrow(ProfileError);
    expect(() => parse(broken)).toThrow(message);
  });

  it("never prints a test card whole, even a bad one", () => {
    const broken = reference();
    broken.testCards = ["4111111111111112"];
    expect(() => parse(broken)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("4111111111111112") }),
    );
  });
});

describe("the refusals the lifecycle tries", () => {
  it("read the code format from requestRules.code.pattern, else stand in with the success code's kind and length", () => {
    expect(codeFormatOf(parse(reference()))).toEqual({ pattern: "^[0-9]{4,8}$", declared: true });
    const profile = reference();
    delete profile.requestRules.code.pattern;
    expect(codeFormatOf(parse(profile))).toEqual({ pattern: "[0-9]{4}", declared: false });
    profile.requestRules.code.pattern = "none";
    expect(codeFormatOf(parse(profile)).declared).toBe(false);
  });

  it("break a creation above the method's maximum only where every flow's method declares one", () => {
    expect(refusedCreationsOf(parse(reference()))).toContain(REFUSED_CREATION.aboveMaximum);
    const profile = reference();
    delete profile.methods.quasi_ecom.maxAmount;
    expect(refusedCreationsOf(parse(profile))).not.toContain(REFUSED_CREATION.aboveMaximum);
  });

  it("leave out a malformed code that is one of the codes with an outcome", () => {
    const profile = reference();
    profile.requestRules.code.pattern = "^\\d{4}$";
    profile.lifecycle.outcomes.push({ code: "11111", statuses: ["succeeded"] });
    const codes = lifecycleConventionsOf(parse(profile)).malformedCodes?.map((m) => m.code);
    expect(codes).toContain("111");
    expect(codes).not.toContain("11111");
  });
});
