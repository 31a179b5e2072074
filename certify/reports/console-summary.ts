/**
 * The end of a certify run on the console: the same totals as the reports (they are computed
 * once, in the report), the failures by rule with the first evidence of each (run-wide ones such
 * as `envelope.request-id-unique` included), the warnings, what was skipped and why, the verdict,
 * and where the reports are.
 */
import { isAbsolute, relative, sep } from "node:path";
import { callbacksSignatureValid } from "../../contract/index.ts";
import { advisoriesByRule, failuresByRule, placeOf } from "../analysis/failures-by-rule.ts";
import { rateLimitWaitsLine } from "../engine/preflight.ts";
import { reconnectsLine } from "../engine/reconnects.ts";
import { partialLine, type RunReport } from "../engine/run-model.ts";
import type { ReportPaths } from "./index.ts";

const MAX_DETAIL = 240;

/** A report's path as a user reads it: relative below the working folder, else absolute. */
export function shownPath(cwd: string, path: string): string {
  const below = relative(cwd, path);
  return below === "" || below === ".." || below.startsWith(`..${sep}`) || isAbsolute(below) ? path : below;
}
const shorten = (text: string) => (text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL - 3)}...` : text);

export function printSummary(
  report: RunReport,
  /** Undefined: no report was written (the caller says why). */
  paths: ReportPaths | undefined,
  print: (line: string) => void,
  cwd: string,
): void {
  const width = Math.max(24, ...report.summary.map((s) => s.endpoint.length));
  const row = (
    name: string,
    passed: number,
    failed: number,
    notEvaluated: number,
    skipped: number,
    advisories: number,
  ) =>
    `${name.padEnd(width)}  ${String(passed).padStart(6)}  ${String(failed).padStart(6)}  ${String(notEvaluated).padStart(13)}  ${String(skipped).padStart(7)}  ${String(advisories).padStart(10)}`;
  print("");
  print(`${"endpoint".padEnd(width)}  passed  failed  not evaluated  skipped  advisories  score`);
  for (const s of report.summary) {
    const score = s.score === null ? "    –" : `${s.score.toFixed(1).padStart(5)}%`;
    print(`${row(s.endpoint, s.passed, s.failed, s.notEvaluated, s.skipped, s.advisories ?? 0)}  ${score}`);
  }
  const { totals } = report;
  print(
    row("total", totals.passed, totals.failed, totals.notEvaluated, totals.skipped, totals.advisories ?? 0),
  );

  const failures = failuresByRule(report.checks);
  if (failures.length > 0) {
    const followOns = failures.reduce((sum, f) => sum + f.followOns, 0);
    print("");
    print(
      followOns > 0
        ? `failures by rule (root causes first; ${followOns} failure(s) follow from an earlier failure of their order):`
        : "failures by rule:",
    );
    for (const failure of failures) {
      const endpoints =
        failure.endpoints.length === 1 ? failure.endpoints[0] : `${failure.endpoints.length} endpoints`;
      if (failure.followOns === failure.count) {
        // Every failure of this rule follows from another rule's: shown under its cause, not beside it.
        print(
          `    ↳ ${failure.check}: ${failure.count} failure(s), ${endpoints}, following from ${failure.causes.join(", ")}`,
        );
        continue;
      }
      const following =
        failure.followOns > 0
          ? ` (${failure.followOns} of them following from ${failure.causes.join(", ")})`
          : "";
      print(`  ✗ ${failure.check}: ${failure.count} failure(s), ${endpoints}${following}`);
      print(`      first: ${placeOf(failure.first)}: ${shorten(failure.first.detail)}`);
      // A signature failure: what the provider's engineer needs to find their mistake, whole.
      if (failure.check === callbacksSignatureValid.name)
        for (const finding of failure.first.findings ?? [])
          print(
            `      ${finding.path}: received ${finding.actual}; computed ${finding.expected} (${finding.hint})`,
          );
    }
  }
  const advisories = advisoriesByRule(report.checks);
  if (advisories.length > 0) {
    print("");
    print("advisories (reported with what the target did; they never fail the run):");
    for (const advisory of advisories) {
      const did = advisory.outcomes.map(([outcome, count]) => `${outcome} ×${count}`).join("; ");
      print(`  · ${advisory.check} (${advisory.standing}): ${advisory.count} probe(s): ${shorten(did)}`);
    }
  }
  print("");
  for (const warning of report.warnings) print(`warning: ${warning}`);
  for (const error of report.errors) print(`error: ${error}`);
  // By case: a check skipped for one case may have run for others.
  const skippedNames = [
    ...new Set(
      report.checks
        .filter((c) => c.status === "skipped")
        .map((c) => `${c.check}${c.case ? ` › ${c.case}` : ""} (${c.reason ?? "skipped"})`),
    ),
  ];
  for (const skipped of skippedNames) print(`skipped: ${skipped}`);
  if (report.rateLimitWaits) print(rateLimitWaitsLine(report.rateLimitWaits));
  const reconnects = reconnectsLine(report.exchanges);
  if (reconnects) print(reconnects);
  print(
    `verdict: ${report.verdict.toUpperCase()} — ${report.target.baseUrl} (profile ${report.target.profileName}), ` +
      (report.partial ? `${partialLine(report.partial)}, ` : "") +
      `${totals.failedRequired} required check(s) failed, ${totals.notEvaluated} not evaluated, ` +
      (totals.advisories ? `${totals.advisories} advisories, ` : "") +
      `${(report.durationMs / 1000).toFixed(1)} s`,
  );
  // Said last too, where a reader's eye lands: nothing else in the run matters as much.
  if (report.alarm) print(`!!! ${report.alarm}`);
  print(paths ? "reports:" : "reports: none written");
  for (const path of Object.values(paths ?? {})) print(`  ${shownPath(cwd, path)}`);
}
