/** `npm run load:build`: bundles the k6 scripts into load/dist/ and prints their sizes. */

import { CHECK_REGISTRY, readProfile } from "../../contract/index.ts";
import { buildLoadBundles } from "../../load/index.ts";
import { commandSettings, defineCommand, EXIT } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

export const loadBuild = defineCommand({
  name: "load:build",
  summary: "Bundles the k6 load scripts for the target's profile into load/dist/ and prints their sizes.",
  options: {},
  settings: "load:build",
  exitCodes: BAD_SETTINGS_EXIT,
  knownErrors: BAD_SETTINGS,
  async run() {
    const profilePath = commandSettings("load:build").profile;
    const profile = await readProfile(profilePath, new Set(CHECK_REGISTRY.keys()));
    const bundles = await buildLoadBundles(profile);
    console.log(`k6 bundles for profile "${profile.name}":`);
    for (const bundle of bundles) console.log(`  ${bundle.path}  ${(bundle.bytes / 1024).toFixed(1)} KiB`);
    return EXIT.ok;
  },
});
