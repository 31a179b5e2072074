/**
 * The runner stand-in itself, on small workflows: GitHub's semantics of unset values, status
 * functions, $GITHUB_ENV and $GITHUB_OUTPUT between steps, and an action it has no stand-in for.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadWorkflow, parseCommandFile, runJob } from "./workflow-runner.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function runYaml(yaml: string, context: Parameters<typeof runJob>[3] = { event: "workflow_dispatch" }) {
  const template = await loadWorkflow("test.yml", yaml);
  const workspace = mkdtempSync(join(tmpdir(), "h2h-runner-test-"));
  dirs.push(workspace);
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
});
