/**
 * The dependency rules of h2h-certify, checked by dependency-cruiser in `npm test` (`npm run deps`).
 *
 * The code is layered; a layer may use the layers below it, never one above, and never a sibling
 * in its own layer (docs/layout.md draws the picture):
 *
 *  13  scripts/                    the one command entry: bin dispatch, the commands
 *  12  scripts/bench/              benchmark harnesses behind npm run bench:*
 *  11  scripts/selftest/           the mutation self-test: certify against the faulty providers
 *  10  certify/, load/             the certification run (engine/, specs/, reports/);
 *                                  k6 load scripts and their Node.js harness
 *   9  run-setup/                  opening a target: run settings, a target container, sink, masker
 *   8  webhook-sink/, fixtures/    the sink; test data and profiles; the providers and receivers
 *                                  the suite is tried on (fixtures/providers/, fixtures/receivers/)
 *      load/scenarios/             the load scenarios and their list, which run-setup's settings read
 *   7  contract/index.ts           the contract's one door for the layers above
 *   6  contract/openapi/           the OpenAPI document and its request schemas
 *   5  contract/profile/           the profile, its help, and what follows from one (probes, negatives)
 *   4  contract/generation/        valid and invalid requests, the lifecycle model, shrinking
 *   3  contract/checks/            the named checks
 *   2  contract/client/            the HTTP client and the exchange recorder
 *   1  contract/schemas/           the names table, the zod schemas, endpoints, JSON text rules
 *   0  contract/kit/               loopback, markup, masking, terminal, TLS: nothing of the contract
 *
 * certify/ and load/ are siblings: each opens its target through run-setup/, and neither uses the
 * other (load's tests included, see `no-certify-in-load-tests`).
 *
 * Within layer 8, fixtures/ holds several packages (test data, profiles, test helpers, one per
 * provider and receiver); the reference provider may read the test data and the profiles, and its
 * image the reference provider.
 *
 * Each package is used from outside only through its hand-picked surface, its `index.ts`.
 * `contract/schemas/names.ts` is a second, schema-free entry, for k6 code.
 *
 * To see why a rule fired: `npx depcruise --config .dependency-cruiser.mjs <folders>` prints the
 * rule's name, the importing module and the imported one.
 */

const CONTRACT_JOBS = ["kit", "schemas", "client", "checks", "generation", "profile", "openapi"];

/** Packages, from the bottom layer up. A package is a folder whose files others reach only via its entries. */
const PACKAGES = [
  // The contract, a package per job; contract/kit knows nothing of the contract.
  ...CONTRACT_JOBS.map((job, layer) => ({
    folder: `contract/${job}`,
    layer,
    entries:
      job === "schemas"
        ? ["contract/schemas/index.ts", "contract/schemas/names.ts"]
        : [`contract/${job}/index.ts`],
  })),
  // contract/index.ts: the door the layers above use (kit and names.ts apart).
  { folder: "contract", layer: 7, entries: ["contract/index.ts"], except: CONTRACT_JOBS },
  { folder: "webhook-sink", layer: 8, entries: ["webhook-sink/index.ts"] },
  // fixtures/ (its own files: payload builders, samples) and its sub-packages.
  {
    folder: "fixtures",
    layer: 8,
    entries: ["fixtures/index.ts"],
    except: ["profiles", "testing", "providers", "receivers", "merchants", "junit"],
  },
  { folder: "fixtures/profiles", layer: 8, entries: ["fixtures/profiles/index.ts"] },
  { folder: "fixtures/providers/reference", layer: 8, entries: ["fixtures/providers/reference/index.ts"] },
  // The reference webhook receiver, the merchant's side (certify:receiver's default target).
  { folder: "fixtures/receivers/reference", layer: 8, entries: ["fixtures/receivers/reference/index.ts"] },
  // A merchant's receiver written from docs/receiver.md alone: it may use no sibling at all.
  { folder: "fixtures/receivers/cleanroom", layer: 8, entries: ["fixtures/receivers/cleanroom/index.ts"] },
  // A merchant's integration (client and receiver), observe mode's example: it uses no sibling at all.
  { folder: "fixtures/merchants/example", layer: 8, entries: ["fixtures/merchants/example/index.ts"] },
  // Providers written apart from the suite: they may use no sibling at all.
  { folder: "fixtures/providers/cleanroom", layer: 8, entries: ["fixtures/providers/cleanroom/index.ts"] },
  { folder: "fixtures/providers/everyday", layer: 8, entries: ["fixtures/providers/everyday/index.ts"] },
  // The reference provider's container image (entry.ts is bundled into it, not imported).
  {
    folder: "fixtures/providers/reference-image",
    layer: 8,
    entries: ["fixtures/providers/reference-image/index.ts"],
  },
  // Test helpers: only tests use them, file by file.
  { folder: "fixtures/testing", layer: 8, entries: "any" },
  // The load scenarios, one file each, and their list: k6 code, but below run-setup, whose settings
  // table parses H2H_SCENARIO from the list (load/ is above run-setup; this folder of it is not).
  { folder: "load/scenarios", layer: 8, entries: ["load/scenarios/index.ts"] },
  // What certify and load both need to open a target, so that neither needs the other.
  { folder: "run-setup", layer: 9, entries: ["run-setup/index.ts"] },
  { folder: "certify", layer: 10, entries: ["certify/index.ts"] },
  // load/testing/ (test doubles of k6 for load's own tests) is part of load.
  { folder: "load", layer: 10, entries: ["load/index.ts"], except: ["scenarios"] },
  // The mutation self-test: certify's API against the reference provider's faults.
  { folder: "scripts/selftest", layer: 11, entries: ["scripts/selftest/index.ts"] },
  { folder: "scripts/bench", layer: 12, entries: ["scripts/bench/index.ts"] },
  { folder: "scripts", layer: 13, entries: [], except: ["selftest", "bench"] },
];

