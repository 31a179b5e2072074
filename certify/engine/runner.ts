/**
 * A certification run: settings and profile checked first, the reference provider started when
 * no target is given, the target's reachability tried once, then the contract specs run by
 * Vitest, the run-wide checks over every exchange, and the reports written.
 */
import { rm } from "node:fs/promises";
import { ExchangeRecorder, readRecordedEvidence, type SignatureScheme } from "../../contract/index.ts";
import { type Masker, makeRunFolder, removeGoneRunFolders } from "../../contract/kit/index.ts";
import { type RunSettings, sourceName } from "../../run-setup/index.ts";
import { type RunningSink, SinkClient } from "../../webhook-sink/index.ts";
import { baselineLines, compareWithBaseline, loadBaseline } from "../analysis/baseline.ts";
import { markFollowOnFailures } from "../analysis/follow-on-failures.ts";
import { isRateLimited, isTransportFault, resolveRootCauses } from "../analysis/root-causes.ts";
import { sinkRefusalsOf } from "../analysis/sink-refusals.ts";
import { attestRunReports, readSigningKey } from "../attestation/index.ts";
import {
  type CallbackEvidence,
  callbackEvidence,
  callbackReadingNotes,
  DEFAULT_CALLBACK_EVIDENCE_BOUNDS,
} from "../reports/callback-evidence.ts";
import { consoleLine } from "../reports/console.ts";
import { printSummary } from "../reports/console-summary.ts";
import { evidenceBoundsOf } from "../reports/evidence-bounds.ts";
import { type ReportKind, type ReportPaths, writeReportSet } from "../reports/index.ts";
import { collectorRequirementsOf } from "./check-collector.ts";
import { deadlineOf, watchRunStop } from "./deadline.ts";
// Checks before the first request, and the invalid-key diagnosis.
import {
  assertReportDirWritable,
  invalidApiKeyDiagnosis,
  rateLimitedDiagnosis,
  rateLimitWaitsOf,
} from "./preflight.ts";
import { onlyPattern, type ProbeOverrides } from "./probe-settings.ts";
import { runScopeCheckNames, runScopeChecks } from "./run-checks.ts";
import { specTimeoutsOf } from "./run-context.ts";
import { runFolderFault } from "./run-folder-fault.ts";
import { type CheckRecord, judgeRun, type RunReport, toolVersion } from "./run-model.ts";
import {
  describeRun,
  newRunId,
  type OpenedTarget,
  openRunTarget,
  readRunInputs,
  runContextOf,
  whyNotJudgeable,
} from "./run-target.ts";
import { SpecFileClock } from "./run-timings.ts";
import { readWarnings } from "./run-warnings.ts";
import { oneCertificationAtATime } from "./spec-host.ts";
import { runSpecsOnce, SPEC_GLOB, type SpecRunner, type SpecRunResult } from "./spec-runner.ts";

export interface CertifyOptions {
  /** The run's settings, parsed once (parseSettings, command "certify", with --seed and --depth). */
  settings: RunSettings;
  /** Where progress and the summary go (already masked). */
  print?: (line: string) => void;
  /** The whole run's deadline (`--deadline`); default: the profile's, or derived from its timeouts. */
  deadlineMs?: number;
  /** `--only`: the checks the run is limited to. */
  probes?: ProbeOverrides;
  /** Only these spec files (paths from the project root); default: every contract spec. */
  specFiles?: readonly string[];
  /** How the specs run under Vitest (default: a Vitest of its own for this run). */
  specRunner?: SpecRunner;
  /** Which reports are written (default: all four); the JSON always is. */
  reports?: readonly ReportKind[];
  /**
   * The target at H2H_BASE_URL runs in this process (the mutation self-test's provider): judged as
   * the bundled provider is (see RunContext.targetSharesSinkProcess).
   */
  targetInThisProcess?: boolean;
}

export interface CertifyResult {
  report: RunReport;
  /** Absent when the reports could not be written (`reportsError` says why). */
  paths: ReportPaths | undefined;
  /** Why no report was written: the run must not end as a pass (exit 2). */
  reportsError?: string;
  /** With H2H_ATTEST_KEY (`--attest`): the signed attestation beside the reports. */
  attestation?: string;
}

