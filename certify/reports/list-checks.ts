/**
 * `npm run certify -- --list-checks`: every check and every request constraint a run would probe
 * for one profile, each with its rule, its basis (stated, declared, necessary or advisory, and
 * where from) and whether it can fail the run. Sends nothing.
 */
import {
  acceptanceExplained,
  CHECK_REGISTRY,
  type CheckScope,
  checkOfConstraint,
  derivedNegativesOf,
  describeRuleSource,
  effectiveSource,
  lifecycleConventionsOf,
  type Normalisation,
  nearMissApiKeys,
  type Profile,
  type RuleKind,
  type RuleSource,
  readProfile,
  rejectsMalformedCode,
  rejectsNearMissApiKey,
  requirementOf,
} from "../../contract/index.ts";
import type { RunSettings } from "../../run-setup/index.ts";

export interface ListedRule {
  /** A check's name, or a constraint's `<operation> <field>: <keyword> <value>`. */
  name: string;
  what: "check" | "constraint" | "probe";
  /** For a check: what one verdict judges, and so who runs it (contract/checks CheckScope). */
  scope?: CheckScope;
  /** For a constraint, the check that judges its refusal. */
  check: string;
  rule: string;
  kind: RuleKind;
  /** The basis in words: the description's sections, the profile's keys, or the reason. */
  source: string;
  required: boolean;
  /** Why it cannot fail the run, when it cannot. */
  reason?: string;
}

/** Where the listed constraints' generated bases point their callbacks: never contacted. */
const LISTING_CALLBACK_URL = "http://127.0.0.1/callbacks/list-checks";

/** The provider's checks and constraints (certify), or a merchant's receiver's (certify:receiver). */
export function listChecks(profile: Profile, subject: "provider" | "receiver" = "provider"): ListedRule[] {
  const ofSubject = [...CHECK_REGISTRY.values()].filter(
    (check) => check.group !== "merchant" && (check.group === "receiver") === (subject === "receiver"),
  );
  const checks = ofSubject.map((check): ListedRule => {
    const source = effectiveSource(check.source, profile);
    const requirement = requirementOf(check, profile);
    return {
      name: check.name,
      what: "check",
      scope: check.scope,
      check: check.name,
      rule: check.rule,
      kind: source.kind,
      source: describeRuleSource(source),
      required: requirement.required,
      ...(requirement.required ? {} : { reason: requirement.reason }),
    };
  });
  return subject === "receiver"
    ? checks
    : [...checks, ...listConstraints(profile), ...listNormalisedProbes(profile)];
}

/** Stand-ins for the merchants' keys: the near misses' kinds do not depend on the keys' values. */
const EXAMPLE_KEYS = ["Example-Key-1", "Example-Key-2"] as const;

/**
 * The probes whose acceptance a common, harmless normalisation explains: each is an advisory when
 * accepted, unless the profile lists the normalisation in strictInput.
 */
function listNormalisedProbes(profile: Profile): ListedRule[] {
  const probes: { name: string; check: string; normalisation: Normalisation }[] = [];
  for (const miss of nearMissApiKeys(...EXAMPLE_KEYS))
    if (miss.normalisation)
      probes.push({
        name: `(every endpoint) API key: ${miss.name}`,
        check: rejectsNearMissApiKey.name,
        normalisation: miss.normalisation,
      });
  for (const miss of lifecycleConventionsOf(profile).malformedCodes ?? [])
    if (miss.normalisation)
      probes.push({
        name: `(confirm) code: ${miss.name}`,
        check: rejectsMalformedCode.name,
        normalisation: miss.normalisation,
      });
  const seen = new Set<string>();
  for (const derived of derivedNegativesOf(profile, { seed: 1, callbackUrl: LISTING_CALLBACK_URL }))
    for (const testCase of derived.cases) {
      const { normalisation } = testCase.constraint;
      const name = `${derived.operation} ${testCase.name}`;
      if (!normalisation || seen.has(name)) continue;
      seen.add(name);
      probes.push({ name, check: checkOfConstraint(testCase.constraint).name, normalisation });
    }
  return probes.map(({ name, check, normalisation }) => {
    const strict = profile.strictInput.includes(normalisation);
    const source = strict
      ? `declared: the target's profile, strictInput lists "${normalisation}"`
      : describeRuleSource(acceptanceExplained(200, normalisation, profile) as RuleSource);
    return {
      name,
      what: "probe",
      check,
      rule: `${check} judges its refusal; an acceptance is explained by ${normalisation}`,
      kind: strict ? "declared" : "advisory",
      source,
      required: strict,
      ...(strict ? {} : { reason: "advisory when accepted" }),
    };
  });
}

