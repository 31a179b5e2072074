/** `npm run openapi`: the OpenAPI 3.1 document generated from the zod contract. */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { buildOpenApiDocument } from "../../contract/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

export const openapi = defineCommand({
  name: "openapi",
  summary: "Writes the OpenAPI 3.1 document generated from the zod contract.",
  options: {
    out: {
      type: "string",
      value: "FILE",
      description: "where to write it (default: openapi/h2h-api.openapi.json)",
    },
  },
  async run(options) {
    const out = resolve(options.out ?? "openapi/h2h-api.openapi.json");
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
    console.log(`OpenAPI 3.1 document written to ${out}`);
    return EXIT.ok;
  },
});