/** The siblings (same layer) a package may use; any other sibling is off limits. */
const MAY_USE_SIBLINGS = {
  "fixtures/providers/reference": ["fixtures", "fixtures/profiles"],
  "fixtures/providers/reference-image": ["fixtures/providers/reference"],
  "fixtures/testing": ["fixtures", "fixtures/providers/reference"],
};

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** A regular expression for the files of a package (not of its sub-packages). */
function filesOf(pkg) {
  const except = pkg.except ? `(?!(${pkg.except.map(escapeRegExp).join("|")})/)` : "";
  return `^${escapeRegExp(pkg.folder)}/${except}`;
}

/** A rule-name-friendly package name: `fixtures/providers/reference` → `fixtures-providers-reference`. */
const slug = (pkg) => pkg.folder.replaceAll("/", "-");

const matchAny = (packages) => packages.map(filesOf).join("|");
const TEST = "\\.test\\.ts$";

const layerRules = PACKAGES.flatMap((pkg) => {
  const above = PACKAGES.filter((other) => other.layer > pkg.layer);
  const siblings = PACKAGES.filter(
    (other) =>
      other.layer === pkg.layer &&
      other.folder !== pkg.folder &&
      !(MAY_USE_SIBLINGS[pkg.folder] ?? []).includes(other.folder),
  );
  const rules = [];
  if (above.length > 0) {
    const comment =
      `${pkg.folder}/ (layer ${pkg.layer}) must not use a higher layer (${above.map((p) => p.folder).join(", ")}). ` +
      "Move the shared piece down, or the code that uses it up.";
    rules.push({
      name: `no-upward-import-from-${slug(pkg)}`,
      comment,
      severity: "error",
      from: { path: filesOf(pkg), pathNot: TEST },
      to: { path: matchAny(above) },
    });
    // A test is a leaf nobody imports: it may use fixtures/ (test data, profiles, the providers as
    // test doubles) and the contract's doors whatever its layer, and nothing else above it.
    rules.push({
      name: `no-upward-import-from-${slug(pkg)}-test`,
      comment: `${comment} A test may use fixtures/ and the contract's index.ts files from any layer, nothing else above its own.`,
      severity: "error",
      from: { path: `(${filesOf(pkg)}).*${TEST}` },
      to: {
        path: matchAny(above),
        pathNot: `^fixtures/|^contract/(${CONTRACT_JOBS.map((job) => `${job}/`).join("|")})?index\\.ts$`,
      },
    });
  }
  if (siblings.length > 0) {
    rules.push({
      name: `no-sibling-import-from-${slug(pkg)}`,
      comment:
        `${pkg.folder}/ must not use a package beside it in layer ${pkg.layer} ` +
        `(${siblings.map((p) => p.folder).join(", ")}); tests excepted.`,
      severity: "error",
      from: { path: filesOf(pkg), pathNot: TEST },
      to: { path: matchAny(siblings) },
    });
  }
  return rules;
});

