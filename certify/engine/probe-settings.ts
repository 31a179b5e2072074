/**
 * The settings of the generated and stateful probes: the seed (`--seed` / H2H_SEED),
 * the depth (`--depth` / H2H_DEPTH), the per-run merchantOrderID prefix, and the checks a run is
 * limited to (`--only`). The seed and depth are checked with the other settings (target/settings-table.ts).
 */
import { randomBytes, randomInt } from "node:crypto";
import { CHECK_REGISTRY, type GenerationDepth } from "../../contract/index.ts";
import { MAX_SEED, type RunSettings, SettingsError } from "../../target/index.ts";

export { MAX_SEED } from "../../target/index.ts";

/** What the command line gives besides the table's settings (`--seed` and `--depth` are there). */
export interface ProbeOverrides {
  /** Check names: the run is limited to these. */
  only?: readonly string[] | undefined;
}

export interface ProbeSettings {
  /** Seed of every generated input: the same seed sends the same requests. */
  seed: number;
  /** Whether the seed was given (`--seed`, H2H_SEED) or drawn for this run. */
  seedSource: "--seed" | "H2H_SEED" | "random";
  depth: GenerationDepth;
  /**
   * Leads the merchantOrderID of every generated order, so that a second run with the same seed
   * against a target that keeps its orders does not collide with the first (merchantOrderID is
   * unique per merchant). Recorded in the report; requests are the same from run to run but for it.
   */
  merchantOrderIdPrefix: string;
  /** The checks the run is limited to; empty: every check. */
  only: readonly string[];
}

function checkNames(names: readonly string[]): string[] {
  const unknown = names.filter((name) => !CHECK_REGISTRY.has(name));
  if (unknown.length > 0) {
    const group = (name: string) => name.split(".")[0];
    const near = (name: string) =>
      [...CHECK_REGISTRY.keys()].filter((known) => group(known) === group(name)).slice(0, 12);
    throw new SettingsError(
      unknown
        .map((name) => {
          const sameGroup = near(name);
          return `--only ${name}: no check has this name${sameGroup.length > 0 ? ` (checks of ${group(name)}: ${sameGroup.join(", ")}, …)` : ` (groups: envelope, fields, semantics, behaviour, callbacks)`}`;
        })
        .join("; "),
    );
  }
  return [...new Set(names)];
}

/** The probes' settings out of the run's parsed settings (seed and depth checked there). */
export function readProbeSettings(
  run: Pick<RunSettings, "seed" | "depth" | "sources">,
  overrides: ProbeOverrides = {},
): ProbeSettings {
  const source = run.sources.seed;
  return {
    seed: run.seed ?? randomInt(0, MAX_SEED),
    seedSource: source === "flag" ? "--seed" : source === "variable" ? "H2H_SEED" : "random",
    depth: run.depth,
    merchantOrderIdPrefix: `h2h-${randomBytes(3).toString("hex")}`,
    only: checkNames(overrides.only ?? []),
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The test name pattern that runs only the given checks: a test is titled by its check's name,
 * alone or followed by ` › <case>`, after the names of the blocks it sits in.
 */
export function onlyPattern(only: readonly string[]): RegExp | undefined {
  if (only.length === 0) return undefined;
  return new RegExp(`(?:^| )(?:${only.map(escapeRegExp).join("|")})(?: › |$)`);
}

/** The command that re-runs one check with the same generated inputs. */
export function rerunCommand(seed: number, check: string): string {
  return `npm run certify -- --seed ${seed} --only ${check}`;
}

/** The line every run prints first and every report records. */
export function describeProbeSettings(settings: ProbeSettings): string {
  const seed =
    settings.seedSource === "random"
      ? `seed ${settings.seed} (drawn for this run; --seed ${settings.seed} or H2H_SEED=${settings.seed} sends the same requests)`
      : `seed ${settings.seed} (from ${settings.seedSource})`;
  const only = settings.only.length > 0 ? `; only ${settings.only.join(", ")}` : "";
  return `${seed}; depth ${settings.depth}; merchantOrderID prefix ${settings.merchantOrderIdPrefix}${only}`;
}