/** The derived negatives' constraints, once per operation, field, keyword and value. */
function listConstraints(profile: Profile): ListedRule[] {
  const derived = derivedNegativesOf(profile, { seed: 1, callbackUrl: LISTING_CALLBACK_URL });
  const listed = new Map<string, ListedRule>();
  for (const { operation, cases } of derived) {
    for (const testCase of cases) {
      const { constraint } = testCase;
      const name = `${operation} ${testCase.path || "(body)"}: ${constraint.keyword} ${JSON.stringify(constraint.expected)}`;
      if (listed.has(name)) continue;
      const check = checkOfConstraint(constraint);
      const waived = profile.informationalChecks[check.name];
      const advisory = constraint.basis.kind === "advisory";
      const reason = advisory
        ? "advisory"
        : waived
          ? `the profile waives ${check.name}: ${waived}`
          : undefined;
      listed.set(name, {
        name,
        what: "constraint",
        check: check.name,
        rule: `${check.name} judges its refusal`,
        kind: constraint.basis.kind,
        source: describeRuleSource(constraint.basis),
        required: reason === undefined,
        ...(reason !== undefined ? { reason } : {}),
      });
    }
  }
  return [...listed.values()];
}

/** The list as text, a line per rule: name, required or not, basis, rule. */
export function formatListedRules(rules: readonly ListedRule[]): string[] {
  const width = Math.max(...rules.map((r) => r.name.length));
  return rules.map(
    (r) =>
      `${r.name.padEnd(width)}  ${r.required ? "required    " : "not required"}  ${r.source} | ${r.rule}`,
  );
}

/** The checks as a Markdown table (docs/checks.md holds it for the reference profile). */
export function checksMarkdown(rules: readonly ListedRule[]): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|");
  return [
    "| check | scope | basis | required | rule |",
    "|---|---|---|---|---|",
    ...rules
      .filter((r) => r.what === "check")
      .map(
        (r) =>
          `| \`${r.name}\` | ${r.scope ?? ""} | ${r.kind} | ${r.required ? "yes" : "no"} | ${cell(r.rule)} |`,
      ),
  ].join("\n");
}

const DOCS_START = "<!-- checks:start -->";
const DOCS_END = "<!-- checks:end -->";

/** docs/checks.md with its table of checks made from the registry, for the reference profile. */
export function withChecksTable(doc: string, profile: Profile): string {
  const start = doc.indexOf(DOCS_START);
  const end = doc.indexOf(DOCS_END);
  if (start === -1 || end < start) throw new Error(`no ${DOCS_START} … ${DOCS_END} block`);
  return `${doc.slice(0, start + DOCS_START.length)}\n${checksMarkdown(listChecks(profile))}\n${doc.slice(end)}`;
}

/** The command that rewrites docs/checks.md's table from the registered checks. */
export const REGENERATE_CHECKS_DOCS = "npm run docs";

export interface PrintListedChecksOptions {
  format?: "text" | "json" | "markdown" | undefined;
  /** The run's settings: the profile (H2H_PROFILE) is read from them. */
  settings: Pick<RunSettings, "profile">;
  print?: (line: string) => void;
  subject?: "provider" | "receiver";
}

/** Reads the profile (H2H_PROFILE) and prints what a run with it would check. */
export async function printListedChecks(options: PrintListedChecksOptions): Promise<ListedRule[]> {
  const print = options.print ?? console.log;
  const path = options.settings.profile;
  const rules = listChecks(await readProfile(path, new Set(CHECK_REGISTRY.keys())), options.subject);
  if (options.format === "json") print(JSON.stringify({ profile: path, rules }, null, 2));
  else if (options.format === "markdown") print(checksMarkdown(rules));
  else {
    const required = rules.filter((r) => r.required).length;
    print(`profile ${path}: ${rules.length} rules, ${required} required (no request was sent)`);
    for (const line of formatListedRules(rules)) print(line);
  }
  return rules;
}
