/**
 * Runs a job of a shipped workflow here, as GitHub's runner would, so that a test can show the job
 * green on a fresh fork. The workflow is read by GitHub's own parser (@actions/workflow-parser) and
 * every `${{ }}` by GitHub's own evaluator (@actions/expressions), with the contexts as GitHub gives
 * them: an unset variable, secret or optional input is an empty string. `run:` steps run in bash as
 * on ubuntu-latest (`bash --noprofile --norc -eo pipefail`), in their own process group, with the
 * evaluated `env:` and with `$GITHUB_ENV`, `$GITHUB_OUTPUT` and `$GITHUB_STEP_SUMMARY` honoured
 * between steps; `if:` is evaluated with success(), failure(), always(), cancelled() and hashFiles().
 *
 * `uses:` steps stand in by name (USES_STAND_INS): checkout is the copy the job runs in, setup-node
 * the Node.js running this, setup-k6 the k6 on PATH (none: the job is skipped, by name), a cache is
 * a miss, upload and JUnit publishing check their paths exist (an upload is kept, so that a later
 * run can download it). An unknown action is an error, never skipped silently. A local composite action (`uses: ./`)
 * runs for real: its action.yml read by GitHub's action parser, its steps run as the job's are.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { cp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { data, Evaluator, Lexer, Parser } from "@actions/expressions";
import {
  convertWorkflowTemplate,
  isBasicExpression,
  isBoolean,
  isMapping,
  isNumber,
  isSequence,
  isString,
  NoOperationTraceWriter,
  parseWorkflow,
  type WorkflowTemplate,
} from "@actions/workflow-parser";
import {
  type ActionTemplate,
  convertActionTemplate,
  parseAction,
} from "@actions/workflow-parser/actions/index";

type Token = Parameters<typeof isString>[0];
type Step = WorkflowTemplate["jobs"][number] extends infer J
  ? J extends { steps: (infer S)[] }
    ? S
    : never
  : never;

/** What a run of the workflow is given: its event, the inputs typed, and the repository's variables and secrets. */
export interface RunContext {
  event: string;
  /** Inputs given (workflow_dispatch): the others take their default, or "" when they have none. */
  inputs?: Record<string, string>;
  /** Repository variables set; every other `vars.X` is "" as on GitHub. */
  vars?: Record<string, string>;
  /** Repository secrets set; every other `secrets.X` is "". */
  secrets?: Record<string, string>;
  /** github.run_id: the id an upload is kept under (for a later night's download). */
  runId?: string;
}

/** Cancels the job as GitHub's runner does, while the step named `step` runs, once `when` holds. */
export interface Cancellation {
  step: string;
  when: (output: string) => boolean;
  /**
   * Who gets SIGINT and SIGTERM: the step's process group (as a terminal's Ctrl-C does), or the
   * step's process alone (as actions/runner's ProcessInvoker does: kill(pid, signal)). Either way,
   * once the step's process has exited or 10 s have passed, everything left is killed.
   */
  signals: "group" | "process";
}

export interface StepResult {
  name: string;
  outcome: "success" | "failure" | "skipped" | "cancelled";
  /** For a `run:` step: its exit code (null when a signal ended it); for a stand-in, what it did. */
  exitCode?: number | null;
  output: string;
  /** Signals the runner sent while the step ran, with their time from the cancellation. */
  signals?: string[];
  /** What it wrote to $GITHUB_OUTPUT; for a composite action, its `outputs:` evaluated. */
  outputs?: Record<string, string>;
}

export interface JobRun {
  conclusion: "success" | "failure" | "cancelled";
  steps: StepResult[];
  /** The uploads, by artifact name: the folder they were kept in. */
  uploads: Record<string, string>;
  /** Whether the job was skipped because a tool it needs is not here (k6), and why. */
  skipped?: string;
  /** $GITHUB_STEP_SUMMARY at the end. */
  summary: string;
  /** The workspace it ran in ($GITHUB_WORKSPACE). */
  workspace: string;
}