/** Every callback the sink received, as evidence tied to the scenarios that triggered them. */
async function collectCallbacks(
  sink: RunningSink,
  checks: readonly CheckRecord[],
  masker: Masker,
  errors: string[],
  /** Each callback body is kept up to this many bytes as written (the profile's limits.maxBodyBytes). */
  maxBodyBytes: number,
  signing: { scheme: SignatureScheme; secret: string | null | undefined },
): Promise<CallbackEvidence[]> {
  const client = new SinkClient(sink.url, sink.token);
  try {
    const stored = await client.list();
    const timelines = checks.flatMap((c) => (c.timeline ? [c.timeline] : []));
    const publicBase = sink.callbackUrl().replace(/\/callbacks\/.*$/, "");
    return callbackEvidence(
      stored,
      timelines,
      publicBase,
      masker,
      { ...DEFAULT_CALLBACK_EVIDENCE_BOUNDS, maxBodyBytes },
      signing,
    );
  } catch (error) {
    errors.push(masker.text(`the webhook sink's callbacks could not be read: ${String(error)}`));
    return [];
  } finally {
    await client.close();
  }
}

export function runCertification(options: CertifyOptions): Promise<CertifyResult> {
  return oneCertificationAtATime(() => certifyOnce(options));
}

async function certifyOnce(options: CertifyOptions): Promise<CertifyResult> {
  const run = options.settings;
  const cwd = run.cwd;
  const startedAt = new Date();
  const runId = newRunId(startedAt);

  // Everything the user gave is checked before a request is sent or a server started.
  const inputs = await readRunInputs(run, options.probes);
  const { settings, profile, probes, tlsSummary } = inputs;
  const workers = run.workers;
  const baseline = await loadBaseline(run.baselineReport);
  let masker = inputs.masker;
  // Control characters from the target escaped, lines shortened (certify/reports/console.ts).
  const print = (line: string) => (options.print ?? console.log)(consoleLine(masker.text(line)));

  // A report directory that cannot be written is refused now, not after the run.
  await assertReportDirWritable(settings.reportDir);
  // A key that cannot sign is refused now, not after the run.
  const attestKey =
    run.attestKey === undefined
      ? undefined
      : await readSigningKey(run.attestKey, sourceName(run, "attestKey"), cwd);
  // The deadline and SIGINT/SIGTERM end the run with partial reports.
  const deadlineMs = deadlineOf(profile, options.deadlineMs);
  const deadlineAt = Date.now() + deadlineMs;
  const runStop = watchRunStop(deadlineMs);
  let stoppedBecause: string | undefined;

  const specClock = new SpecFileClock();
  let target: OpenedTarget | undefined;
  // A run killed with SIGKILL left its folder behind: removed now that its process is gone.
  const left = await removeGoneRunFolders();
  if (left.length > 0)
    print(`removed ${left.length} temporary folder(s) that killed runs left: ${left.join(", ")}`);
  const runDir = await makeRunFolder("h2h-certify");
  runStop.removeOnForcedExit(runDir);
  try {
    // H2H_TARGET_IMAGE: the target is a container started here; one that does not get ready
    // ends the run as "not run", with its logs in the report.
    target = await openRunTarget(inputs, { runId, runDir, print });
    const { provider, sink, secrets, baseUrl } = target;
    let { containerRecord } = target;
    const containerFailure = target.containerFailure;
    masker = target.masker;
    for (const line of describeRun(inputs, target)) print(line);

    const runnerRecorder = new ExchangeRecorder("runner", masker, runDir, profile.limits.maxBodyBytes);
    // A probe answered 401 means the key is refused: nothing can be judged.
    const unreachable = await whyNotJudgeable(inputs, target, runnerRecorder, deadlineAt);
    const checks: CheckRecord[] = [];
    const errors: string[] = [];
    // The checks --only left out: a run that judged part of the contract is "partial", never a pass.
    let leftOutByOnly = 0;

    if (unreachable !== undefined) {
      errors.push(masker.text(unreachable));
      checks.push({
        endpoint: "(target)",
        ...(containerFailure
          ? {
              check: "target.container-ready",
              rule: "The target image's container starts and gets ready (H2H_TARGET_READY) within H2H_TARGET_STARTUP_S.",
            }
          : {
              check: "target.reachable",
              rule: "The target answers HTTP requests at H2H_BASE_URL within the profile's request timeout.",
            }),
        status: "failed",
        required: true,
        detail: masker.text(unreachable),
        durationMs: 0,
        exchanges: [],
        source: "runner",
      });
      print(`✗ ${masker.text(unreachable)}`);
    } else {
      const runContext = runContextOf(inputs, target, {
        runId,
        runDir,
        deadlineAt,
        targetInThisProcess: options.targetInThisProcess,
      });
      // A run-wide check judges every exchange: --only it, and every spec still runs to make them.
      const runWide = runScopeCheckNames();
      const testNamePattern = onlyPattern(probes.only.some((c) => runWide.includes(c)) ? [] : probes.only);
      const previousExitCode = process.exitCode;
      let specRun: SpecRunResult;
      try {
        // The specs run until done, the deadline, SIGINT or SIGTERM (certify/engine/deadline.ts).
        specRun = await (options.specRunner ?? runSpecsOnce)({
          runContext,
          specFiles: options.specFiles,
          // The records are made where Vitest runs: from the same secrets, with the same masker.
          reporting: {
            secrets,
            requirements: collectorRequirementsOf(profile),
          },
          print,
          runStop,
          workers,
          // --only: just the tests titled by those checks (the rest, and their setup, do not run).
          testNamePattern,
          ...specTimeoutsOf(profile),
        });
        stoppedBecause = runStop.reason;
      } finally {
        // Vitest sets a failing exit code for failed tests; the verdict decides ours.
        process.exitCode = previousExitCode;
      }
      checks.push(...specRun.records);
      errors.push(...specRun.runErrors);
      specClock.files.push(...specRun.specFiles);
      if (probes.only.length > 0) {
        // The tests --only left out are not part of this run's report.
        const kept = checks.filter((c) => probes.only.includes(c.check));
        leftOutByOnly += checks.length - kept.length;
        checks.splice(0, checks.length, ...kept);
      }
      // A stopped run has one cause, the stop: that no spec ran follows from it.
      const stopped = stoppedBecause !== undefined;
      if (!stopped && specRun.records.length === 0 && errors.length === 0)
        errors.push(`no contract spec ran (looked for ${SPEC_GLOB})`);
      else if (
        !stopped &&
        probes.only.length > 0 &&
        checks.length === 0 &&
        !probes.only.some((c) => runWide.includes(c))
      )
        errors.push(`no test of ${probes.only.join(", ")} ran for this target and profile`);
    }

    const recorded = readRecordedEvidence(runDir);
    const { exchanges } = recorded;
    // A full TMPDIR: records lost or torn. What was kept is reported, and the run is not judged on it.
    const folderFault = runFolderFault(runDir, recorded);
    if (folderFault !== undefined) errors.push(masker.text(folderFault));
    const onlyKept = (c: CheckRecord) => probes.only.length === 0 || probes.only.includes(c.check);
    const keptByOnly = (records: readonly CheckRecord[]) => {
      const kept = records.filter(onlyKept);
      leftOutByOnly += records.length - kept.length;
      return kept;
    };
    // Every registered run-scope check over every exchange, the probe's too.
    if (unreachable === undefined) checks.push(...keptByOnly(runScopeChecks(exchanges, profile, masker)));
    // Stopped before the reports are written, so that they hold its whole log and its exit code.
    if (target.container) containerRecord = await target.container.stop();
    // Every answer a 401 is a refused key, not a non-conformant target; mostly 429s: rate limited.
    const refusedKey =
      unreachable === undefined
        ? (invalidApiKeyDiagnosis(exchanges) ?? rateLimitedDiagnosis(exchanges))
        : undefined;
    if (refusedKey !== undefined) errors.unshift(refusedKey);
    // One cause per failure: each cause fails once per endpoint; the checks it blocked point at it.
    const resolved = resolveRootCauses(checks, exchanges, profile);
    checks.splice(0, checks.length, ...resolved.records);
    // The root cause first: a failure an earlier failure of its order explains is shown under it.
    markFollowOnFailures(checks, exchanges);
    // A 429 or 503 is no answer: the checks that met one were not evaluated, and the run says why.
    const byId = new Map(exchanges.map((e) => [e.id, e]));
    const rateLimited = resolved.unexplained.filter((c) => isRateLimited(c, byId));
    // A transport fault (no answer, broken framing, a desync) is an error of the run, not a failure.
    const transportFaults = resolved.unexplained.filter((c) => isTransportFault(c));
    const unexplained = resolved.unexplained.filter(
      (c) => !rateLimited.includes(c) && !transportFaults.includes(c),
    );
    if (transportFaults.length > 0 && runStop.reason === undefined) {
      const [first] = transportFaults;
      errors.push(
        `transport faults: ${transportFaults.length} check(s) could not be evaluated, first ${first?.endpoint} › ${first?.check}: ${first?.detail}`,
      );
    }
    if (
      rateLimited.length > 0 &&
      runStop.reason === undefined &&
      !errors.some((e) => e.startsWith("rate limited"))
    ) {
      const [first] = rateLimited;
      errors.push(
        `rate limited: ${rateLimited.length} check(s) could not be evaluated, first ${first?.endpoint} › ${first?.check}: ${first?.detail}`,
      );
    }
    // Checks that could not be judged leave the run unjudged, unless required checks failed on their
    // own: those failures stand, and the unjudged ones are said beside the verdict.
    const notEvaluatedNote =
      unexplained.length > 0 && errors.length === 0 && runStop.reason === undefined
        ? `${unexplained.length} check(s) could not be evaluated, first ${unexplained[0]?.endpoint} › ${unexplained[0]?.check}: ${unexplained[0]?.detail}`
        : undefined;
    const failedOnTheirOwn = checks.some((c) => c.status === "failed" && c.required);
    if (notEvaluatedNote !== undefined && !failedOnTheirOwn) errors.push(notEvaluatedNote);
    const callbacks = await collectCallbacks(sink, checks, masker, errors, profile.limits.maxBodyBytes, {
      scheme: profile.callbacks.signature,
      secret: secrets.callbackSecret,
    });
    const warnings = [
      ...inputs.secretWarnings,
      ...readWarnings(runDir).map((warning) => masker.text(warning)),
    ];
    // What the evidence bounds left out (a flood, huge or escaped bodies), counted and said.
    const bounded = evidenceBoundsOf(recorded, callbacks, sink.stats().excess);
    warnings.push(...bounded.warnings);
    // Callbacks the sink itself refused make "no callback" the run's fault, not the provider's.
    const refusals = sinkRefusalsOf(sink.stats().rejected);
    if (refusals.error && runStop.reason === undefined) errors.push(refusals.error);
    if (refusals.warning) warnings.push(refusals.warning);
    warnings.push(...callbackReadingNotes(callbacks));
    if (notEvaluatedNote !== undefined && failedOnTheirOwn) warnings.push(notEvaluatedNote);
    // A stopped run is "incomplete", its reason first; its reports hold what ran.
    const judged = judgeRun({ checks, errors, stoppedBecause, only: probes.only, leftOutByOnly });
    const rateLimitWaits = rateLimitWaitsOf(exchanges);
    const finishedAt = new Date();
    const report: RunReport = {
      tool: { name: "h2h-certify", version: await toolVersion() },
      runId,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      target: {
        baseUrl,
        reference: provider !== undefined,
        profileName: profile.name,
        profilePath: settings.profilePath,
        ...(tlsSummary ? { tls: tlsSummary } : {}),
      },
      probes: {
        seed: probes.seed,
        depth: probes.depth,
        merchantOrderIdPrefix: probes.merchantOrderIdPrefix,
        only: [...probes.only],
      },
      ...judged,
      errors,
      warnings,
      checks,
      exchanges,
      ...(containerRecord ? { targetContainer: containerRecord } : {}),
      ...(rateLimitWaits ? { rateLimitWaits } : {}),
      callbacks,
      ...(bounded.bounds ? { evidenceBounds: bounded.bounds } : {}),
      timings: specClock.timings(startedAt.getTime()),
    };
    if (baseline) report.baseline = compareWithBaseline(baseline, report);
    // A set that could not be written is none at all: the verdict is still said, then why.
    const written = await writeReportSet(report, settings.reportDir, masker, options.reports);
    // The attestation is of the set just written; without one, an earlier run's is removed.
    const attestation = await attestRunReports(settings.reportDir, attestKey, written);
    const reportsError = written.error ?? attestation.error;
    const paths = attestation.error === undefined ? written.paths : undefined;
    printSummary(report, paths, print, cwd);
    if (attestation.attested && attestKey)
      print(
        `attestation: ${attestation.attested.path} (signed with the ${attestKey.algorithm} key of ${attestKey.source}, keyid ${attestKey.keyid})`,
      );
    if (report.baseline) for (const line of baselineLines(report.baseline)) print(line);
    if (reportsError !== undefined) print(`error: ${reportsError}`);
    return {
      report,
      paths,
      ...(reportsError !== undefined ? { reportsError } : {}),
      ...(attestation.attested ? { attestation: attestation.attested.path } : {}),
    };
  } finally {
    runStop.dispose();
    await target?.close();
    await rm(runDir, { recursive: true, force: true });
  }
}
