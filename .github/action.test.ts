/**
 * The repository's GitHub Action (action.yml at the root), run by the workflow runner stand-in as a
 * workflow's `uses: ./` step: what it hands certify (no blank H2H_* variable, inputs over the
 * caller's env, relative paths read from the workspace, --deadline), its guard against a key with
 * no target, its outputs, and its JUnit publishing and upload whatever certify's exit code. The
 * action.yml is the shipped one, unchanged; `npm run certify` in the workspace is a stand-in that
 * prints what it was given and writes a report (the real certification runs in
 * workflows-run.test.ts, through the shipped workflows).
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type JobRun, loadAction, loadWorkflow, runJob } from "./workflow-runner.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Prints its arguments and H2H_* environment, writes a report with $FAKE_VERDICT, exits $FAKE_EXIT. */
const FAKE_CERTIFY = `set -eu
echo "certify args: [$*] cwd: $PWD"
env | grep '^H2H_' | sort | sed 's/^/certify env: /' || true
mkdir -p "$H2H_REPORT_DIR"
printf '{"verdict":"%s"}' "$FAKE_VERDICT" > "$H2H_REPORT_DIR/h2h-certify.json"
echo '<testsuites/>' > "$H2H_REPORT_DIR/h2h-certify.junit.xml"
exit "$FAKE_EXIT"
`;

interface Case {
  with?: Record<string, string>;
  /** The calling job's env. */
  env?: Record<string, string>;
  verdict?: string;
  exit?: number;
}

async function runAction(c: Case): Promise<JobRun & { workspace: string }> {
  const workspace = mkdtempSync(join(tmpdir(), "h2h-action-test-"));
  dirs.push(workspace);
  cpSync(join(ROOT, "action.yml"), join(workspace, "action.yml"));
  cpSync(join(ROOT, "package-lock.json"), join(workspace, "package-lock.json"));
  writeFileSync(
    join(workspace, "package.json"),
    JSON.stringify({ name: "stand-in", private: true, scripts: { certify: "exec bash fake-certify.sh" } }),
  );
  writeFileSync(join(workspace, "fake-certify.sh"), FAKE_CERTIFY);
  const yaml = (values: Record<string, string>) =>
    Object.entries(values)
      .map(([key, value]) => `          ${key}: ${JSON.stringify(value)}\n`)
      .join("");
  const jobEnv = { FAKE_VERDICT: c.verdict ?? "conformant", FAKE_EXIT: String(c.exit ?? 0), ...c.env };
  const workflow = `on: workflow_dispatch
jobs:
  job:
    runs-on: ubuntu-latest
    env:
${yaml(jobEnv).replaceAll("          ", "      ")}    steps:
      - id: h2h
        name: Certify
        uses: ./
${c.with ? `        with:\n${yaml(c.with)}` : ""}`;
  const template = await loadWorkflow("test.yml", workflow);
  const job = await runJob(
    workflow,
    template,
    "job",
    { event: "workflow_dispatch" },
    {
      workspace,
      env: { PATH: process.env.PATH as string, HOME: process.env.HOME ?? workspace },
      artifacts: join(workspace, "..", `${workspace.split("/").pop()}-artifacts`),
      stepTimeoutMs: 60_000,
    },
  );
  dirs.push(join(workspace, "..", `${workspace.split("/").pop()}-artifacts`));
  return { ...job, workspace };
}

function step(job: JobRun, name: string) {
  const found = job.steps.find((s) => s.name === name);
  if (!found) throw new Error(`no step ${name}: ${job.steps.map((s) => s.name).join(", ")}`);
  return found;
}

/** The H2H_* variables certify was started with. */
function certifyEnv(job: JobRun): Record<string, string> {
  const lines = step(job, "Certify / Certify").output.split("\n");
  return Object.fromEntries(
    lines
      .filter((line) => line.startsWith("certify env: "))
      .map((line) => {
        const text = line.slice("certify env: ".length);
        return [text.slice(0, text.indexOf("=")), text.slice(text.indexOf("=") + 1)];
      }),
  );
}

const story = (job: JobRun) => job.steps.map((s) => `${s.outcome} ${s.name}\n${s.output}`).join("\n");