export interface RunOptions {
  /** The copy of the repository the job runs in (a fresh one per job: see freshWorkspace). */
  workspace: string;
  /** The runner's own environment (PATH, HOME…); GITHUB_* are added. */
  env: Record<string, string>;
  /** Where uploads are kept, by run id and artifact name (a later `gh run download` reads them). */
  artifacts: string;
  cancel?: Cancellation;
  /** Bounds each `run:` step (a hang fails it instead of the test's timeout). */
  stepTimeoutMs: number;
}

/** The runner's cancellation of a step: SIGINT, then SIGTERM 7.5 s later, then SIGKILL 2.5 s after it. */
export const RUNNER_SIGINT_GRACE_MS = 7_500;
export const RUNNER_SIGTERM_GRACE_MS = 2_500;

/** Steps whose `run:` is the install: each workspace links this checkout's installed packages instead. */
export const RUN_STAND_INS: Record<string, string> = {
  "npm ci --no-audit --no-fund": "node_modules: links to the packages of this checkout's own `npm ci`",
};

/** GitHub's default contexts a workflow may read (a context outside them is an error here, as there). */
const CONTEXTS = [
  "github",
  "inputs",
  "vars",
  "secrets",
  "env",
  "steps",
  "runner",
  "job",
  "matrix",
  "needs",
  "strategy",
];

/** Parses a workflow with GitHub's parser; its errors (the schema's, the expressions') throw. */
export async function loadWorkflow(name: string, content: string): Promise<WorkflowTemplate> {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (errors.length > 0 || parsed.value === undefined) throw new Error(`${name}: ${errors.join("; ")}`);
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  if (template.errors?.length)
    throw new Error(`${name}: ${template.errors.map((e) => e.Message).join("; ")}`);
  RAW.set(template, parsed.value);
  return template;
}

/** The parsed tokens behind each converted workflow: the converter leaves a step's `with:` out. */
const RAW = new WeakMap<WorkflowTemplate, Token>();

function entry(token: Token | undefined, key: string): Token | undefined {
  if (token === undefined || !isMapping(token)) return undefined;
  for (const pair of token) if (isString(pair.key) && pair.key.value === key) return pair.value;
  return undefined;
}

function toData(value: unknown): data.ExpressionData {
  if (value === null || value === undefined) return new data.Null();
  if (typeof value === "string") return new data.StringData(value);
  if (typeof value === "boolean") return new data.BooleanData(value);
  if (typeof value === "number") return new data.NumberData(value);
  return new data.Dictionary(
    ...Object.entries(value as Record<string, unknown>).map(([key, v]) => ({ key, value: toData(v) })),
  );
}

interface Status {
  failed: boolean;
  cancelled: boolean;
  workspace: string;
}

