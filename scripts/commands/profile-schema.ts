/**
 * `npm run profile:schema`: writes the target profile's JSON Schema, generated from the zod schema
 * in contract/profile/profile.ts, every key described. Profiles point at it with `"$schema"`, so an editor
 * completes keys, shows what each is for and marks a mistake as it is typed. The file is written
 * in the repository's JSON format (Biome's), so `npm run lint` and the up-to-date test agree.
 */
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { profileJsonSchema } from "../../contract/index.ts";
import { PROFILE_SCHEMA_PATH } from "../../fixtures/profiles/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The schema as the repository keeps it: JSON, formatted by Biome (a dev dependency). */
function formatted(): string {
  const text = `${JSON.stringify(profileJsonSchema(), null, 2)}\n`;
  const biome = spawnSync(
    join(PROJECT_ROOT, "node_modules", ".bin", "biome"),
    ["format", `--stdin-file-path=${PROFILE_SCHEMA_PATH}`],
    { cwd: PROJECT_ROOT, input: text, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
  );
  if (biome.status !== 0 || !biome.stdout)
    throw new Error(`biome format failed: ${biome.stderr || biome.error}`);
  return biome.stdout.endsWith("\n") ? biome.stdout : `${biome.stdout}\n`;
}

export const profileSchema = defineCommand({
  name: "profile:schema",
  summary:
    "Writes the target profile's JSON Schema (generated from the zod schema, every key described) to\n" +
    'fixtures/profiles/profile.schema.json, which profiles reference with "$schema".',
  options: {
    out: {
      type: "string",
      value: "FILE",
      description: "where to write it (default: fixtures/profiles/profile.schema.json)",
    },
    check: { type: "boolean", description: "write nothing; exit 1 if the shipped file is not up to date" },
  },
  exitCodes: { [EXIT.failed]: "--check: the shipped schema is out of date (run npm run profile:schema)" },
  async run(options) {
    const out = options.out
      ? resolve(process.env.INIT_CWD ?? process.cwd(), options.out)
      : PROFILE_SCHEMA_PATH;
    const text = formatted();
    if (options.check) {
      const shipped = await readFile(out, "utf8").catch(() => "");
      const upToDate = JSON.stringify(JSON.parse(shipped || "null")) === JSON.stringify(JSON.parse(text));
      console.log(upToDate ? `${out} is up to date` : `${out} is out of date: run npm run profile:schema`);
      return upToDate ? EXIT.ok : EXIT.failed;
    }
    await writeFile(out, text);
    console.log(`profile JSON Schema written to ${out}`);
    return EXIT.ok;
  },
});
