/**
 * The OpenAPI documents as tools other than the suite read them: each bundled profile's document
 * through two independent linters of OpenAPI and JSON Schema, Spectral (`spectral:oas`) and
 * Redocly (its recommended rules), run as their CLIs with no network, beside the schema validator
 * of openapi.test.ts; and no pattern in it that engines read differently, no empty open schema.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_FOREIGN_PROFILE_PATH, REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import { scaledMs } from "../../fixtures/testing/load-allowance.ts";
import { readProfile } from "../profile/index.ts";
import { wideClassesIn } from "../schemas/index.ts";
import { buildOpenApiDocument } from "./openapi.ts";

const run = promisify(execFile);
const bin = (path: string) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));
const SPECTRAL = bin("@stoplight/spectral-cli/dist/index.js");
const REDOCLY = bin("@redocly/cli/bin/cli.js");
/** Neither CLI phones home: Redocly's telemetry and update check are off. */
const OFFLINE_ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  NO_COLOR: "1",
};

const PROFILES = {
  reference: REFERENCE_PROFILE_PATH,
  cleanroom: fileURLToPath(new URL("../../fixtures/profiles/cleanroom.json", import.meta.url)),
  "example-foreign": EXAMPLE_FOREIGN_PROFILE_PATH,
};
type Name = keyof typeof PROFILES;
const NAMES = Object.keys(PROFILES) as Name[];

/** One finding of a linter, in the words the closing note lists them. */
interface Finding {
  severity: "error" | "warning" | "info";
  rule: string;
  message: string;
  where: string;
}

let dir = "";
const documents = {} as Record<Name, Record<string, unknown>>;
const files = {} as Record<Name, string>;
let bySpectral: Record<Name, Finding[]>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "h2h-openapi-lint-"));
  for (const name of NAMES) {
    documents[name] = buildOpenApiDocument(await readProfile(PROFILES[name]));
    files[name] = join(dir, `${name}.openapi.json`);
    await writeFile(files[name], JSON.stringify(documents[name], null, 2));
  }
  await writeFile(join(dir, ".spectral.yaml"), 'extends: ["spectral:oas"]\n');
  await writeFile(join(dir, "redocly.yaml"), "extends:\n  - recommended\n");
  bySpectral = await spectral();
}, scaledMs(120_000));

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A CLI that exits non-zero on findings: its output is still the answer. */
async function output(args: string[]): Promise<string> {
  try {
    const { stdout } = await run(process.execPath, args, {
      cwd: dir,
      env: OFFLINE_ENV,
      timeout: scaledMs(60_000),
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    if (stdout?.trim().startsWith("[") || stdout?.trim().startsWith("{")) return stdout;
    throw new Error(`${args[0]} failed: ${stderr ?? String(error)}`);
  }
}

const SPECTRAL_SEVERITY = ["error", "warning", "info", "info"] as const;

/** Spectral's findings for every document, from one run (its start is most of its time). */
async function spectral(): Promise<Record<Name, Finding[]>> {
  const ruleset = join(dir, ".spectral.yaml");
  const stdout = await output([
    SPECTRAL,
    "lint",
    ...NAMES.map((name) => files[name]),
    "--ruleset",
    ruleset,
    "--format",
    "json",
    "--quiet",
  ]);
  const results = JSON.parse(stdout) as {
    code: string;
    message: string;
    severity: number;
    path: string[];
    source: string;
  }[];
  const byFile = Object.fromEntries(NAMES.map((name) => [name, [] as Finding[]])) as Record<Name, Finding[]>;
  for (const r of results) {
    const name = NAMES.find((n) => r.source === files[n]);
    if (!name) throw new Error(`Spectral reported on ${r.source}, not one of the documents`);
    byFile[name].push({
      severity: SPECTRAL_SEVERITY[r.severity] ?? "info",
      rule: r.code,
      message: r.message,
      where: r.path.join("."),
    });
  }
  return byFile;
}

async function redocly(name: Name): Promise<Finding[]> {
  const stdout = await output([
    REDOCLY,
    "lint",
    files[name],
    "--config",
    join(dir, "redocly.yaml"),
    "--format",
    "json",
  ]);
  const { problems } = JSON.parse(stdout) as {
    problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
  };
  return problems.map((p) => ({
    severity: p.severity === "error" ? "error" : p.severity === "warn" ? "warning" : "info",
    rule: p.ruleId,
    message: p.message,
    where: p.location[0]?.pointer ?? "",
  }));
}

/** Every `pattern` and `additionalProperties` below `node`, with its JSON pointer. */
function keywordsOf(node: unknown, keyword: string, at = "#"): { at: string; value: unknown }[] {
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => [
    ...(key === keyword ? [{ at: `${at}/${key}`, value }] : []),
    ...keywordsOf(value, keyword, `${at}/${key}`),
  ]);
}

/** The warnings each linter gives, accepted with the reason; anything else fails the test. */
const ACCEPTED_WARNINGS: Record<string, string> = {
  "info-contact": "the provider's contact is the provider's to publish, not the suite's",
  "info-license": "the provider's API license is the provider's to state, not the suite's",
};

describe.each(NAMES)("the OpenAPI document of the %s profile", (name) => {
  it("lints with no error, and only the accepted warnings, in Spectral (spectral:oas) and Redocly (recommended)", async () => {
    const byRedocly = await redocly(name);
    const findings = [
      ...bySpectral[name].map((f) => ({ ...f, linter: "spectral" })),
      ...byRedocly.map((f) => ({ ...f, linter: "redocly" })),
    ];
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.filter((f) => ACCEPTED_WARNINGS[f.rule] === undefined)).toEqual([]);
  });

  it("is valid OpenAPI 3.1 to the schema validator as well", async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(documents[name]) as unknown as Parameters<Validator["validate"]>[0],
    );
    expect(result.errors ?? []).toEqual([]);
  });

  it("has no pattern with a class engines read differently (\\d, \\w, \\s, \\b, \\p), and no additionalProperties {}", () => {
    const patterns = keywordsOf(documents[name], "pattern").filter((p) => typeof p.value === "string");
    expect(patterns.length).toBeGreaterThan(0);
    expect(patterns.filter((p) => wideClassesIn(p.value as string).length > 0)).toEqual([]);
    for (const p of patterns) expect(() => new RegExp(p.value as string, "u"), p.at).not.toThrow();
    const open = keywordsOf(documents[name], "additionalProperties").filter(
      (a) => typeof a.value === "object" && a.value !== null && Object.keys(a.value).length === 0,
    );
    expect(open).toEqual([]);
  });
});
