/**
 * The package as a team gets it: `npm pack` (which builds dist/ first), the tarball installed in
 * an empty folder, and there `npx h2h-certify certify` green against the bundled provider with no
 * Vitest installed (an optional peer), then, Vitest added as a team adds it, `npx vitest run` with
 * the Vitest entry green against a provider running on its own; publint and
 * @arethetypeswrong/cli find nothing; `npm publish --dry-run` is clean. Slow (a build and an
 * install): `npm run test:package`, which CI runs after npm test.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { REPORT_FILES } from "../../certify/index.ts";
import { PROJECT_ROOT } from "../../run-setup/index.ts";

const work = mkdtempSync(join(tmpdir(), "h2h-package-"));
const app = join(work, "app");
let tarball = "";
/** The Vitest this checkout tests with: the one a team installs beside the package here. */
const VITEST_VERSION: string = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8"))
  .devDependencies.vitest;

/** A command's exit and output; its environment without npm's own (this test may run under npm). */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$|H2H_)/i.test(name)),
  );
  const result = spawnSync(command, args, {
    cwd,
    env: { ...clean, ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, out: `${result.stdout}\n${result.stderr}` };
}

beforeAll(() => {
  const packed = run("npm", ["pack", "--pack-destination", work, "--json"], PROJECT_ROOT);
  expect(packed.status, packed.out).toBe(0);
  tarball = join(work, readdirSync(work).find((name) => name.endsWith(".tgz")) as string);
  rmSync(join(app), { recursive: true, force: true });
  spawnSync("mkdir", ["-p", app]);
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: "app", private: true, type: "module" })}\n`,
  );
  const installed = run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--save-dev", tarball],
    app,
  );
  expect(installed.status, installed.out).toBe(0);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the installed package", () => {
  test("ships compiled JavaScript and what it reads, and no tests, benchmarks or TypeScript sources", () => {
    const listed = run("tar", ["-tzf", tarball], work).out.split("\n").filter(Boolean);
    expect(listed).toContain("package/dist/certify/specs/callbacks.spec.js");
    expect(listed).toContain("package/dist/scripts/h2h-certify.js");
    expect(listed).toContain("package/dist/certify/engine/spec-host.d.ts");
    expect(listed).toContain("package/dist/THIRD-PARTY-NOTICES.txt");
    // Bundled: what the entries share is in chunks, not in the modules tsc wrote.
    expect(listed).not.toContain("package/dist/certify/engine/spec-host.js");
    expect(listed).toContain("package/dist/fixtures/profiles/profile.schema.json");
    expect(listed).toContain("package/docs/api.md");
    const unwanted = listed.filter(
      (file) =>
        /\.test\.|\/testing\/|\/bench\/|\/selftest\/|\/harness\/fixtures\//.test(file) ||
        (file.endsWith(".ts") && !file.endsWith(".d.ts")),
    );
    expect(unwanted).toEqual([]);
    expect(existsSync(join(app, "node_modules", "tsx"))).toBe(false);
  });

  test("every command it lists loads there: its --help", () => {
    const bin = join(app, "node_modules", ".bin", "h2h-certify");
    const list = run(bin, ["--help"], app);
    expect(list.status, list.out).toBe(0);
    const names = [...list.out.matchAll(/^ {2}(\S+)\s{2,}/gm)].map((match) => match[1] as string);
    expect(names).toContain("certify");
    const failing = names
      .map((name) => ({ name, ...run(bin, [name, "--help"], app) }))
      .filter((help) => help.status !== 0)
      .map((help) => `${help.name}: ${help.out.trim().split("\n")[0]}`);
    expect(failing).toEqual([]);
  });

  test("npx h2h-certify certify certifies the bundled provider, reports in the user's folder", () => {
    // Vitest is an optional peer: certify runs the specs itself.
    expect(existsSync(join(app, "node_modules", "vitest"))).toBe(false);
    const certified = run("npx", ["h2h-certify", "certify"], app, { H2H_REPORT_DIR: "my-reports" });
    expect(certified.status, certified.out).toBe(0);
    expect(certified.out).toMatch(/CONFORMANT/);
    expect(existsSync(join(app, "my-reports", REPORT_FILES.json))).toBe(true);
  });

  test("certify(settings) from the package's API returns the run, paths read from the user's folder", () => {
    const script = [
      'import { certify } from "h2h-certify";',
      'const { report, paths } = await certify({ reportDir: "api-reports" });',
      'console.log("verdict", report.verdict, paths.json);',
    ].join("\n");
    const called = run("node", ["--input-type=module", "-e", script], app);
    expect(called.status, called.out).toBe(0);
    expect(called.out).toContain(`verdict conformant ${join(app, "api-reports", REPORT_FILES.json)}`);
  });

  test("the Vitest entry runs the contract specs against a running provider", async () => {
    // As a team adds it: its own Vitest, within the range the package names.
    const vitest = run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--save-dev", `vitest@${VITEST_VERSION}`],
      app,
    );
    expect(vitest.status, vitest.out).toBe(0);
    // The installed bin itself, not through npx: npx would leave it running when stopped.
    const bin = join(app, "node_modules", ".bin", "h2h-certify");
    const provider: ChildProcess = spawn(process.execPath, [bin, "provider", "--port", "0"], {
      cwd: app,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => provider.once("exit", resolve));
    try {
      const baseUrl = await new Promise<string>((resolve, reject) => {
        let text = "";
        provider.stdout?.on("data", (chunk: Buffer) => {
          text += chunk.toString();
          const url = /http:\/\/127\.0\.0\.1:\d+/.exec(text)?.[0];
          if (url) resolve(url);
        });
        provider.once("exit", (code) => reject(new Error(`the provider exited (${code}): ${text}`)));
      });
      writeFileSync(
        join(app, "vitest.config.js"),
        [
          'import { defineConfig } from "vitest/config";',
          'import { contractProject } from "h2h-certify/vitest";',
          "export default defineConfig({ test: { projects: [contractProject()] } });",
          "",
        ].join("\n"),
      );
      const tested = await new Promise<{ status: number | null; out: string }>((resolve) => {
        const child = spawn("npx", ["vitest", "run"], {
          cwd: app,
          env: { ...process.env, H2H_BASE_URL: baseUrl, H2H_WORKERS: "1" },
        });
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
        child.once("exit", (status) => resolve({ status, out }));
      });
      expect(tested.status, tested.out).toBe(0);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: Vitest's colours
      expect(tested.out.replace(/\x1b\[[\d;]*m/g, "")).toMatch(/Test Files\s+\d+ passed \(\d+\)\n/);
    } finally {
      provider.kill("SIGTERM");
      await exited;
    }
  });

  test("publint and arethetypeswrong find nothing; npm publish --dry-run is clean", () => {
    const bin = (name: string) => join(PROJECT_ROOT, "node_modules", ".bin", name);
    const lint = run(bin("publint"), ["run", "--strict", tarball], PROJECT_ROOT);
    expect(lint.status, lint.out).toBe(0);
    expect(lint.out).not.toMatch(/warning|error|suggestion/i);
    // The package is ESM only (`"type": "module"`, Node.js 20.19+, which require()s ES modules):
    // the node10 and CommonJS-resolution profiles do not apply.
    const types = run(bin("attw"), ["--profile", "esm-only", tarball], PROJECT_ROOT);
    expect(types.status, types.out).toBe(0);
    const dry = run("npm", ["publish", "--dry-run", tarball], work);
    expect(dry.status, dry.out).toBe(0);
    // No account is logged in here, which a dry run only mentions: any other warning is the package's.
    const warnings = dry.out
      .split("\n")
      .filter((line) => /npm warn/i.test(line) && !/requires you to be logged in/.test(line));
    expect(warnings).toEqual([]);
  });
});
