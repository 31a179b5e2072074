/**
 * The classification of every rule is data: a required rule must rest on the API description
 * (a section that exists in docs/api.md), the profile (a key the profile format has), or a
 * necessary reading with its reason. The table of checks in docs/checks.md is the registry's, generated.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  CHECK_REGISTRY,
  checksOfScope,
  deriveNegativeCases,
  type Profile,
  parseProfile,
  profileKeyDoc,
  UNLIMITED_PROBE_LENGTH,
} from "../../contract/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { checksMarkdown, listChecks, REGENERATE_CHECKS_DOCS, withChecksTable } from "./list-checks.ts";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");
/** The numbered sections of docs/api.md: its headings, and the rows of its table of endpoints (4.1-4.4). */
const apiText = read("../../docs/api.md");
const apiSections = new Set(
  [...apiText.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm), ...apiText.matchAll(/^\| (\d+\.\d+) \|/gm)].map(
    (m) => `§${m[1]}`,
  ),
);
const referenceJson = JSON.parse(read("../../fixtures/profiles/reference.json")) as Record<string, unknown>;
const bare: Profile = parseProfile(
  {
    name: "bare",
    methods: referenceJson.methods,
    otherMethods: referenceJson.otherMethods,
    confirmation: referenceJson.confirmation,
    callbackTriggers: referenceJson.callbackTriggers,
  },
  "bare.json",
);
const foreign = parseProfile(
  JSON.parse(read("../../fixtures/profiles/example-foreign.json")),
  "example-foreign.json",
);
const isProfileKey = (key: string) => profileKeyDoc(key.split(".")) !== undefined;

describe("every rule's basis", () => {
  it.each([...CHECK_REGISTRY.values()].map((check) => [check.name, check] as const))(
    "%s names a basis that exists",
    (_name, check) => {
      const { source } = check;
      if (source.kind === "stated")
        for (const section of source.sections)
          expect(apiSections, `${check.name} cites ${section}`).toContain(section);
      if (source.kind === "declared")
        for (const key of source.keys)
          expect(isProfileKey(key), `${check.name}: profile key ${key}`).toBe(true);
      if (source.kind === "advisory") {
        for (const key of source.declaredBy)
          expect(isProfileKey(key), `${check.name}: profile key ${key}`).toBe(true);
        expect(source.reason.length).toBeGreaterThan(20);
      }
      if (source.kind === "necessary") expect(source.reason.length).toBeGreaterThan(20);
    },
  );

  it.each([
    ["reference", REFERENCE_PROFILE],
    ["example-foreign", foreign],
    ["bare (declares nothing)", bare],
  ] as const)("with the %s profile, no required rule is advisory", (_name, profile) => {
    const rules = listChecks(profile);
    expect(rules.filter((r) => r.what === "constraint").length).toBeGreaterThan(20);
    const unfounded = rules.filter(
      (r) => r.required && !["stated", "declared", "necessary"].includes(r.kind),
    );
    expect(unfounded.map((r) => r.name)).toEqual([]);
  });

  it("a profile that declares nothing holds a target to no length, card, CVC or redirect-URL format", () => {
    const constraints = listChecks(bare).filter((r) => r.what === "constraint");
    const suites = constraints.filter((r) =>
      /: (minLength|maxLength) |requisites\.(number|cvc): pattern|RedirectURL: format/.test(r.name),
    );
    expect(suites.length).toBeGreaterThan(15);
    for (const rule of suites) expect(rule, rule.name).toMatchObject({ kind: "advisory", required: false });
    // What the description states stays required: the expiry formats, the http(s) webHook, the enum.
    for (const stated of [
      "requisites.lifetimeMonth: pattern",
      "metadata.webHook: format",
      "trafficType: enum",
    ])
      expect(constraints.find((r) => r.name.includes(stated))).toMatchObject({ required: true });
  });

  it("the reference profile declares what the reference provider enforces", () => {
    const constraints = listChecks(REFERENCE_PROFILE).filter((r) => r.what === "constraint");
    // The redirect URLs' type is the one advisory a profile cannot declare: no table lists the fields.
    expect(constraints.filter((r) => !r.required).map((r) => r.name)).toEqual([
      'createQuasiEcomOrder metadata.successRedirectURL: type "string"',
      'createQuasiEcomOrder metadata.failRedirectURL: type "string"',
    ]);
    expect(constraints.find((r) => r.name.includes("requisites.cvc: pattern"))).toMatchObject({
      kind: "declared",
    });
  });

  it('a maximum length declared "none" is probed with a 10,000-character value, as an advisory', () => {
    const { cases } = deriveNegativeCases(
      { type: "object", properties: { clientID: { type: "string", maxLength: 255 } } },
      { clientID: "c-1" },
      { requestRules: { clientID: { maxLength: "none" } } },
    );
    const long = cases.find((c) => c.constraint.keyword === "maxLength");
    expect(long?.constraint.basis.kind).toBe("advisory");
    expect(String(long?.value).length).toBe(UNLIMITED_PROBE_LENGTH);
  });
});

it("docs/checks.md's table of checks is the one the registry makes for the reference profile", () => {
  const doc = read("../../docs/checks.md");
  expect(
    withChecksTable(doc, REFERENCE_PROFILE) === doc,
    `docs/checks.md's table of checks differs from the registered checks; regenerate it from the project root with:\n${REGENERATE_CHECKS_DOCS}`,
  ).toBe(true);
});

it("lists each check with the scope it registered, the run-scope ones being the engine's", () => {
  const checks = listChecks(REFERENCE_PROFILE).filter((r) => r.what === "check");
  for (const rule of checks) expect(rule.scope, rule.name).toBe(CHECK_REGISTRY.get(rule.name)?.scope);
  expect(checks.filter((r) => r.scope === "run").map((r) => r.name)).toEqual(
    checksOfScope("run").map((c) => c.name),
  );
  expect(checksMarkdown(checks)).toContain("| `envelope.strict-json` | run | necessary | yes |");
});
