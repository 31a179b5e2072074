/**
 * The shipped workflows, run here as GitHub's runner runs them on a fresh fork (workflow-runner.ts:
 * GitHub's parser and expression evaluator, unset variables, secrets and inputs as the empty strings
 * GitHub gives): each job with nothing set (the bundled provider), with the typical settings (a URL
 * and a key) and with everything set; the nightly on its first night and its second (the first
 * night's upload its baseline, the compare step green); a job cancelled as the runner cancels one
 * keeps its partial reports; and a workflow that hands GitHub's blanks to the suite is red.
 *
 * One copy of this checkout's files serves every job; each job gets a workspace of its own, its
 * node_modules links to this checkout's packages (the install step stands in for them). The certifications run at quick depth (the default) in one worker thread
 * (H2H_WORKERS, which vitest.config.ts sets and the runner's environment passes on).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { WorkflowTemplate } from "@actions/workflow-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseProfile } from "../contract/index.ts";
import { REFERENCE_API_KEYS, REFERENCE_CALLBACK_SECRET } from "../fixtures/providers/reference/index.ts";
import { startReferenceReceiver } from "../fixtures/receivers/reference/index.ts";
import { commandArgs, fileTimeout, scaledMs } from "../fixtures/testing/index.ts";
import {
  copyOfCheckout,
  fakeGh,
  freshWorkspace,
  type JobRun,
  loadWorkflow,
  type RunContext,
  runJob,
} from "./workflow-runner.ts";

fileTimeout(240_000);

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WORKFLOWS = join(ROOT, ".github", "workflows");
const read = (name: string) => readFileSync(join(WORKFLOWS, name), "utf8");

let copy: string;
let scratch: string;
let provider: { url: string; stop(): Promise<void> };
let receiverUrl: string;
let stopReceiver: () => Promise<void>;
const workspaces: string[] = [];
/**
 * Workspace folders free for a job: a job after another in the same folder finds the caches the
 * one before left in node_modules (Vitest's transformed modules, keyed by the folder), about a
 * fifth of a certification's CPU.
 */
const idleWorkspaces: string[] = [];
function takeWorkspace(): string {
  const idle = idleWorkspaces.pop();
  if (idle) return idle;
  const made = mkdtempSync(join(tmpdir(), "h2h-job-"));
  workspaces.push(made);
  return made;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "h2h-workflows-run-"));
  copy = copyOfCheckout(ROOT);
  // A merchant's file of known orders, committed to the fork (receiver.yml's input `orders`).
  const orders = ["mobile_commerce", "quasi_ecom"].flatMap((kind) =>
    [1, 2, 3, 4].map((n) => ({ id: `ci-${kind}-${n}`, amount: 1000 + n, kind })),
  );
  writeFileSync(join(copy, "ci-orders.json"), JSON.stringify(orders));
  provider = await startProvider();
  const profile = parseProfile(
    JSON.parse(readFileSync(join(ROOT, "fixtures/profiles/reference.json"), "utf8")),
    "reference",
  );
  const receiver = await startReferenceReceiver({ profile, secret: REFERENCE_CALLBACK_SECRET });
  receiverUrl = receiver.url;
  stopReceiver = () => receiver.stop();
});

afterAll(async () => {
  await provider?.stop();
  await stopReceiver?.();
  for (const dir of [copy, scratch, ...workspaces]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The sandbox the typical and full settings point at: `npm run provider` in a process of its own,
 * as a provider's sandbox is, so that this test's own work never holds its answers up.
 */
function startProvider(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...commandArgs("provider"), "--port", "0"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const url = /reference provider listening on (\S+)/.exec(output)?.[1];
      if (url) resolve({ url, stop });
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    void exited.then(() => reject(new Error(`npm run provider exited: ${output}`)));
  });
}

/** The runner's own environment: PATH (with a `gh` that serves this store's uploads), HOME, TMPDIR. */
function runnerEnv(artifacts: string): Record<string, string> {
  const bin = `${artifacts}-bin`;
  fakeGh(bin, artifacts);
  const keep = ["HOME", "TMPDIR", "LANG", "USER", "DOCKER_HOST", "H2H_WORKERS"];
  return {
    ...Object.fromEntries(keep.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : []))),
    PATH: `${bin}:${process.env.PATH}`,
  } as Record<string, string>;
}

const templates = new Map<string, Promise<WorkflowTemplate>>();
const templateOf = (name: string, content: string) => {
  const key = `${name}\n${content}`;
  if (!templates.has(key)) templates.set(key, loadWorkflow(name, content));
  return templates.get(key) as Promise<WorkflowTemplate>;
};

