/**
 * What is worked out of a run before any report is written: the writers only lay it out. Root
 * causes, follow-on failures, the comparison with a baseline and the sink's refusals are put in
 * the run model by the engine as the run ends (see each file); the groupings here are derived
 * from it once, for every writer.
 */
import type { RunReport } from "../engine/run-model.ts";
import {
  advisoriesByRule,
  failuresByRule,
  type RuleAdvisories,
  type RuleFailures,
} from "./failures-by-rule.ts";

export interface RunAnalysis {
  /** Each rule that failed, once, the rules that caused others first. */
  failuresByRule: RuleFailures[];
  /** What the advisories found, per rule. */
  advisoriesByRule: RuleAdvisories[];
}

export function analyseRun(report: RunReport): RunAnalysis {
  return { failuresByRule: failuresByRule(report.checks), advisoriesByRule: advisoriesByRule(report.checks) };
}
