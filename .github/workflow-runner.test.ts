/**
 * The runner stand-in itself, on small workflows: GitHub's semantics of unset values, status
 * functions, $GITHUB_ENV and $GITHUB_OUTPUT between steps, and an action it has no stand-in for.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadWorkflow, parseCommandFile, runJob } from "./workflow-runner.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function runYaml(
  yaml: string,
  context: Parameters<typeof runJob>[3] = { event: "workflow_dispatch" },
  files: Record<string, string> = {},
) {
  const template = await loadWorkflow("test.yml", yaml);
  const workspace = mkdtempSync(join(tmpdir(), "h2h-runner-test-"));
  dirs.push(workspace);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), text);
  }
  return runJob(yaml, template, "job", context, {
    workspace,
    env: { PATH: process.env.PATH as string },
    artifacts: join(workspace, "artifacts"),
    stepTimeoutMs: 20_000,
  });
}

const workflow = (steps: string) => `on:
  workflow_dispatch:
    inputs:
      scenario:
        type: string
        required: false
jobs:
  job:
    runs-on: ubuntu-latest
    steps:
${steps}`;

describe("the workflow runner stand-in", () => {
  it("gives unset variables, secrets and inputs as GitHub does: empty strings", async () => {
    const job = await runYaml(
      workflow(`      - name: show
        if: \${{ vars.UNSET == '' && vars.SET != '' }}
        run: echo "var=[$V] secret=[$S] scenario=[$C]"
        env:
          V: \${{ vars.UNSET }}
          S: \${{ secrets.UNSET }}
          C: \${{ inputs.scenario || 'load' }}
`),
      { event: "workflow_dispatch", vars: { SET: "x" } },
    );
    expect(job.conclusion).toBe("success");
    expect(job.steps[0]?.output).toBe("var=[] secret=[] scenario=[load]\n");
  });

  it("passes $GITHUB_ENV and $GITHUB_OUTPUT on, and runs failure()/always() steps after a failure only", async () => {
    const job = await runYaml(
      workflow(`      - id: first
        name: first
        run: |
          echo "FROM_ENV=one" >> "$GITHUB_ENV"
          printf 'value<<EOF\\nline 1\\nline 2\\nEOF\\n' >> "$GITHUB_OUTPUT"
      - name: reads
        run: echo "$FROM_ENV / $OUT"
        env:
          OUT: \${{ steps.first.outputs.value }}
      - name: fails
        run: exit 3
      - name: after success
        run: echo never
      - name: after failure
        if: \${{ failure() }}
        run: echo failure
      - name: always
        if: \${{ always() && !cancelled() }}
        run: echo always
`),
    );
    expect(job.conclusion).toBe("failure");
    expect(job.steps.map((s) => [s.name, s.outcome])).toEqual([
      ["first", "success"],
      ["reads", "success"],
      ["fails", "failure"],
      ["after success", "skipped"],
      ["after failure", "success"],
      ["always", "success"],
    ]);
    expect(job.steps[1]?.output).toBe("one / line 1\nline 2\n");
    expect(job.steps[2]?.exitCode).toBe(3);
  });

  it("refuses an action it has no stand-in for, and a workflow GitHub's parser refuses", async () => {
    const job = runYaml(workflow("      - uses: some/unknown-action@v1\n"));
    await expect(job).rejects.toThrow(/no stand-in for the action some\/unknown-action/);
    await expect(
      loadWorkflow("bad.yml", workflow(`      - run: echo $\{{ github.nope( }}\n`)),
    ).rejects.toThrow(/bad\.yml/);
  });

  it("reads NAME=value lines and NAME<<DELIMITER blocks", () => {
    expect(parseCommandFile("A=1\nB<<X\nx\ny\nX\nC=a=b\n")).toEqual({ A: "1", B: "x\ny", C: "a=b" });
  });

  it("runs a local composite action: inputs given, blank and defaulted, action_path, outputs, $GITHUB_ENV", async () => {
    const action = `name: test action
description: a composite action in a folder of the workspace
inputs:
  given:
    description: given by the step
    default: unused
  blank:
    description: given as an empty string, which stays empty as on GitHub
    default: unused
  absent:
    description: not given, so its default (an expression) applies
    default: \${{ github.event_name }}-default
outputs:
  said:
    description: what the step said
    value: \${{ steps.say.outputs.said }}
runs:
  using: composite
  steps:
    - id: say
      name: say
      shell: bash
      working-directory: \${{ github.action_path }}
      env:
        GIVEN: \${{ inputs.given }}
        BLANK: \${{ inputs.blank }}
        ABSENT: \${{ inputs.absent }}
      run: |
        echo "given=[$GIVEN] blank=[$BLANK] absent=[$ABSENT] cwd=[$(basename "$PWD")] path=[$(basename "$GITHUB_ACTION_PATH")] caller=[$FROM_CALLER]"
        echo "said=hello $GIVEN" >> "$GITHUB_OUTPUT"
        echo "FROM_ACTION=yes" >> "$GITHUB_ENV"
    - name: after a failure only
      if: \${{ failure() }}
      shell: bash
      run: echo never
`;
    const job = await runYaml(
      workflow(`      - id: act
        name: act
        uses: ./act
        env:
          FROM_CALLER: the step's env
        with:
          given: \${{ inputs.scenario || 'x' }}
          blank: ""
      - name: after
        run: echo "$OUT / $FROM_ACTION"
        env:
          OUT: \${{ steps.act.outputs.said }}
`),
      { event: "workflow_dispatch" },
      { "act/action.yml": action },
    );
    expect(job.conclusion).toBe("success");
    expect(job.steps.map((s) => [s.name, s.outcome])).toEqual([
      ["act / say", "success"],
      ["act / after a failure only", "skipped"],
      ["act", "success"],
      ["after", "success"],
    ]);
    expect(job.steps[0]?.output).toBe(
      "given=[x] blank=[] absent=[workflow_dispatch-default] cwd=[act] path=[act] caller=[the step's env]\n",
    );
    expect(job.steps[2]?.outputs).toEqual({ said: "hello x" });
    expect(job.steps[3]?.output).toBe("hello x / yes\n");
  });

  it("a failed step fails the composite action; its always() steps and outputs still come", async () => {
    const action = `name: failing
description: fails in its first step
outputs:
  after:
    description: written by the always() step
    value: \${{ steps.always.outputs.after }}
runs:
  using: composite
  steps:
    - shell: bash
      run: exit 5
    - name: on success
      shell: bash
      run: echo never
    - id: always
      name: always
      if: \${{ always() }}
      shell: bash
      run: echo "after=written" >> "$GITHUB_OUTPUT"
`;
    const job = await runYaml(
      workflow(`      - name: act
        uses: ./
      - name: after the action failed
        if: \${{ failure() }}
        run: echo failure
`),
      { event: "workflow_dispatch" },
      { "action.yml": action },
    );
    expect(job.conclusion).toBe("failure");
    expect(job.steps.map((s) => [s.name, s.outcome, s.exitCode])).toEqual([
      ["act / exit 5", "failure", 5],
      ["act / on success", "skipped", undefined],
      ["act / always", "success", 0],
      ["act", "failure", undefined],
      ["after the action failed", "success", 0],
    ]);
    expect(job.steps[3]?.outputs).toEqual({ after: "written" });
  });

  it("refuses an input the action does not declare, and an action GitHub's action parser refuses", async () => {
    const action = (body: string) => `name: a
description: a
inputs:
  known:
    description: known
runs:
  using: composite
  steps:
${body}`;
    const uses = workflow("      - uses: ./\n        with:\n          knwon: typo\n");
    await expect(
      runYaml(uses, undefined, { "action.yml": action("    - shell: bash\n      run: echo\n") }),
    ).rejects.toThrow(/has no input knwon/);
    const plain = workflow("      - uses: ./\n");
    await expect(
      runYaml(plain, undefined, {
        "action.yml": action(
          `    - shell: bash\n      run: echo "$K"\n      env:\n        K: $\{{ secrets.K }}\n`,
        ),
      }),
    ).rejects.toThrow(/Unrecognized named-value: 'secrets'/);
    await expect(runYaml(plain, undefined, { "action.yml": action("    - run: echo\n") })).rejects.toThrow(
      /Required property is missing: shell/,
    );
  });
});
