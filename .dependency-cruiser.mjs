/**
 * The dependency rules of h2h-certify, checked by dependency-cruiser in `npm test` (`npm run deps`).
 *
 * The code is layered; a layer may use the layers below it, never one above, and never a sibling
 * in its own layer:
 *
 *   7  scripts/                    thin entry points of the npm scripts
 *   6  bench/                      benchmark harnesses behind npm run bench:*
 *   5  selftest/                   the mutation self-test: certify against the faulty providers
 *   4  certify/, load/             the certification run (engine/, specs/, reports/);
 *                                  k6 load scripts and their Node.js harness
 *   3  target/                     opening a target: run settings, a target container, sink, masker
 *   2  sink/, fixtures/,           the sink; test data and profiles; the reference provider, its
 *      provider/                   container image and the clean-room provider
 *   1  contract/                   schemas, the names table, checks, HTTP client, recording
 *   0  kit/                        loopback, markup, masking, terminal, TLS: nothing of the contract
 *
 * certify/ and load/ are siblings: each opens its target through target/, and neither uses the
 * other (load's tests included, see `no-certify-in-load-tests`).
 *
 * Within layer 2, fixtures/ holds several packages (test data, profiles, test helpers) and
 * provider/ one per provider (the reference provider, its container image, the clean-room
 * provider); the reference provider may read the test data and the profiles, and its image the
 * reference provider.
 *
 * Each package is used from outside only through its hand-picked surface, its `index.ts`.
 * `contract/names.ts` is a second, schema-free entry to the contract, for k6 code.
 *
 * To see why a rule fired: `npx depcruise --config .dependency-cruiser.mjs <folders>` prints the
 * rule's name, the importing module and the imported one.
 */

/** Packages, from the bottom layer up. A package is a folder whose files others reach only via its entries. */
const PACKAGES = [
  // Nothing of the contract: loopback, markup, masking, terminal, TLS, keep-alive bookkeeping.
  { folder: "kit", layer: 0, entries: ["kit/index.ts"] },
  { folder: "contract", layer: 1, entries: ["contract/index.ts", "contract/names.ts"] },
  { folder: "sink", layer: 2, entries: ["sink/index.ts"] },
  // fixtures/ (its own files: payload builders, samples) and its sub-packages.
  { folder: "fixtures", layer: 2, entries: ["fixtures/index.ts"], except: ["profiles", "testing"] },
  { folder: "fixtures/profiles", layer: 2, entries: ["fixtures/profiles/index.ts"] },
  // provider/ holds the providers the suite is tried on, a package each (no provider/index.ts).
  { folder: "provider/reference", layer: 2, entries: ["provider/reference/index.ts"] },
  // The reference webhook receiver, the merchant's side (certify:receiver's default target).
  { folder: "provider/receiver", layer: 2, entries: ["provider/receiver/index.ts"] },
  // A merchant's receiver written from docs/receiver.md alone: it may use no sibling at all.
  { folder: "provider/cleanroom-receiver", layer: 2, entries: ["provider/cleanroom-receiver/index.ts"] },
  // A second provider, written apart from the suite: it may use no sibling at all.
  { folder: "provider/cleanroom", layer: 2, entries: ["provider/cleanroom/index.ts"] },
  // The reference provider's container image (entry.ts is bundled into it, not imported).
  {
    folder: "provider/reference-image",
    layer: 2,
    entries: ["provider/reference-image/index.ts"],
  },
  // Test helpers: only tests use them, file by file.
  { folder: "fixtures/testing", layer: 2, entries: "any" },
  // What certify and load both need to open a target, so that neither needs the other.
  { folder: "target", layer: 3, entries: ["target/index.ts"] },
  { folder: "certify", layer: 4, entries: ["certify/index.ts"] },
  // load/testing/ (test doubles of k6 for load's own tests) is part of load.
  { folder: "load", layer: 4, entries: ["load/index.ts"] },
  // The mutation self-test: certify's API against the reference provider's faults.
  { folder: "selftest", layer: 5, entries: ["selftest/index.ts"] },
  { folder: "bench", layer: 6, entries: ["bench/index.ts"] },
  { folder: "scripts", layer: 7, entries: [] },
];

/** The siblings (same layer) a package may use; any other sibling is off limits. */
const MAY_USE_SIBLINGS = {
  "provider/reference": ["fixtures", "fixtures/profiles"],
  "provider/reference-image": ["provider/reference"],
  "fixtures/testing": ["fixtures", "provider/reference"],
};

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** A regular expression for the files of a package (not of its sub-packages). */
function filesOf(pkg) {
  const except = pkg.except ? `(?!(${pkg.except.map(escapeRegExp).join("|")})/)` : "";
  return `^${escapeRegExp(pkg.folder)}/${except}`;
}

/** A rule-name-friendly package name: `provider/reference` → `provider-reference`. */
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
    // A test is a leaf nobody imports: it may use fixtures/ (test data, profiles) and provider/
    // (the providers as test doubles) whatever its layer, and nothing else above it.
    rules.push({
      name: `no-upward-import-from-${slug(pkg)}-test`,
      comment: `${comment} A test may use fixtures/ and provider/ from any layer, nothing else above its own.`,
      severity: "error",
      from: { path: `(${filesOf(pkg)}).*${TEST}` },
      to: { path: matchAny(above), pathNot: "^(fixtures|provider)/" },
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
        "load/ and certify/ are siblings, and load's tests keep to that too: what both need (settings, containers, sink, masker) is in target/index.ts.",
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
        "k6 code (load/lib, load/scripts) runs in k6, not Node.js: it may use only itself, k6's modules, the schema-free contract/names.ts and the test data in fixtures/index.ts.",
      severity: "error",
      from: { path: "^load/(lib|scripts)/", pathNot: TEST },
      to: {
        pathNot: "^(load/lib/|contract/names\\.ts$|fixtures/index\\.ts$|k6(/|$)|node_modules/@types/k6/)",
      },
    },
    {
      name: "k6-safe-modules-stay-k6-safe",
      comment:
        "What k6 code imports (contract/names.ts, fixtures/index.ts and the two files behind it) may itself import only those, type-only imports included.",
      severity: "error",
      from: { path: "^(contract/names|fixtures/(index|payloads|samples))\\.ts$" },
      to: { pathNot: "^(contract/names|fixtures/(payloads|samples))\\.ts$" },
    },
    {
      name: "cleanroom-receiver-uses-nothing-of-the-suite",
      comment:
        "provider/cleanroom-receiver/ is a merchant's receiver written from docs/receiver.md alone: it may use Node.js, Fastify and itself, nothing of the suite (contract/ included); its tests excepted.",
      severity: "error",
      from: { path: "^provider/cleanroom-receiver/", pathNot: TEST },
      to: {
        dependencyTypesNot: ["core"],
        pathNot: "^provider/cleanroom-receiver/|(^|/)node_modules/fastify/",
      },
    },
    {
      name: "fastify-only-in-the-cleanroom-receiver",
      comment:
        "Fastify is a dev dependency, there only for the clean-room receiver (a merchant's receiver on a common framework); the suite itself serves with node:http.",
      severity: "error",
      from: { pathNot: "^provider/cleanroom-receiver/" },
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