function statusFunctions(status: Status) {
  const fn = (
    name: string,
    minArgs: number,
    maxArgs: number,
    call: (...args: data.ExpressionData[]) => unknown,
  ) => ({
    name,
    minArgs,
    maxArgs,
    call: (...args: data.ExpressionData[]) => toData(call(...args)),
  });
  return [
    fn("success", 0, 0, () => !status.failed && !status.cancelled),
    fn("failure", 0, 0, () => status.failed),
    fn("always", 0, 0, () => true),
    fn("cancelled", 0, 0, () => status.cancelled),
    // As GitHub's: "" when no file matches, else a hash of the files' contents.
    fn("hashfiles", 1, 255, (...patterns) => {
      const hash = createHash("sha256");
      let matched = false;
      for (const pattern of patterns.map((p) => p.coerceString())) {
        if (/[*?[]/.test(pattern)) throw new Error(`hashFiles('${pattern}'): globs are not supported here`);
        const path = resolve(status.workspace, pattern);
        if (existsSync(path) && statSync(path).isFile()) {
          matched = true;
          hash.update(readFileSync(path));
        }
      }
      return matched ? hash.digest("hex") : "";
    }),
  ];
}

/** Evaluates one expression (without `${{ }}`) with GitHub's evaluator. */
export function evaluate(
  expression: string,
  contexts: Record<string, unknown>,
  status: Status,
  names: string[] = CONTEXTS,
): data.ExpressionData {
  const functions = statusFunctions(status);
  const { tokens } = new Lexer(expression).lex();
  const ast = new Parser(tokens, names, functions).parse();
  const context = toData(contexts) as data.Dictionary;
  return new Evaluator(ast, context, new Map(functions.map((f) => [f.name, f]))).evaluate();
}

function truthy(value: data.ExpressionData): boolean {
  switch (value.kind) {
    case data.Kind.Null:
      return false;
    case data.Kind.Boolean:
      return (value as data.BooleanData).value;
    case data.Kind.Number:
      return value.number() !== 0 && !Number.isNaN(value.number());
    case data.Kind.String:
      return value.coerceString() !== "";
    default:
      return true;
  }
}

/** A token's value as a string, as the runner hands `env:`, `with:` and `run:` values on. */
function stringOf(
  token: Token,
  contexts: Record<string, unknown>,
  status: Status,
  names: string[] = CONTEXTS,
): string {
  if (isString(token)) return token.value;
  if (isBoolean(token) || isNumber(token)) return String(token.value);
  if (isBasicExpression(token)) return evaluate(token.expression, contexts, status, names).coerceString();
  if (isMapping(token) || isSequence(token))
    throw new Error(`expected a scalar, got ${token.toDisplayString()}`);
  return "";
}

function mappingOf(
  token: Token | undefined,
  contexts: Record<string, unknown>,
  status: Status,
  names: string[] = CONTEXTS,
) {
  const out: Record<string, string> = {};
  if (token === undefined) return out;
  if (!isMapping(token)) throw new Error(`expected a mapping, got ${token.toDisplayString()}`);
  for (const { key, value } of token)
    out[stringOf(key, contexts, status, names)] = stringOf(value, contexts, status, names);
  return out;
}

/** Every `vars.X`, `secrets.X` and `inputs.X` a workflow names: "" unless given, as GitHub gives them. */
function namesIn(content: string, context: string): string[] {
  return [...content.matchAll(new RegExp(`\\b${context}\\.([A-Za-z_][A-Za-z0-9_-]*)`, "g"))].map(
    (m) => m[1] as string,
  );
}

function withBlanks(
  content: string,
  context: string,
  given: Record<string, string> = {},
): Record<string, string> {
  return { ...Object.fromEntries(namesIn(content, context).map((name) => [name, ""])), ...given };
}

/** `NAME=value` lines and `NAME<<DELIMITER` blocks, as the runner reads $GITHUB_ENV and $GITHUB_OUTPUT. */
export function parseCommandFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === "") continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i] as string);
      out[heredoc[1] as string] = value.join("\n");
    } else {
      const equals = line.indexOf("=");
      if (equals <= 0) throw new Error(`not NAME=value: ${line}`);
      out[line.slice(0, equals)] = line.slice(equals + 1);
    }
  }
  return out;
}

/** Thrown by a stand-in when this machine lacks what the job needs: the job is skipped, by name. */
class JobSkipped extends Error {}

type StandIn = (
  withs: Record<string, string>,
  ctx: { workspace: string; artifacts: string; runId: string; uploads: Record<string, string> },
) => string;

