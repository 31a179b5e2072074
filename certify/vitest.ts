/**
 * The Vitest entry (`h2h-certify/vitest`): the contract specs as a project of a provider's own
 * Vitest, run with the H2H_* settings as certify reads them (docs/commands.md):
 *
 *   import { defineConfig } from "vitest/config";
 *   import { contractProject } from "h2h-certify/vitest";
 *   export default defineConfig({ test: { projects: [contractProject()] } });
 *
 * The repository's own vitest.config.ts uses it for its `contract` project. Light on purpose: a
 * Vitest config loads it on every start, so it imports nothing of the suite but where the specs are.
 */
import { fileURLToPath } from "node:url";
import type { TestProjectInlineConfiguration } from "vitest/config";
import { contractProjectWorkers, SPEC_GLOB, SPEC_POOL } from "./engine/spec-pool.ts";

/** The code's root (a checkout, or the installed package's dist/), whose globs find the specs. */
const CODE_ROOT = fileURLToPath(new URL("..", import.meta.url));
const EXTENSION = import.meta.url.endsWith(".js") ? "js" : "ts";
const engineFile = (name: string) => fileURLToPath(new URL(`./engine/${name}.${EXTENSION}`, import.meta.url));

export interface ContractProjectOptions {
  /** The project's name in Vitest's output and for `--project` (default: "contract"). */
  name?: string;
  /** The worker threads the spec files run in (default: H2H_WORKERS, else one per core, at least 2). */
  maxWorkers?: number;
}

/**
 * The contract specs as a Vitest project: its global setup opens the target (H2H_BASE_URL, the
 * H2H_TARGET_IMAGE container, else the bundled reference provider), starts the sink and provides the
 * run context, as certify does; each check is a test. certify's reports are not written.
 */
export function contractProject(options: ContractProjectOptions = {}): TestProjectInlineConfiguration {
  return {
    test: {
      name: options.name ?? "contract",
      root: CODE_ROOT,
      include: [SPEC_GLOB],
      // The specs are under node_modules in an installed package: Vitest's default exclude would drop them.
      exclude: [],
      ...SPEC_POOL,
      maxWorkers: options.maxWorkers ?? contractProjectWorkers(process.env),
      // After the other projects' files when several run: their worker counts differ.
      sequence: { groupOrder: 1 },
      // Opens the target, starts the sink and provides the run context, as certify does.
      globalSetup: [engineFile("contract-project-setup")],
      // The profile's test and hook timeouts, as certify gives them.
      setupFiles: [engineFile("contract-project-timeouts")],
    },
  };
}