const deepImportRules = PACKAGES.filter((pkg) => pkg.entries !== "any").map((pkg) => ({
  name: `no-deep-import-into-${slug(pkg)}`,
  comment:
    `From outside ${pkg.folder}/, use only ${pkg.entries.length > 0 ? pkg.entries.join(" or ") : "nothing (it is on top)"}. ` +
    "Export what you need from the package's index.ts instead of reaching past it.",
  severity: "error",
  from: { pathNot: filesOf(pkg) },
  to: {
    path: filesOf(pkg),
    pathNot: pkg.entries.length > 0 ? `^(${pkg.entries.map(escapeRegExp).join("|")})$` : undefined,
  },
}));

/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-cycles",
      comment:
        "No module may depend on itself through others, type-only imports included: a cycle makes the layers meaningless. Break it by moving the shared piece down.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    ...deepImportRules,
    {
      name: "no-certify-in-load-tests",
      comment:
        "load/ and certify/ are siblings, and load's tests keep to that too: what both need (settings, containers, sink, masker) is in run-setup/index.ts.",
      severity: "error",
      from: { path: `^load/.*${TEST}` },
      to: { path: "^certify/" },
    },
    {
      name: "test-helpers-only-in-tests",
      comment: "fixtures/testing/ and load/testing/ are test doubles: only *.test.ts files may use them.",
      severity: "error",
      from: { pathNot: `${TEST}|^(fixtures|load)/testing/` },
      to: { path: "^(fixtures|load)/testing/" },
    },
    {
      name: "specs-are-run-not-imported",
      comment: "Contract specs (*.spec.ts) are run by Vitest through certify; nothing imports one.",
      severity: "error",
      from: {},
      to: { path: "\\.spec\\.ts$" },
    },
    {
      name: "k6-code-stays-k6-safe",
      comment:
        "k6 code (load/lib, load/scripts, load/scenarios) runs in k6, not Node.js: it may use only itself, k6's modules, the schema-free contract/schemas/names.ts and the test data in fixtures/index.ts.",
      severity: "error",
      from: { path: "^load/(lib|scripts|scenarios)/", pathNot: TEST },
      to: {
        pathNot:
          "^(load/(lib|scenarios)/|contract/schemas/names\\.ts$|fixtures/index\\.ts$|k6(/|$)|node_modules/@types/k6/)",
      },
    },
    {
      name: "k6-safe-modules-stay-k6-safe",
      comment:
        "What k6 code imports (contract/schemas/names.ts, fixtures/index.ts and the two files behind it) may itself import only those, type-only imports included.",
      severity: "error",
      from: { path: "^(contract/schemas/names|fixtures/(index|payloads|samples))\\.ts$" },
      to: { pathNot: "^(contract/schemas/names|fixtures/(payloads|samples))\\.ts$" },
    },
    {
      name: "cleanroom-receiver-uses-nothing-of-the-suite",
      comment:
        "fixtures/receivers/cleanroom/ is a merchant's receiver written from docs/receiver.md alone: it may use Node.js, Fastify and itself, nothing of the suite (contract/ included); its tests excepted.",
      severity: "error",
      from: { path: "^fixtures/receivers/cleanroom/", pathNot: TEST },
      to: {
        dependencyTypesNot: ["core"],
        pathNot: "^fixtures/receivers/cleanroom/|(^|/)node_modules/fastify/",
      },
    },
    {
      name: "fastify-only-in-the-cleanroom-receiver",
      comment:
        "Fastify is a dev dependency, there only for the clean-room receiver (a merchant's receiver on a common framework); the suite itself serves with node:http.",
      severity: "error",
      from: { pathNot: "^fixtures/receivers/cleanroom/" },
      to: { path: "(^|/)node_modules/fastify/" },
    },
    {
      name: "no-unresolvable",
      comment: "An import that resolves to nothing is a typo or a missing dependency.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: "^k6(/|$)" },
    },
  ],
  options: {
    // Type-only imports are dependencies too: a type cycle or an upward type import is still a wrong shape.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    // Packages are resolved through their "exports", as Node.js does (tsx has no "main").
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "node", "default"] },
    exclude: { path: "^(load/dist|reports)/" },
  },
};