/** The `uses:` actions the shipped workflows use, by name (without the version), and what stands in for each. */
export const USES_STAND_INS: Record<string, StandIn> = {
  "actions/checkout": () => "the job's copy of the repository",
  "actions/setup-node": () => `the Node.js running this (${process.version})`,
  "grafana/setup-k6-action": () => {
    if (spawnSync("k6", ["version"], { stdio: "ignore" }).status !== 0)
      throw new JobSkipped("k6 is not installed here (grafana/setup-k6-action installs it on GitHub)");
    return "the k6 on PATH";
  },
  "actions/cache": (withs) => {
    if (!withs.path || !withs.key) throw new Error("actions/cache: path and key are required");
    return `cache ${withs.key}: a miss, nothing restored (${withs.path})`;
  },
  "actions/upload-artifact": (withs, ctx) => {
    const path = resolve(ctx.workspace, withs.path ?? "");
    const name = withs.name || "artifact";
    if (!existsSync(path)) {
      if (withs["if-no-files-found"] === "error")
        throw new Error(`upload ${name}: no files at ${withs.path}`);
      return `upload ${name}: no files at ${withs.path} (warning)`;
    }
    const kept = join(ctx.artifacts, ctx.runId, name);
    cpSync(path, kept, { recursive: true });
    ctx.uploads[name] = kept;
    return `upload ${name}: ${readdirSync(kept).length} file(s) from ${withs.path}`;
  },
  "mikepenz/action-junit-report": (withs, ctx) => {
    const path = resolve(ctx.workspace, withs.report_paths ?? "");
    if (!existsSync(path)) throw new Error(`JUnit report ${withs.report_paths}: no such file`);
    return `JUnit report ${withs.report_paths}: ${statSync(path).size} bytes`;
  },
};

/**
 * A `gh` for the nightly's "previous nights" step: `gh run list` names the runs whose uploads are
 * kept (newest first), `gh run download ID --name N --dir D` copies one. GitHub's API stands in.
 */
export function fakeGh(binDir: string, artifacts: string): void {
  mkdirSync(binDir, { recursive: true });
  const script = `#!/usr/bin/env bash
set -euo pipefail
store=${JSON.stringify(artifacts)}
case "$1 $2" in
  "run list") ls -1 "$store" 2>/dev/null | sort -rn ;;
  "run download")
    id="$3"; shift 3; name=""; dir="."
    while [ $# -gt 0 ]; do case "$1" in --name) name="$2"; shift 2 ;; --dir) dir="$2"; shift 2 ;; *) shift ;; esac; done
    [ -d "$store/$id/$name" ] || { echo "no artifact $name in run $id" >&2; exit 1; }
    mkdir -p "$dir"; cp -R "$store/$id/$name/." "$dir/" ;;
  *) echo "gh stand-in: $* is not served" >&2; exit 2 ;;
esac
`;
  writeFileSync(join(binDir, "gh"), script);
  chmodSync(join(binDir, "gh"), 0o755);
}

/** A copy of this checkout's working tree: its tracked and new files, what git would commit. */
export function copyOfCheckout(root: string): string {
  const copy = mkdtempSync(join(tmpdir(), "h2h-workflow-"));
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  if (listed.status !== 0) throw new Error(`git ls-files: ${listed.stderr}`);
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file));
  }
  return copy;
}

/**
 * A fresh workspace for one job, in `workspace` (made, or emptied of all but node_modules): the
 * copy's files, and a node_modules of links to this checkout's packages (`root`'s npm ci: they
 * resolve to their real paths there). Its caches (.cache, .vite) are its own, kept from the job
 * before in the same folder, as a runner's npm cache is: Vitest's module cache is keyed by the
 * project's folder and dropped when another folder's is found there, which would fail the jobs
 * beside it.
 */
export async function freshWorkspace(copy: string, root: string, workspace: string): Promise<string> {
  // Asynchronous: a provider or receiver in the test's process keeps answering meanwhile.
  mkdirSync(workspace, { recursive: true });
  for (const entry of readdirSync(workspace))
    if (entry !== "node_modules") await rm(join(workspace, entry), { recursive: true, force: true });
  for (const entry of readdirSync(copy))
    await cp(join(copy, entry), join(workspace, entry), { recursive: true });
  const modules = join(workspace, "node_modules");
  if (!existsSync(modules)) {
    mkdirSync(modules);
    for (const entry of readdirSync(join(root, "node_modules"))) {
      if (entry === ".cache" || entry === ".vite") continue;
      symlinkSync(join(root, "node_modules", entry), join(modules, entry));
    }
  }
  return workspace;
}