/** Runs the workflow's one job in a fresh workspace; `artifacts` is the store uploads go to and come from. */
async function run(
  name: string,
  context: RunContext,
  options: {
    artifacts?: string;
    content?: string;
    /** The action (action.yml) the workspace holds instead of this checkout's. */
    action?: string;
    cancel?: Parameters<typeof runJob>[4]["cancel"];
  } = {},
): Promise<JobRun> {
  const content = options.content ?? read(name);
  const template = await templateOf(name, content);
  const job = template.jobs[0];
  if (!job) throw new Error(`${name}: no job`);
  const artifacts = options.artifacts ?? mkdtempSync(join(scratch, "artifacts-"));
  mkdirSync(artifacts, { recursive: true });
  const workspace = await freshWorkspace(copy, ROOT, takeWorkspace());
  if (options.action !== undefined) writeFileSync(join(workspace, "action.yml"), options.action);
  try {
    return await runJob(content, template, job.id.value, context, {
      workspace,
      env: runnerEnv(artifacts),
      artifacts,
      stepTimeoutMs: scaledMs(180_000),
      ...(options.cancel ? { cancel: options.cancel } : {}),
    });
  } finally {
    idleWorkspaces.push(workspace);
  }
}

/** Every step's name, outcome and (for a failure) output, for an assertion's message. */
function story(job: JobRun): string {
  return job.steps
    .map(
      (s) =>
        `${s.outcome.padEnd(9)} ${s.name}${s.outcome === "success" && s.output.length > 300 ? "" : `\n${s.output.slice(-3_000)}`}`,
    )
    .join("\n");
}

function step(job: JobRun, name: string) {
  const found = job.steps.find((s) => s.name === name);
  if (!found) throw new Error(`no step "${name}" ran or was skipped:\n${story(job)}`);
  return found;
}

function expectGreen(job: JobRun): void {
  expect(job.skipped).toBeUndefined();
  expect(job.conclusion, story(job)).toBe("success");
}

/**
 * certify.yml's sink listens on its fixed H2H_SINK_PORT (8787, a tunnel's end): its jobs take
 * turns, as on GitHub each has a runner of its own. The other workflows' jobs run beside them.
 */
let port8787: Promise<unknown> = Promise.resolve();
function onPort8787<T>(job: () => Promise<T>): Promise<T> {
  const next = port8787.then(job, job);
  port8787 = next.catch(() => undefined);
  return next;
}

const keys = {
  H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
  H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
  H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
};

describe.concurrent("certify.yml, run as on a fresh fork", () => {
  it("with nothing set: certifies the bundled reference provider, publishes and uploads", async () => {
    const job = await onPort8787(() => run("certify.yml", { event: "workflow_dispatch" }));
    expectGreen(job);
    expect(step(job, "Certify").output).toContain("(bundled reference provider)");
    expect(step(job, "Certify").output).toMatch(/^H2H_BASE_URL: not set$/m);
    // The action's outputs, from the report it wrote.
    expect(step(job, "Certify").outputs).toEqual({
      verdict: "conformant",
      "report-dir": join(job.workspace, "reports"),
    });
    expect(step(job, "Certify / Publish the JUnit report").outcome).toBe("success");
    expect(job.uploads["h2h-certify-reports"], story(job)).toBeDefined();
    const uploaded = join(job.uploads["h2h-certify-reports"] as string, "h2h-certify.json");
    expect(JSON.parse(readFileSync(uploaded, "utf8")).verdict).toBe("conformant");
  });

  it("with the typical settings: the base URL and a key", async () => {
    const job = await onPort8787(() =>
      run("certify.yml", {
        event: "workflow_dispatch",
        inputs: { base_url: provider.url },
        secrets: { H2H_API_KEY: keys.H2H_API_KEY },
      }),
    );
    expectGreen(job);
    expect(step(job, "Certify").output).toContain(`certifying ${provider.url}`);
  });

  it("with everything set: URL, profile, tunnel URL and the three secrets", async () => {
    const job = await onPort8787(() =>
      run("certify.yml", {
        event: "workflow_dispatch",
        inputs: {
          base_url: provider.url,
          profile: "fixtures/profiles/reference.json",
          // The sink listens on H2H_SINK_PORT 8787: a tunnel ending there.
          sink_public_url: "http://127.0.0.1:8787",
        },
        secrets: keys,
      }),
    );
    expectGreen(job);
  });

  it("with a key and no base URL: an error that names the missing input, before any request", async () => {
    const job = await onPort8787(() =>
      run("certify.yml", {
        event: "workflow_dispatch",
        secrets: { H2H_API_KEY: "key-of-a-foreign-sandbox" },
      }),
    );
    expect(job.conclusion).toBe("failure");
    const certify = step(job, "Certify / Certify");
    expect(certify.exitCode).toBe(64);
    expect(certify.output).toMatch(/::error::H2H_API_KEY is set but no target is: give the action base-url/);
    expect(certify.output).not.toContain("key-of-a-foreign-sandbox");
    expect(step(job, "Certify").outputs?.verdict).toBe("");
  });
});

