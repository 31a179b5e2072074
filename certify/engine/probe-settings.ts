/**
 * The settings of the generated and stateful probes: the seed (`--seed` / H2H_SEED),
 * the depth (`--depth` / H2H_DEPTH), the per-run merchantOrderID prefix, and the checks a run is
 * limited to (`--only`). The seed and depth are checked with the other settings (run-setup/settings-table.ts).
 */
import { randomBytes, randomInt } from "node:crypto";
import { join } from "node:path";
import { CHECK_REGISTRY, type GenerationDepth } from "../../contract/index.ts";
import {
  MAX_SEED,
  type RunSettings,
  SETTINGS,
  type SettingKey,
  type SettingSpec,
  SettingsError,
} from "../../run-setup/index.ts";

export { MAX_SEED } from "../../run-setup/index.ts";

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

/**
 * What a re-run of one failed check repeats of this run: every setting the user gave that selects
 * the target or the run (base URL or image, profile, keys, TLS, sink, depth), secrets by the name
 * of their variable, and a report folder of its own, so the failing run's reports stay.
 */
export interface RerunBase {
  /** `NAME=value ` assignments, each value quoted for a POSIX shell. */
  assignments: string;
  /** The run's report folder: a re-run writes below it, in a folder of its own. */
  reportDir: string;
}

/** Settings a re-run sets itself (the seed, the report folder) or that select neither target nor run. */
const NOT_REPEATED: ReadonlySet<SettingKey> = new Set<SettingKey>([
  "seed",
  "reportDir",
  "baselineReport",
  "workers",
  "debug",
]);

/** A value as a POSIX shell reads it back: bare when it is plain, else in single quotes. */
export function shellQuoted(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

export function rerunBaseOf(run: RunSettings): RerunBase {
  const assignments = (Object.entries(SETTINGS) as [SettingKey, SettingSpec][])
    .filter(([key, spec]) => {
      const source = run.sources[key];
      return (
        (source === "flag" || source === "variable") &&
        !NOT_REPEATED.has(key) &&
        spec.readBy.includes("certify")
      );
    })
    .map(([key, spec]) => {
      // A path as resolved (the command may be pasted elsewhere), anything else as the user wrote it.
      const value = (run as unknown as Record<string, unknown>)[key];
      const text = spec.path && typeof value === "string" ? value : (run.texts?.[key] ?? String(value));
      return `${spec.variable}=${spec.secret ? `"$${spec.variable}"` : shellQuoted(text)} `;
    })
    .join("");
  return { assignments, reportDir: run.reportDir };
}

/** The command that re-runs one check against the same target with the same generated inputs. */
export function rerunCommand(base: RerunBase | undefined, seed: number, check: string): string {
  if (!base) return `npm run certify -- --seed ${seed} --only ${check}`;
  const reportDir = join(base.reportDir, `rerun-${check}-seed${seed}`);
  return `${base.assignments}H2H_REPORT_DIR=${shellQuoted(reportDir)} npm run certify -- --seed ${seed} --only ${check}`;
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