interface Spawned {
  exitCode: number | null;
  output: string;
  signals: string[];
}

/** Runs a script in bash in its own process group; a cancellation signals the group as the runner does. */
function runBash(
  script: string,
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
  cancel: Cancellation | undefined,
  onCancelled: () => void,
): Promise<Spawned> {
  const file = join(
    env.RUNNER_TEMP as string,
    `step-${Date.now()}-${Math.random().toString(36).slice(2)}.sh`,
  );
  writeFileSync(file, script);
  return new Promise((done) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", file], {
      cwd,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pgid = child.pid as number;
    let output = "";
    const signals: string[] = [];
    const timers: NodeJS.Timeout[] = [];
    let cancelledAt: number | undefined;
    const signal = (to: "group" | "process", name: NodeJS.Signals) => {
      try {
        process.kill(to === "group" ? -pgid : pgid, name);
        if (cancelledAt !== undefined) signals.push(`${name} to the ${to} at ${Date.now() - cancelledAt} ms`);
      } catch {
        // Gone already.
      }
    };
    const signalGroup = (name: NodeJS.Signals) => signal("group", name);
    const startCancel = (to: "group" | "process") => {
      cancelledAt = Date.now();
      onCancelled();
      signal(to, "SIGINT");
      timers.push(setTimeout(() => signal(to, "SIGTERM"), RUNNER_SIGINT_GRACE_MS));
      timers.push(setTimeout(() => signalGroup("SIGKILL"), RUNNER_SIGINT_GRACE_MS + RUNNER_SIGTERM_GRACE_MS));
    };
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      if (cancel && cancelledAt === undefined && cancel.when(output)) startCancel(cancel.signals);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    timers.push(
      setTimeout(() => {
        output += `\n[runner stand-in] the step ran past ${timeoutMs} ms: killed\n`;
        signalGroup("SIGKILL");
      }, timeoutMs),
    );
    let exitCode: number | null = null;
    child.once("exit", (code) => {
      exitCode = code;
      for (const timer of timers) clearTimeout(timer);
      // The step is over: what it left running is killed, as the runner ends a job's orphans.
      signalGroup("SIGKILL");
    });
    // After its output is read to the end (the pipes close once nothing holds them).
    child.once("close", () => {
      rmSync(file, { force: true });
      done({ exitCode, output, signals });
    });
  });
}

/** What the steps of a job, and of the composite actions it uses, share while the job runs. */
interface JobState {
  options: RunOptions;
  runId: string;
  runnerTemp: string;
  runnerEnv: Record<string, string>;
  uploads: Record<string, string>;
  results: StepResult[];
  /** $GITHUB_ENV as written so far: every later step of the job gets it. */
  fileEnv: Record<string, string>;
  /** The job's status (a composite action's own steps have their own `failed`, and share `cancelled`). */
  status: Status;
}

/** The scope a list of steps runs in: the job's, or a composite action's. */
interface Frame {
  /** The contexts but `env` and `steps`. */
  contexts: Record<string, unknown>;
  /** The context names an expression may read here (GitHub's list differs inside an action). */
  names: string[];
  /** The env below $GITHUB_ENV's and the step's own: workflow and job env, or the calling step's. */
  env: Record<string, string>;
  status: Status;
  steps: Record<string, { outputs: Record<string, string>; outcome: string; conclusion: string }>;
  /** Prefix of the step names reported ("Certify / "), and the action's folder, inside an action. */
  prefix: string;
  actionPath?: string;
}

/** The contexts an action's composite steps may read: no vars, secrets or needs (they come as inputs). */
const ACTION_CONTEXTS = ["github", "inputs", "runner", "job", "matrix", "strategy", "env", "steps"];

