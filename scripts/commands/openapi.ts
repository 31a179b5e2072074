/** `npm run openapi`: the OpenAPI 3.1 document of one integration, from the zod contract and the profile. */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { buildOpenApiDocument, readProfile } from "../../contract/index.ts";
import { commandSettings, defineCommand, EXIT } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

export const openapi = defineCommand({
  name: "openapi",
  summary:
    "Writes the OpenAPI 3.1 document of the target's integration: the zod contract with the profile's\n" +
    "methods, declared request rules and pinned errors (H2H_PROFILE), and no advisory limit.",
  options: {
    out: {
      type: "string",
      value: "FILE",
      description: "where to write it (default: openapi/h2h-api.openapi.json)",
    },
  },
  settings: "openapi",
  exitCodes: BAD_SETTINGS_EXIT,
  knownErrors: BAD_SETTINGS,
  async run(options) {
    const settings = commandSettings("openapi");
    const profilePath = settings.profile;
    const profile = await readProfile(profilePath);
    // The default lies in the suite's folder (git ignores it); a given path is the user's.
    const out = options.out ? resolve(settings.cwd, options.out) : resolve("openapi/h2h-api.openapi.json");
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, `${JSON.stringify(buildOpenApiDocument(profile), null, 2)}\n`);
    console.log(`OpenAPI 3.1 document of profile "${profile.name}" (${profilePath}) written to ${out}`);
    return EXIT.ok;
  },
});
