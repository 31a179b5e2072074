import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DIST_ROOT, pinModuleUrls } from "./build.ts";

/** Runs pinned module code with dist/ at `root`, and returns what it exported as `out`. */
async function run(code: string, root: string): Promise<unknown> {
  const source = `const ${DIST_ROOT} = new URL(${JSON.stringify(root)});\n${code}`;
  const module = (await import(`data:text/javascript,${encodeURIComponent(source)}`)) as { out: unknown };
  return module.out;
}

describe("a module's own URL, pinned before bundling", () => {
  it("is its compiled file's, for import.meta.url, .filename and .dirname", async () => {
    const code = [
      "export const out = [import.meta.url, import.meta.filename, import.meta.dirname,",
      '  new URL("../fixtures/profiles/reference.json", import.meta.url).href];',
    ].join("\n");
    const out = await run(pinModuleUrls("run-setup/settings.js", code), "file:///app/dist/");
    expect(out).toEqual([
      "file:///app/dist/run-setup/settings.js",
      fileURLToPath("file:///app/dist/run-setup/settings.js"),
      fileURLToPath("file:///app/dist/run-setup"),
      "file:///app/dist/fixtures/profiles/reference.json",
    ]);
  });

  it("leaves a string that spells import.meta.url as it is", async () => {
    const banner = "const require = createRequire(import.meta.url);";
    const code = `export const out = ${JSON.stringify(banner)}; // import.meta.url in a comment`;
    expect(await run(pinModuleUrls("fixtures/providers/reference-image/build.js", code), "file:///d/")).toBe(
      banner,
    );
  });

  it("refuses a use of import.meta it cannot keep, naming the file", () => {
    expect(() => pinModuleUrls("x/y.js", 'export const out = import.meta.resolve("./z.js");')).toThrow(
      "x/y.js: a use of import.meta the bundle cannot keep",
    );
  });
});