/** Runs the workflow's job `jobId` in `options.workspace` with the context given. */
export async function runJob(
  content: string,
  template: WorkflowTemplate,
  jobId: string,
  context: RunContext,
  options: RunOptions,
): Promise<JobRun> {
  const job = template.jobs.find((j) => j.id.value === jobId);
  if (job?.type !== "job") throw new Error(`no job ${jobId}`);
  const runId = context.runId ?? String(Date.now());
  const runnerTemp = mkdtempSync(join(tmpdir(), "h2h-runner-temp-"));
  const summaryFile = join(runnerTemp, "step-summary.md");
  writeFileSync(summaryFile, "");
  const inputs = { ...inputDefaults(template, context.event), ...(context.inputs ?? {}) };
  const base = {
    github: {
      event_name: context.event,
      ref: "refs/heads/main",
      ref_name: "main",
      run_id: runId,
      repository: "a-fork/h2h-certify",
      token: "ghs_stand-in-token",
      workspace: options.workspace,
    },
    inputs: withBlanks(content, "inputs", inputs),
    vars: withBlanks(content, "vars", context.vars),
    secrets: withBlanks(content, "secrets", context.secrets),
    runner: { os: "Linux", temp: runnerTemp },
    job: {},
    matrix: {},
    needs: {},
    strategy: {},
  };
  const status: Status = { failed: false, cancelled: false, workspace: options.workspace };
  const workflowEnv = mappingOf(template.env, { ...base, env: {} }, status);
  const jobEnv = mappingOf(job.env, { ...base, env: workflowEnv }, status);
  if (job.name) stringOf(job.name, { ...base, env: workflowEnv }, status); // an error in it fails the run
  const state: JobState = {
    options,
    runId,
    runnerTemp,
    uploads: {},
    results: [],
    fileEnv: {},
    status,
    runnerEnv: {
      ...options.env,
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_WORKSPACE: options.workspace,
      GITHUB_REPOSITORY: base.github.repository,
      GITHUB_EVENT_NAME: context.event,
      GITHUB_REF: base.github.ref,
      GITHUB_REF_NAME: base.github.ref_name,
      GITHUB_RUN_ID: runId,
      GITHUB_STEP_SUMMARY: summaryFile,
      RUNNER_TEMP: runnerTemp,
    },
  };
  try {
    const steps = entry(entry(entry(RAW.get(template), "jobs"), jobId), "steps");
    const skipped = await runSteps(state, job.steps as Step[], rawSteps(steps), {
      contexts: base,
      names: CONTEXTS,
      env: { ...workflowEnv, ...jobEnv },
      status,
      steps: {},
      prefix: "",
    });
    if (skipped)
      return {
        conclusion: "success",
        steps: state.results,
        uploads: state.uploads,
        skipped,
        summary: "",
        workspace: options.workspace,
      };
    return {
      conclusion: status.cancelled ? "cancelled" : status.failed ? "failure" : "success",
      steps: state.results,
      uploads: state.uploads,
      summary: readFileSync(summaryFile, "utf8"),
      workspace: options.workspace,
    };
  } finally {
    rmSync(runnerTemp, { recursive: true, force: true });
  }
}

function rawSteps(steps: Token | undefined): (Token | undefined)[] {
  return steps !== undefined && isSequence(steps) ? [...steps] : [];
}