describe.concurrent("nightly.yml, run as on a fresh fork", () => {
  it("on its first night (no baseline) and its second (the first night's upload), compare green", async () => {
    const artifacts = mkdtempSync(join(scratch, "nights-"));
    const first = await run("nightly.yml", { event: "schedule", runId: "1001" }, { artifacts });
    expectGreen(first);
    expect(step(first, "Fetch the previous nights' reports").output).toContain(
      "baseline: none (first night)",
    );
    expect(step(first, "Certify").output).toMatch(/^H2H_BASELINE_REPORT: not set$/m);
    expect(step(first, "Compare with the previous nights").outcome).toBe("skipped");
    expect(first.uploads["h2h-certify-nightly"]).toBeDefined();

    const second = await run("nightly.yml", { event: "schedule", runId: "1002" }, { artifacts });
    expectGreen(second);
    expect(step(second, "Fetch the previous nights' reports").output).toContain(
      "baseline: previous/1001/h2h-certify.json",
    );
    expect(step(second, "Certify").output).toMatch(/since baseline run-/);
    expect(step(second, "Certify").outputs?.verdict).toBe("conformant");
    const compare = step(second, "Compare with the previous nights");
    expect(compare.outcome, compare.output).toBe("success");
    expect(compare.output).toMatch(/0 regression\(s\)/);
    expect(second.summary, "the comparison as the job summary").not.toBe("");
  });

  it("with the typical settings: vars.H2H_BASE_URL and secrets.H2H_API_KEY", async () => {
    const job = await run("nightly.yml", {
      event: "schedule",
      vars: { H2H_BASE_URL: provider.url },
      secrets: { H2H_API_KEY: keys.H2H_API_KEY },
    });
    expectGreen(job);
    expect(step(job, "Certify").output).toContain(`certifying ${provider.url}`);
  });

  it("with everything set: the URL wins over the image (said), no registry login", async () => {
    const job = await run("nightly.yml", {
      event: "schedule",
      vars: {
        H2H_BASE_URL: provider.url,
        H2H_TARGET_IMAGE: "registry.example/acme/pay-sandbox:2.4.1",
        H2H_TARGET_ENV: "LOG_LEVEL=debug",
        H2H_TARGET_READY: "/health",
        H2H_TARGET_STARTUP_S: "90",
        H2H_PROFILE: "fixtures/profiles/reference.json",
        REGISTRY: "registry.example",
      },
      secrets: { ...keys, REGISTRY_USER: "ci", REGISTRY_PASSWORD: "registry-password-1" },
    });
    expectGreen(job);
    expect(step(job, "Log in to the provider's registry").outcome).toBe("skipped");
    expect(step(job, "Certify").output).toContain(
      "H2H_BASE_URL is set: certifying it; H2H_TARGET_IMAGE and its settings are left out",
    );
  });

  it("is red when its action hands GitHub's blanks to the suite (the action's blank handling taken out)", async () => {
    const original = readFileSync(join(ROOT, "action.yml"), "utf8");
    // Every input exported as it is, blank or not, and no unsetting of blanks.
    const action = original
      .replace(/if \[ -n "\$\{!name\}" \]; then\n\s*(export "\$var=\$\{!name\}")\n(?:.*\n)*?\s*fi\n/, "$1\n")
      .replace(/\n\s*for name in \$\(compgen -e H2H_\); do\n[^\n]*\n\s*done/, "");
    expect(action.match(/compgen -e H2H_\)|elif/g)).toBeNull();
    const job = await run("nightly.yml", { event: "schedule" }, { action });
    expect(job.conclusion).toBe("failure");
    expect(step(job, "Certify / Certify").exitCode).toBe(64);
    expect(step(job, "Certify").output).toMatch(/H2H_\w+ is set but empty/);
  });
});

