/**
 * Bundles the k6 scripts (esbuild): one self-contained ES module per script in load/dist/, with
 * k6's built-in modules left external and nothing else, so each runs unchanged in plain k6, the
 * k6 operator and k6 cloud. The target profile and the contract digest are fixed into the bundle.
 */
import { readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import {
  buildContract,
  byOrderKind,
  CONFIRMED_STATUSES,
  type ConfirmedStatus,
  type OrderKind,
  type Profile,
  STATUS,
} from "../../contract/index.ts";
import { COMPILED } from "../../contract/kit/index.ts";
import type { BundledProfile } from "../lib/config.ts";
import { buildContractDigest } from "./digest.ts";

export const LOAD_DIR = fileURLToPath(new URL("..", import.meta.url));
export const DIST_DIR = join(LOAD_DIR, "dist");
const SCRIPTS_DIR = join(LOAD_DIR, "scripts");

/** What the k6 scripts need of a target profile. */
export function bundledProfileOf(profile: Profile): BundledProfile {
  const codeOf = (status: ConfirmedStatus) => {
    const trigger = profile.callbackTriggers[status];
    return "code" in trigger ? trigger.code : undefined;
  };
  const codes: BundledProfile["codes"] = {
    [STATUS.succeeded]: codeOf(STATUS.succeeded) ?? profile.confirmation.successCode,
  };
  for (const status of CONFIRMED_STATUSES) {
    const code = codeOf(status);
    if (status !== STATUS.succeeded && code !== undefined) codes[status] = code;
  }
  const methodOf = (kind: OrderKind) => {
    const { methodID, amount, requires } = profile.methods[kind];
    return { methodID, amount, requires };
  };
  return {
    methods: byOrderKind(methodOf),
    codes,
    expectedStatus: profile.expectedStatus,
    requestTimeoutMs: profile.timeouts.requestMs,
  };
}

export interface BuiltBundle {
  script: string;
  path: string;
  bytes: number;
}

/** The k6 scripts' extension: their TypeScript in a checkout, compiled in the installed package. */
const SCRIPT_EXTENSION = COMPILED ? ".js" : ".ts";

export function scriptNames(): string[] {
  return readdirSync(SCRIPTS_DIR)
    .filter((name) => name.endsWith(SCRIPT_EXTENSION) && !name.endsWith(`.test${SCRIPT_EXTENSION}`))
    .map((name) => basename(name, SCRIPT_EXTENSION))
    .sort();
}

export async function buildLoadBundles(profile: Profile, outDir = DIST_DIR): Promise<BuiltBundle[]> {
  const names = scriptNames();
  await build({
    entryPoints: Object.fromEntries(
      names.map((name) => [name, join(SCRIPTS_DIR, `${name}${SCRIPT_EXTENSION}`)]),
    ),
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
      __H2H_PROFILE__: JSON.stringify(bundledProfileOf(profile)),
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