/** Runs `steps` in `frame`; returns why the job is skipped when a stand-in says so, else undefined. */
async function runSteps(
  state: JobState,
  steps: Step[],
  raws: (Token | undefined)[],
  frame: Frame,
): Promise<string | undefined> {
  const { options, runnerTemp } = state;
  const { status } = frame;
  for (const [index, step] of steps.entries()) {
    const name = frame.prefix + stepName(step, index);
    const raw = raws[index];
    const env = { ...frame.env, ...state.fileEnv };
    const contexts = { ...frame.contexts, env, steps: frame.steps };
    const condition = "if" in step && step.if ? step.if.expression : "success()";
    if (!truthy(evaluate(condition, contexts, status, frame.names))) {
      state.results.push({ name, outcome: "skipped", output: "" });
      if (step.id) frame.steps[step.id] = { outputs: {}, outcome: "skipped", conclusion: "skipped" };
      continue;
    }
    const stepEnv = {
      ...env,
      ...mappingOf("env" in step ? step.env : undefined, contexts, status, frame.names),
    };
    const stepContexts = { ...contexts, env: stepEnv };
    let result: StepResult;
    let outputs: Record<string, string> = {};
    if ("uses" in step) {
      const withs = mappingOf(entry(raw, "with"), stepContexts, status, frame.names);
      if (step.uses.value.startsWith("./")) {
        const composite = await runComposite(state, step.uses.value, name, withs, stepEnv, frame);
        if (typeof composite === "string") return composite;
        result = composite;
        outputs = composite.outputs ?? {};
      } else {
        const action = step.uses.value.replace(/@.*$/, "");
        const standIn = USES_STAND_INS[action];
        if (!standIn) throw new Error(`${name}: no stand-in for the action ${action}`);
        try {
          result = {
            name,
            outcome: "success",
            output: standIn(withs, {
              workspace: options.workspace,
              artifacts: options.artifacts,
              runId: state.runId,
              uploads: state.uploads,
            }),
          };
        } catch (error) {
          if (error instanceof JobSkipped) return error.message;
          result = { name, outcome: "failure", output: (error as Error).message };
        }
      }
    } else if ("run" in step) {
      const script = stringOf(step.run, stepContexts, status, frame.names);
      const shell = entry(raw, "shell");
      if (shell !== undefined && stringOf(shell, stepContexts, status, frame.names) !== "bash")
        throw new Error(`${name}: only \`shell: bash\` is run here`);
      const directory = entry(raw, "working-directory");
      const cwd = resolve(
        options.workspace,
        directory === undefined ? "." : stringOf(directory, stepContexts, status, frame.names),
      );
      if (RUN_STAND_INS[script.trim()]) {
        result = { name, outcome: "success", output: RUN_STAND_INS[script.trim()] as string };
      } else {
        const envFile = join(runnerTemp, `env-${state.results.length}`);
        const outputFile = join(runnerTemp, `output-${state.results.length}`);
        writeFileSync(envFile, "");
        writeFileSync(outputFile, "");
        const cancel = options.cancel?.step === name ? options.cancel : undefined;
        const run = await runBash(
          script,
          {
            ...state.runnerEnv,
            ...stepEnv,
            ...(frame.actionPath ? { GITHUB_ACTION_PATH: frame.actionPath } : {}),
            GITHUB_ENV: envFile,
            GITHUB_OUTPUT: outputFile,
          },
          cwd,
          options.stepTimeoutMs,
          cancel,
          () => {
            status.cancelled = true;
          },
        );
        state.fileEnv = { ...state.fileEnv, ...parseCommandFile(readFileSync(envFile, "utf8")) };
        outputs = parseCommandFile(readFileSync(outputFile, "utf8"));
        const outcome = status.cancelled && cancel ? "cancelled" : run.exitCode === 0 ? "success" : "failure";
        result = { name, outcome, exitCode: run.exitCode, output: run.output, signals: run.signals, outputs };
      }
    } else throw new Error(`${name}: neither run nor uses`);
    if (result.outcome === "failure") status.failed = true;
    state.results.push(result);
    if (step.id) frame.steps[step.id] = { outputs, outcome: result.outcome, conclusion: result.outcome };
  }
  return undefined;
}

/**
 * A local composite action (`uses: ./` or `./path`): its action.yml read by GitHub's action parser,
 * its `inputs` the step's `with:` (an input not given takes its default; one given as "" stays "",
 * as on GitHub), its steps run in the job with `github.action_path` and $GITHUB_ACTION_PATH, its
 * outputs evaluated from its own steps. An input the action does not declare is an error here (GitHub
 * only warns): a misspelt input would otherwise pass silently as unset.
 */