describe.concurrent("receiver.yml, run as on a fresh fork", () => {
  it("with nothing set: certifies the bundled reference receiver", async () => {
    const job = await run("receiver.yml", { event: "workflow_dispatch" });
    expectGreen(job);
    expect(job.uploads["h2h-receiver-reports"]).toBeDefined();
  });

  it("with the typical settings: the receiver's URL and the callback secret", async () => {
    const job = await run("receiver.yml", {
      event: "workflow_dispatch",
      inputs: { receiver_url: receiverUrl },
      secrets: { H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET },
    });
    expectGreen(job);
  });

  it("with everything set: URL, profile, the orders it knows and the secret", async () => {
    const job = await run("receiver.yml", {
      event: "workflow_dispatch",
      inputs: {
        receiver_url: receiverUrl,
        profile: "fixtures/profiles/reference.json",
        orders: "ci-orders.json",
      },
      secrets: { H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET },
    });
    expectGreen(job);
  });
});

describe.concurrent("load.yml, run as on a fresh fork", () => {
  const smoke = { scenario: "smoke", duration: "5s" };
  const contexts = (): [string, RunContext][] => [
    ["with nothing set (a pre-release)", { event: "release" }],
    [
      "with the typical settings",
      {
        event: "workflow_dispatch",
        inputs: { ...smoke, base_url: provider.url },
        secrets: { H2H_API_KEY: keys.H2H_API_KEY },
      },
    ],
    [
      "with everything set",
      {
        event: "workflow_dispatch",
        inputs: { ...smoke, base_url: provider.url },
        vars: {
          H2H_BASE_URL: provider.url,
          H2H_TARGET_IMAGE: "registry.example/acme/pay-sandbox:2.4.1",
          H2H_PROFILE: "fixtures/profiles/reference.json",
        },
        secrets: keys,
      },
    ],
  ];
  for (const [index, title] of [
    "with nothing set (a pre-release)",
    "with the typical settings",
    "with everything set",
  ].entries()) {
    it(title, async (ctx) => {
      const job = await run("load.yml", (contexts()[index] as [string, RunContext])[1]);
      if (job.skipped) ctx.skip(job.skipped);
      expectGreen(job);
    });
  }
});

// The runner's ladder: SIGINT, SIGTERM 7.5 s later, SIGKILL to whatever is left 2.5 s after that or
// as soon as the step's process has exited. Once signalled to the process group (as the issue that
// asked for this describes it), once to the step's process alone (as actions/runner's code does).
describe.concurrent("a cancelled job, as the runner cancels one", () => {
  for (const signals of ["group", "process"] as const) {
    it(`keeps certify's partial reports, signals to the ${signals}: complete, parseable, incomplete, uploaded`, async () => {
      const job = await onPort8787(() =>
        run(
          "certify.yml",
          { event: "workflow_dispatch" },
          // Once the first spec file has its results: the run is under way.
          {
            cancel: {
              step: "Certify / Certify",
              signals,
              when: (output) => /^[✓✗] \S+\.spec\.ts/m.test(output),
            },
          },
        ),
      );
      expect(job.conclusion, story(job)).toBe("cancelled");
      const certify = step(job, "Certify / Certify");
      expect(certify.outcome).toBe("cancelled");
      // Certify wrote its reports and exited itself (2: incomplete) before the runner's SIGKILL;
      // npm run waited for it.
      expect(certify.exitCode, `${certify.signals?.join(", ")}\n${certify.output.slice(-2_000)}`).toBe(2);
      expect(certify.output).toMatch(/verdict: INCOMPLETE/);
      const reports = job.uploads["h2h-certify-reports"] as string;
      expect(reports, story(job)).toBeDefined();
      const report = JSON.parse(readFileSync(join(reports, "h2h-certify.json"), "utf8"));
      expect(report.verdict).toBe("incomplete");
      expect(report.errors[0]).toBe("stopped by SIGINT before the run was complete");
      JSON.parse(readFileSync(join(reports, "h2h-certify.har"), "utf8"));
      expect(readFileSync(join(reports, "h2h-certify.junit.xml"), "utf8")).toMatch(/<\/testsuites>\s*$/);
      expect(readFileSync(join(reports, "h2h-certify.html"), "utf8")).toContain("INCOMPLETE");
      expect(step(job, "Certify / Publish the JUnit report").outcome).toBe("success");
      expect(step(job, "Certify").outputs?.verdict).toBe("incomplete");
    });
  }
});
