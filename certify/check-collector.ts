/**
 * A Vitest reporter that turns the contract specs' test cases into check records, and shows
 * progress on the console while the run goes on: a line per failed check as it fails, and a
 * line per spec file when it ends.
 */
import { basename } from "node:path";
import type { UserConsoleLog } from "vitest";
import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node";
import { CHECK_REGISTRY, type Masker, requirementOf } from "../contract/index.ts";
import "./run-context.ts";
import type { CheckRecord } from "./run-model.ts";

const CASE_SEPARATOR = " › ";

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 400 ? `${line.slice(0, 397)}...` : line;
}

/** The top-level describe of a test: the endpoint (operation name) it checks. */
function endpointOf(test: TestCase): string {
  let parent: TestCase["parent"] = test.parent;
  let top: TestSuite | undefined;
  while (parent.type === "suite") {
    top = parent;
    parent = parent.parent;
  }
  return top?.name ?? "(all endpoints)";
}

export class CheckCollector implements Reporter {
  readonly records: CheckRecord[] = [];
  /** Errors outside any test (a spec file that did not load, a failing hook). */
  readonly runErrors: string[] = [];

  constructor(
    private readonly masker: Masker,
    private readonly print: (line: string) => void,
    /** The profile's informational checks, for a check that could not record its own verdict. */
    private readonly informationalChecks: Readonly<Record<string, string>> = {},
  ) {}

  onTestCaseResult(test: TestCase): void {
    const record = this.toRecord(test);
    this.records.push(record);
    if (record.status === "failed") {
      const informational = record.required ? "" : " (informational)";
      this.print(
        `  ✗ ${record.endpoint} › ${record.check}${record.case ? ` › ${record.case}` : ""}${informational}: ${record.detail}`,
      );
    }
  }

  /** Specs speak to the user only when a person must act (a manual callback trigger). */
  onUserConsoleLog(log: UserConsoleLog): void {
    for (const line of log.content.trimEnd().split("\n")) this.print(`  ${line}`);
  }

  onTestModuleEnd(module: TestModule): void {
    const file = basename(module.moduleId);
    for (const error of module.errors())
      this.runErrors.push(this.masker.text(`${file}: ${firstLine(error.message)}`));
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === "passed" || state === "failed" || state === "skipped") counts[state] += 1;
    }
    const mark = counts.failed > 0 || module.errors().length > 0 ? "✗" : "✓";
    this.print(
      `${mark} ${file}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
    );
  }

  private toRecord(test: TestCase): CheckRecord {
    const meta = test.meta().h2h;
    const result = test.result();
    const [titleCheck, ...caseParts] = test.name.split(CASE_SEPARATOR);
    const check = meta?.check ?? titleCheck ?? test.name;
    const caseLabel = caseParts.join(CASE_SEPARATOR);
    let status: CheckRecord["status"];
    let detail: string;
    if (result.state === "skipped" || result.state === "pending") {
      status = "skipped";
      detail = "skipped";
    } else if (result.state === "failed") {
      status = "failed";
      // A check that ran says what it found; anything else (a request that could not be made,
      // a broken setup) is reported by its error's first line.
      detail = meta?.outcome === "failed" ? meta.detail : firstLine(result.errors?.[0]?.message ?? "failed");
    } else {
      status = meta?.outcome === "failed" ? "failed" : "passed";
      detail = meta?.detail ?? "passed";
    }
    // A check that could not run (its setup failed) is judged like any other: a warning stays one.
    const requirement = meta
      ? { required: meta.required, reason: meta.informationalReason }
      : requirementOf(CHECK_REGISTRY.get(check) ?? { name: check, warning: false }, this.informationalChecks);
    const reason =
      result.state === "skipped" ? result.note : requirement.required ? undefined : requirement.reason;
    return {
      endpoint: endpointOf(test),
      check,
      ...(caseLabel ? { case: caseLabel } : {}),
      rule: CHECK_REGISTRY.get(check)?.rule ?? "",
      status,
      required: requirement.required,
      detail: this.masker.text(detail),
      ...(reason ? { reason } : {}),
      durationMs: Math.round(test.diagnostic()?.duration ?? 0),
      exchanges: meta?.exchanges ?? [],
      source: basename(test.module.moduleId),
      ...(meta?.timeline ? { timeline: meta.timeline } : {}),
    };
  }
}