async function runComposite(
  state: JobState,
  uses: string,
  name: string,
  withs: Record<string, string>,
  callerEnv: Record<string, string>,
  caller: Frame,
): Promise<StepResult | string> {
  // As GitHub gives it for a local action: the workspace, then the path as written ("/./").
  const actionPath = `${state.options.workspace}/${uses}`;
  const { action, raw } = await loadAction(actionPath);
  if (action.runs.using !== "composite")
    throw new Error(`${name}: ${uses} is a ${action.runs.using} action: only composite actions run here`);
  const declared = new Set((action.inputs ?? []).map((input) => input.id));
  const unknown = Object.keys(withs).filter((key) => !declared.has(key));
  if (unknown.length > 0) throw new Error(`${name}: ${uses} has no input ${unknown.join(", ")}`);
  const github = { ...(caller.contexts.github as Record<string, unknown>), action_path: actionPath };
  const status: Status = {
    failed: false,
    get cancelled() {
      return state.status.cancelled;
    },
    set cancelled(value: boolean) {
      state.status.cancelled = value;
    },
    workspace: state.options.workspace,
  };
  const pick = (key: string) => ({ [key]: caller.contexts[key] });
  const defaultsContexts = {
    ...pick("runner"),
    ...pick("job"),
    ...pick("matrix"),
    ...pick("strategy"),
    github,
  };
  const inputs: Record<string, string> = {};
  for (const input of action.inputs ?? [])
    inputs[input.id] =
      withs[input.id] ??
      (input.default === undefined
        ? ""
        : stringOf(input.default, { ...defaultsContexts, env: callerEnv }, status, ACTION_CONTEXTS));
  const frame: Frame = {
    contexts: { ...defaultsContexts, inputs },
    names: ACTION_CONTEXTS,
    env: callerEnv,
    status,
    steps: {},
    prefix: `${name} / `,
    actionPath,
  };
  const first = state.results.length;
  const skipped = await runSteps(
    state,
    action.runs.steps as Step[],
    rawSteps(entry(entry(raw, "runs"), "steps")),
    frame,
  );
  if (skipped) return skipped;
  const inner = state.results.slice(first);
  const outputs: Record<string, string> = {};
  const outputContexts = { ...frame.contexts, env: callerEnv, steps: frame.steps };
  for (const output of action.outputs ?? [])
    outputs[output.id] =
      output.value === undefined ? "" : stringOf(output.value, outputContexts, status, ACTION_CONTEXTS);
  return {
    name,
    outcome: state.status.cancelled ? "cancelled" : status.failed ? "failure" : "success",
    output: inner.map((step) => step.output).join(""),
    outputs,
  };
}

/** Reads `dir`/action.yml (or action.yaml) with GitHub's action parser; its errors throw. */
export async function loadAction(dir: string): Promise<{ action: ActionTemplate; raw: Token }> {
  const file = ["action.yml", "action.yaml"].map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!file) throw new Error(`${dir}: no action.yml`);
  const parsed = parseAction(
    { name: file, content: readFileSync(file, "utf8") },
    new NoOperationTraceWriter(),
  );
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (errors.length > 0 || parsed.value === undefined) throw new Error(errors.join("; "));
  return { action: convertActionTemplate(parsed.context, parsed.value), raw: parsed.value };
}

function stepName(step: Step, index: number): string {
  if (step.name) return isString(step.name) ? step.name.value : step.name.toString();
  if ("uses" in step) return step.uses.value;
  if ("run" in step && isString(step.run)) return step.run.value.split("\n")[0] as string;
  return `step ${index + 1}`;
}

/** The inputs' defaults for the event: a dispatched workflow's, a called one's; other events have none. */
function inputDefaults(template: WorkflowTemplate, event: string): Record<string, string> {
  const config =
    event === "workflow_dispatch"
      ? template.events.workflow_dispatch?.inputs
      : event === "workflow_call"
        ? template.events.workflow_call?.inputs
        : undefined;
  const out: Record<string, string> = {};
  for (const [name, input] of Object.entries(config ?? {})) {
    const value = input.default;
    out[name] =
      value === undefined
        ? ""
        : typeof value === "object"
          ? String((value as { value: unknown }).value)
          : String(value);
  }
  return out;
}
