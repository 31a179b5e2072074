/**
 * The derived negatives of a profile are what a run sends and what --list-checks lists: a rule the
 * profile waives with "none" is in neither, for every rule a profile can waive; and a case whose
 * value an everyday normalisation makes valid says so.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { derivedNegativesOf, type Profile, parseProfile } from "../../contract/index.ts";
import { listChecks } from "./list-checks.ts";

const REFERENCE = JSON.parse(
  readFileSync(new URL("../../fixtures/profiles/reference.json", import.meta.url), "utf8"),
) as Record<string, unknown>;
const BASES = { seed: 3, callbackUrl: "http://127.0.0.1:4010/cb/derived" };

/** The reference profile with `change` applied to a copy of its file's JSON. */
function profileWith(change: (json: Record<string, unknown>) => void): Profile {
  const json = structuredClone(REFERENCE);
  change(json);
  return parseProfile(json, "test profile");
}

/** The cases a run would send, as `operation path: keyword`. */
function sentConstraints(profile: Profile): Set<string> {
  return new Set(
    derivedNegativesOf(profile, BASES).flatMap((derived) =>
      derived.cases.map((c) => `${derived.operation} ${c.path || "(body)"}: ${c.constraint.keyword}`),
    ),
  );
}

/** The constraints --list-checks lists, the same way. */
function listedConstraints(profile: Profile): Set<string> {
  return new Set(
    listChecks(profile)
      .filter((rule) => rule.what === "constraint")
      .map((rule) => rule.name.replace(/^(\S+ \S+: \S+) .*$/, "$1")),
  );
}

const WAIVABLE = ["minLength", "maxLength", "pattern", "format"] as const;

describe("a profile's waivers", () => {
  const reference = parseProfile(structuredClone(REFERENCE), "reference");
  const sent = sentConstraints(reference);
  // Every string constraint a run probes on a request field: each is one a profile may waive.
  // One profile per field and keyword: a waiver holds for every operation that has the field.
  const waivable = [
    ...new Map(
      [...sent].flatMap((entry) => {
        const [, path, keyword] = /^\S+ (\S+): (\S+)$/.exec(entry) ?? [];
        return path && keyword && (WAIVABLE as readonly string[]).includes(keyword)
          ? [[`${path}: ${keyword}`, { path, keyword }] as const]
          : [];
      }),
    ).values(),
  ];

  it("cover the code, the card, the lengths and the URLs", () => {
    const paths = new Set(waivable.map((w) => `${w.path}: ${w.keyword}`));
    expect(paths.size).toBe(waivable.length);
    for (const expected of [
      "code: pattern",
      "requisites.cvc: pattern",
      "clientID: maxLength",
      "metadata.webHook: format",
    ])
      expect(paths).toContain(expected);
  });

  it("leave a waived rule out of the run and the listing alike, every one of them", () => {
    const disagreements: string[] = [];
    for (const { path, keyword } of waivable) {
      let profile: Profile;
      try {
        profile = profileWith((json) => {
          const rules = (json.requestRules ?? {}) as Record<string, Record<string, unknown>>;
          rules[path] = { ...rules[path], [keyword]: "none" };
          json.requestRules = rules;
        });
      } catch {
        // A rule the API description states cannot be waived: the profile is refused, nothing to compare.
        continue;
      }
      const run = sentConstraints(profile);
      const listing = listedConstraints(profile);
      for (const key of new Set([...run, ...listing])) {
        if (!key.endsWith(` ${path}: ${keyword}`)) continue;
        // A maximum length waived is still probed, with a value far past any limit, as an advisory.
        if (keyword !== "maxLength" && run.has(key))
          disagreements.push(`${key}: waived, but the run sends it`);
        if (run.has(key) !== listing.has(key))
          disagreements.push(
            `${key}: the run ${run.has(key) ? "sends" : "omits"} it, the listing ${listing.has(key) ? "lists" : "omits"} it`,
          );
      }
    }
    expect(disagreements).toEqual([]);
  });

  it("leave the clean-room profile's waived code length out of the confirmations", () => {
    const cleanroom = parseProfile(
      JSON.parse(readFileSync(new URL("../../fixtures/profiles/cleanroom.json", import.meta.url), "utf8")),
      "cleanroom",
    );
    const confirms = [...sentConstraints(cleanroom)].filter((entry) => entry.includes("Order code:"));
    expect(confirms.some((entry) => entry.endsWith("minLength"))).toBe(false);
    expect(confirms.length).toBeGreaterThan(0);
  });
});

describe("a derived case an everyday normalisation makes valid", () => {
  const cases = derivedNegativesOf(parseProfile(structuredClone(REFERENCE), "reference"), BASES).flatMap(
    (derived) => derived.cases,
  );

  it("names the normalisation: non-ASCII digits, a number spelled as text, text given as a number", () => {
    const normalised = cases.filter((c) => c.constraint.normalisation !== undefined);
    const digits = normalised.filter((c) => c.constraint.normalisation === "unicode-digits");
    expect(digits.map((c) => c.constraint.variant)).toContain("non-ASCII digit");
    const coerced = normalised.filter((c) => c.constraint.normalisation === "scalar-coercion");
    expect(coerced.map((c) => c.value)).toEqual(expect.arrayContaining(["1500", 12345]));
  });

  it("never marks a case whose normalised value is still invalid, nor a lossy one", () => {
    // 1.5 for an integer is no spelling of one; a letter in a card number is no digit.
    for (const c of cases.filter((c) => c.value === 1.5 || c.constraint.variant === "letter"))
      expect(c.constraint.normalisation, c.name).toBeUndefined();
  });
});
