/**
 * `npm run openapi`: writes the OpenAPI 3.1 document generated from the zod contract.
 * `--out FILE` chooses where (default: openapi/h2h-api.openapi.json).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildOpenApiDocument } from "../contract/openapi.ts";
import { runCli, UsageError } from "./cli.ts";

await runCli(async () => {
  let out: string;
  try {
    const { values } = parseArgs({ options: { out: { type: "string" } }, strict: true });
    out = resolve(values.out ?? "openapi/h2h-api.openapi.json");
  } catch (error) {
    throw new UsageError(
      `${error instanceof Error ? error.message : String(error)}\nusage: npm run openapi -- [--out FILE]`,
    );
  }
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
  console.log(`OpenAPI 3.1 document written to ${out}`);
  return 0;
});
