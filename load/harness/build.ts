/**
 * Bundles the k6 scripts (esbuild): one self-contained ES module per script in load/dist/, with
 * k6's built-in modules left external and nothing else, so each runs unchanged in plain k6, the
 * k6 operator and k6 cloud. The target profile and the contract digest are fixed into the bundle.
 */
import { readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Profile } from "../../contract/profile.ts";
import { buildContract } from "../../contract/schemas.ts";
import type { LoadProfile } from "../lib/config.ts";
import { buildContractDigest } from "./digest.ts";

export const LOAD_DIR = fileURLToPath(new URL("..", import.meta.url));
export const DIST_DIR = join(LOAD_DIR, "dist");
const SCRIPTS_DIR = join(LOAD_DIR, "scripts");

/** What the k6 scripts need of a target profile. */
export function loadProfileOf(profile: Profile): LoadProfile {
  const codeOf = (status: "failed_by_terminal" | "succeeded_by_appeal") => {
    const trigger = profile.callbackTriggers[status];
    return "code" in trigger ? trigger.code : undefined;
  };
  const succeeded = profile.callbackTriggers.succeeded;
  const failed = codeOf("failed_by_terminal");
  const appeal = codeOf("succeeded_by_appeal");
  return {
    mobileCommerce: {
      methodID: profile.methods.mobileCommerce.methodID,
      amount: profile.methods.mobileCommerce.amount,
      requires: profile.methods.mobileCommerce.requires,
    },
    quasiEcom: {
      methodID: profile.methods.quasiEcom.methodID,
      amount: profile.methods.quasiEcom.amount,
      requires: profile.methods.quasiEcom.requires,
    },
    codes: {
      succeeded: "code" in succeeded ? succeeded.code : profile.confirmation.successCode,
      ...(failed !== undefined ? { failed_by_terminal: failed } : {}),
      ...(appeal !== undefined ? { succeeded_by_appeal: appeal } : {}),
    },
    expectedStatus: profile.expectedStatus,
    requestTimeoutMs: profile.timeouts.requestMs,
  };
}

export interface BuiltBundle {
  script: string;
  path: string;
  bytes: number;
}

export function scriptNames(): string[] {
  return readdirSync(SCRIPTS_DIR)
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => basename(name, ".ts"))
    .sort();
}

export async function buildLoadBundles(profile: Profile, outDir = DIST_DIR): Promise<BuiltBundle[]> {
  const names = scriptNames();
  await build({
    entryPoints: Object.fromEntries(names.map((name) => [name, join(SCRIPTS_DIR, `${name}.ts`)])),
    outdir: resolve(outDir),
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2020",
    // k6's own modules are provided by k6; everything else is inlined.
    external: ["k6", "k6/*"],
    minify: true,
    legalComments: "none",
    logLevel: "silent",
    define: {
      __H2H_PROFILE__: JSON.stringify(loadProfileOf(profile)),
      // As JSON text, parsed by each VU only for the operations it runs: an object literal would
      // be built, and kept, in every VU (k6 runs the init code once per VU).
      __H2H_DIGEST_JSON__: JSON.stringify(JSON.stringify(buildContractDigest(buildContract(profile.gaps)))),
    },
  });
  return names.map((script) => {
    const path = join(resolve(outDir), `${script}.js`);
    return { script, path, bytes: statSync(path).size };
  });
}