describe.concurrent("the GitHub Action (action.yml), run as a workflow's `uses: ./` step", () => {
  it("is an action GitHub's action parser accepts, composite, with the outputs verdict and report-dir", async () => {
    const { action } = await loadAction(ROOT);
    expect(action.runs.using).toBe("composite");
    expect((action.outputs ?? []).map((o) => o.id)).toEqual(["verdict", "report-dir"]);
  });

  it("with nothing set: no H2H_* variable is passed on, reports in the workspace, outputs, JUnit and upload", async () => {
    const job = await runAction({});
    expect(job.conclusion, story(job)).toBe("success");
    const env = certifyEnv(job);
    expect(env).toEqual({ H2H_REPORT_DIR: join(job.workspace, "reports") });
    const certify = step(job, "Certify / Certify").output;
    expect(certify).toMatch(/^H2H_BASE_URL: not set$/m);
    expect(certify).toMatch(/^H2H_API_KEY: not set$/m);
    expect(certify).toContain("certify args: [] cwd:");
    expect(step(job, "Certify").outputs).toEqual({
      verdict: "conformant",
      "report-dir": join(job.workspace, "reports"),
    });
    expect(step(job, "Certify / Set up Node.js").outcome).toBe("success");
    // The npm cache is keyed by the action's own lock file (setup-node's cache reads the workspace's).
    expect(step(job, "Certify / Cache npm's downloads").output).toMatch(
      /^cache h2h-certify-npm-Linux-[0-9a-f]{64}: /,
    );
    expect(step(job, "Certify / Publish the JUnit report").output).toContain("h2h-certify.junit.xml");
    expect(readdirSync(job.uploads["h2h-certify-reports"] as string).sort()).toEqual([
      "h2h-certify.json",
      "h2h-certify.junit.xml",
    ]);
  });

  it("with the typical settings: the URL and key passed on, a relative profile read from the workspace", async () => {
    const job = await runAction({
      with: { "base-url": "http://127.0.0.1:9", "api-key": "key-1", profile: "h2h/profile.json" },
    });
    expect(job.conclusion, story(job)).toBe("success");
    expect(certifyEnv(job)).toMatchObject({
      H2H_BASE_URL: "http://127.0.0.1:9",
      H2H_API_KEY: "key-1",
      H2H_PROFILE: join(job.workspace, "h2h/profile.json"),
    });
  });

  it("every input given as GitHub gives an unset one (''): unset, and the caller's own H2H_* env stays", async () => {
    const inputs = (await loadAction(ROOT)).action.inputs ?? [];
    const job = await runAction({
      with: Object.fromEntries(inputs.map((input) => [input.id, ""])),
      // A job that sets a variable itself, and one that passes a blank from vars.X.
      env: { H2H_DEPTH: "thorough", H2H_SEED: "", H2H_REPORT_DIR: "out/h2h" },
    });
    expect(job.conclusion, story(job)).toBe("success");
    const env = certifyEnv(job);
    expect(Object.entries(env).filter(([, value]) => value === "")).toEqual([]);
    expect(env).toEqual({ H2H_DEPTH: "thorough", H2H_REPORT_DIR: join(job.workspace, "out/h2h") });
    expect(step(job, "Certify / Certify").output).toMatch(/^H2H_SEED: not set$/m);
    // node-version '': the Node.js already on PATH.
    expect(step(job, "Certify / Set up Node.js").outcome).toBe("skipped");
    expect(step(job, "Certify").outputs?.["report-dir"]).toBe(join(job.workspace, "out/h2h"));
  });

  it("with everything set: each input as its variable, --deadline, the URL certified and the image left out", async () => {
    const job = await runAction({
      with: {
        "base-url": "http://127.0.0.1:9",
        "target-image": "registry.example/acme/pay-sandbox:2.4.1",
        "target-env": "LOG_LEVEL=debug",
        "target-ready": "/health",
        "target-startup-s": "90",
        profile: "/abs/profile.json",
        "api-key": "key-1",
        "api-key-2": "key-2",
        "callback-secret": "secret-1",
        "sink-public-url": "https://tunnel.example",
        "sink-port": "8787",
        "baseline-report": "previous/h2h-certify.json",
        depth: "thorough",
        seed: "42",
        deadline: "600",
        "report-dir": "custom/reports",
        "check-name": "Sandbox certification",
        "artifact-name": "sandbox-reports",
        "retention-days": "7",
        "node-version": "20",
      },
      env: { H2H_DEPTH: "quick" },
    });
    expect(job.conclusion, story(job)).toBe("success");
    expect(certifyEnv(job)).toEqual({
      H2H_BASE_URL: "http://127.0.0.1:9",
      H2H_PROFILE: "/abs/profile.json",
      H2H_API_KEY: "key-1",
      H2H_API_KEY_2: "key-2",
      H2H_CALLBACK_SECRET: "secret-1",
      H2H_SINK_PUBLIC_URL: "https://tunnel.example",
      H2H_SINK_PORT: "8787",
      H2H_BASELINE_REPORT: join(job.workspace, "previous/h2h-certify.json"),
      H2H_DEPTH: "thorough",
      H2H_SEED: "42",
      H2H_REPORT_DIR: join(job.workspace, "custom/reports"),
    });
    const certify = step(job, "Certify / Certify").output;
    expect(certify).toContain("certify args: [--deadline 600]");
    expect(certify).toContain(
      "H2H_BASE_URL is set: certifying it; H2H_TARGET_IMAGE and its settings are left out",
    );
    expect(job.uploads["sandbox-reports"]).toBeDefined();
  });

  it("the step's outcome carries the verdict: not conformant (exit 1) fails it, the JUnit and reports still go", async () => {
    const job = await runAction({ verdict: "not conformant", exit: 1 });
    expect(job.conclusion).toBe("failure");
    expect(step(job, "Certify / Certify").exitCode).toBe(1);
    expect(step(job, "Certify").outcome).toBe("failure");
    expect(step(job, "Certify").outputs?.verdict).toBe("not conformant");
    expect(step(job, "Certify / Publish the JUnit report").outcome).toBe("success");
    expect(job.uploads["h2h-certify-reports"]).toBeDefined();
  });

  it("a key with no target: exit 64 naming the input, the key never printed, verdict empty", async () => {
    const job = await runAction({ with: { "api-key": "key-of-a-foreign-sandbox" } });
    expect(job.conclusion).toBe("failure");
    const certify = step(job, "Certify / Certify");
    expect(certify.exitCode).toBe(64);
    expect(certify.output).toMatch(/::error::H2H_API_KEY is set but no target is: give the action base-url/);
    expect(job.steps.map((s) => s.output).join("")).not.toContain("key-of-a-foreign-sandbox");
    expect(step(job, "Certify").outputs?.verdict).toBe("");
    expect(step(job, "Certify / Publish the JUnit report").outcome).toBe("skipped");
    expect(step(job, "Certify / Upload the reports").outcome).toBe("success");
  });
});
