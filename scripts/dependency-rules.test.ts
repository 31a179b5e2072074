/**
 * The dependency rules (.dependency-cruiser.mjs) catch what they are for: a small tree planted
 * in a temporary folder with one violation of each kind, and clean imports beside them.
 * `npm run deps` holds the real tree to the same rules.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileTimeout } from "../fixtures/testing/index.ts";

fileTimeout(60_000);

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CONFIG = join(ROOT, ".dependency-cruiser.mjs");
const DEPCRUISE = join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

/** The planted tree: path → source. */
const PLANTED: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", allowImportingTsExtensions: true },
  }),
  "contract/schemas/names.ts": "export const NAMES = 1;\n",
  "contract/schemas/index.ts": 'export { NAMES } from "./names.ts";\nexport { ping } from "./ping.ts";\n',
  "contract/index.ts": 'export { NAMES, ping } from "./schemas/index.ts";\n',
  // A cycle inside the contract's bottom job.
  "contract/schemas/ping.ts": 'import { pong } from "./pong.ts";\nexport const ping = () => pong();\n',
  "contract/schemas/pong.ts": 'import { ping } from "./ping.ts";\nexport const pong = () => ping;\n',
  // An upward import: the contract reaching up into certify, and one job of it into a higher one.
  "contract/schemas/upward.ts":
    'import { runCertification } from "../../certify/index.ts";\nexport const up = runCertification;\n',
  "contract/checks/index.ts": "export const check = 1;\n",
  "contract/schemas/up-a-job.ts": 'import { check } from "../checks/index.ts";\nexport const up = check;\n',
  "certify/index.ts": "export const runCertification = () => 0;\n",
  // Deep imports: past the contract's door, and from one job of it past another's index.ts.
  "certify/deep.ts": 'import { pong } from "../contract/schemas/pong.ts";\nexport const deep = pong;\n',
  "contract/checks/deep.ts": 'import { pong } from "../schemas/pong.ts";\nexport const deep = pong;\n',
  // A sibling import within a layer.
  "webhook-sink/index.ts":
    'import { TEST_CARD } from "../fixtures/index.ts";\nexport const card = TEST_CARD;\n',
  "fixtures/index.ts": "export const TEST_CARD = 1;\n",
  // The clean-room provider using the suite's test data: it may use no sibling at all.
  "fixtures/providers/cleanroom/index.ts":
    'import { TEST_CARD } from "../../index.ts";\nexport const card = TEST_CARD;\n',
  // k6 code using a Node.js module.
  "load/lib/flow.ts": 'import { readFileSync } from "node:fs";\nexport const read = readFileSync;\n',
  "load/index.ts": "export const load = 1;\n",
  // load reaching into certify, its sibling, from its code and from a test.
  "load/harness/run.ts":
    'import { runCertification } from "../../certify/index.ts";\nexport const run = runCertification;\n',
  "load/harness/run.test.ts":
    'import { runCertification } from "../../certify/index.ts";\nexport const run = runCertification;\n',
  // Clean: what both need to open a target, through run-setup/'s surface.
  "run-setup/index.ts": "export const readSettings = () => ({});\n",
  "load/harness/settings.ts":
    'import { readSettings } from "../../run-setup/index.ts";\nexport const settings = readSettings;\n',
  // The load scenarios sit below run-setup, which reads their list: they may not reach up into load.
  "load/scenarios/index.ts":
    'import { read } from "../lib/flow.ts";\nexport const SCENARIO_NAMES = [read.name];\n',
  "run-setup/scenario-setting.ts":
    'import { SCENARIO_NAMES } from "../load/scenarios/index.ts";\nexport const names = SCENARIO_NAMES;\n',
  // The clean ones: the sink's server through the contract's door, a job through another's index.ts.
  "webhook-sink/server.ts": 'import { NAMES } from "../contract/index.ts";\nexport const names = NAMES;\n',
  "contract/checks/names.ts": 'import { NAMES } from "../schemas/index.ts";\nexport const names = NAMES;\n',
};

let dir: string;
let violations: Violation[];

async function cruise(cwd: string, folders: string[]): Promise<Violation[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [DEPCRUISE, "--config", CONFIG, "--output-type", "json", ...folders],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const found = (rule: string, from: string, to: string) =>
  violations.some((v) => v.rule.name === rule && v.from === from && v.to === to);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "h2h-deps-"));
  for (const [path, source] of Object.entries(PLANTED)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), source);
  }
  violations = await cruise(dir, ["contract", "certify", "webhook-sink", "fixtures", "run-setup", "load"]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("dependency rules", () => {
  it("catch a planted cycle", () => {
    const cycles = violations.filter((v) => v.rule.name === "no-cycles");
    expect(cycles).toHaveLength(1);
    const modules = [cycles[0]?.from, ...(cycles[0]?.cycle ?? []).map((step) => step.name)];
    expect(new Set(modules)).toEqual(new Set(["contract/schemas/ping.ts", "contract/schemas/pong.ts"]));
  });

  it("catch a planted upward import", () => {
    expect(
      found("no-upward-import-from-contract-schemas", "contract/schemas/upward.ts", "certify/index.ts"),
    ).toBe(true);
    expect(
      found(
        "no-upward-import-from-contract-schemas",
        "contract/schemas/up-a-job.ts",
        "contract/checks/index.ts",
      ),
    ).toBe(true);
  });

  it("catch a deep import past a package's index.ts", () => {
    expect(found("no-deep-import-into-contract-schemas", "certify/deep.ts", "contract/schemas/pong.ts")).toBe(
      true,
    );
    expect(
      found("no-deep-import-into-contract-schemas", "contract/checks/deep.ts", "contract/schemas/pong.ts"),
    ).toBe(true);
  });

  it("catch a sibling import within a layer", () => {
    expect(found("no-sibling-import-from-webhook-sink", "webhook-sink/index.ts", "fixtures/index.ts")).toBe(
      true,
    );
  });

  it("catch a provider using a package beside it", () => {
    expect(
      found(
        "no-sibling-import-from-fixtures-providers-cleanroom",
        "fixtures/providers/cleanroom/index.ts",
        "fixtures/index.ts",
      ),
    ).toBe(true);
  });

  it("catch a Node.js module in k6 code", () => {
    expect(found("k6-code-stays-k6-safe", "load/lib/flow.ts", "fs")).toBe(true);
  });

  it("catch load using certify, in its code and in its tests", () => {
    expect(found("no-sibling-import-from-load", "load/harness/run.ts", "certify/index.ts")).toBe(true);
    expect(found("no-certify-in-load-tests", "load/harness/run.test.ts", "certify/index.ts")).toBe(true);
  });

  it("catch a load scenario reaching up into load's k6 code, and let run-setup read the list", () => {
    expect(found("no-upward-import-from-load-scenarios", "load/scenarios/index.ts", "load/lib/flow.ts")).toBe(
      true,
    );
    expect(found("no-deep-import-into-load", "load/scenarios/index.ts", "load/lib/flow.ts")).toBe(true);
    expect(violations.some((v) => v.from === "run-setup/scenario-setting.ts")).toBe(false);
  });

  it("let an import through a package's index.ts pass, and report nothing else", () => {
    expect(violations.some((v) => v.from === "webhook-sink/server.ts")).toBe(false);
    expect(violations.some((v) => v.from === "contract/checks/names.ts")).toBe(false);
    expect(violations.some((v) => v.from === "load/harness/settings.ts")).toBe(false);
    expect(violations).toHaveLength(12);
  });
});
