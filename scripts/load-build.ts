/** `npm run load:build`: bundles the k6 scripts into load/dist/ and prints their sizes. */
import { resolve } from "node:path";
import { REFERENCE_PROFILE_PATH } from "../certify/settings.ts";
import { CHECK_REGISTRY } from "../contract/checks/index.ts";
import { loadProfile } from "../contract/profile.ts";
import { buildLoadBundles } from "../load/harness/build.ts";
import { runCli } from "./cli.ts";

await runCli(async () => {
  const profilePath = process.env.H2H_PROFILE ? resolve(process.env.H2H_PROFILE) : REFERENCE_PROFILE_PATH;
  const profile = await loadProfile(profilePath, new Set(CHECK_REGISTRY.keys()));
  const bundles = await buildLoadBundles(profile);
  console.log(`k6 bundles for profile "${profile.name}":`);
  for (const bundle of bundles) console.log(`  ${bundle.path}  ${(bundle.bytes / 1024).toFixed(1)} KiB`);
  return 0;
});
