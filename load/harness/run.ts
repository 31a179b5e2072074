/**
 * `npm run load`: finds k6 first (so a machine without it gets one clear message and nothing is
 * written), builds the bundles, starts the reference provider and the sink when no target is
 * given, runs k6, then asks the sink for this run's callbacks and writes the reports.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { CHECK_REGISTRY, type OrderKind, readProfile } from "../../contract/index.ts";
import {
  makeRunFolder,
  removeGoneRunFolders,
  summarizeTlsFiles,
  tlsSummaryLines,
} from "../../contract/kit/index.ts";
import {
  type OpenedTarget,
  openTarget,
  type RunSettings,
  readTargetContainerSettings,
  readTlsSettings,
  SETTINGS,
  type SettingKey,
  type SettingSpec,
  SettingsError,
  shortSecretWarnings,
  type TargetContainerRecord,
  targetSettingsOf,
  withReferenceDefaults,
} from "../../run-setup/index.ts";
import { CallbackTally } from "../../webhook-sink/index.ts";
import { capacityLine, stressOutcome } from "../lib/capacity.ts";
import { parseLoadConfig } from "../lib/config.ts";
import { describeScenario, durationSeconds, operationsOf, stepsOf } from "../lib/scenarios.ts";
import { confirmedByFinal, failingCheckLines, type K6Summary } from "../lib/summary.ts";
import { buildLoadBundles, bundledProfileOf } from "./build.ts";
import { analyseDelivery, type DeliveryReport } from "./delivery.ts";
import { type K6Runner, locateK6, runK6 } from "./k6-runner.ts";
import {
  businessErrorsByCode,
  type K6Timeline,
  loadSeriesOf,
  readK6Timeline,
  TIMELINE_TAGS,
  TimelineFormatError,
  timelinePeriodSeconds,
  transportErrorsByCode,
} from "./k6-timeline.ts";
import { k6TlsEnv, prepareK6Tls } from "./k6-tls.ts";
import {
  buildLoadReport,
  deliverySentence,
  type LoadReport,
  renderLoadHtml,
  renderLoadJunit,
} from "./report.ts";
import { deliveryFromSink } from "./sink-delivery.ts";

export const LOAD_SCRIPTS = ["mixed", "mobile-commerce", "quasi-ecom"] as const;

export interface LoadOptions {
  /** The run's settings, parsed once (parseSettings, command "load", with the flags). */
  settings: RunSettings;
  script: (typeof LOAD_SCRIPTS)[number];
  /** Where k6 is looked for: PATH, K6_BIN, DOCKER_HOST (default: this process's environment). */
  toolEnv?: Record<string, string | undefined>;
}

export class NoK6Error extends Error {}

/** Written beside the load reports when the target ran in a container (H2H_TARGET_IMAGE). */
export const LOAD_TARGET_LOG_FILE = "h2h-load.target-container.log";

export const LOAD_FILES = {
  summary: "k6-summary.json",
  dashboard: "k6-dashboard.html",
  timeline: "k6-timeline.ndjson.gz",
  junit: "h2h-load.junit.xml",
  reportJson: "h2h-load-report.json",
  reportHtml: "h2h-load-report.html",
} as const;

/** The kinds of order each script runs. */
const KINDS: Record<(typeof LOAD_SCRIPTS)[number], OrderKind[]> = {
  mixed: ["mobile_commerce", "quasi_ecom"],
  "mobile-commerce": ["mobile_commerce"],
  "quasi-ecom": ["quasi_ecom"],
};

/** Late callbacks are still counted (as late) this long after the wait window closed, at most. */
export const LATE_GRACE_MS = 10_000;

/** Bytes in the files under a folder. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/**
 * `npm run load -- --delivery-from-sink URL --run-id ID`: no k6; the delivery and latency of a run
 * that other k6 processes drove, from the one sink they all called back to.
 */
export async function runSinkDelivery(
  run: RunSettings,
  print: (line: string) => void = console.log,
): Promise<{ passed: boolean }> {
  const initial = targetSettingsOf(run);
  const profile = await readProfile(initial.profilePath, new Set(CHECK_REGISTRY.keys()));
  const callbackUrl = run.deliveryFromSink as string;
  if (run.runId === undefined)
    throw new SettingsError(
      "--delivery-from-sink needs the run to count: give --run-id (or H2H_RUN_ID), the H2H_RUN_ID the k6 runs used",
    );
  const result = await deliveryFromSink({
    callbackUrl,
    runId: run.runId,
    windowMs: profile.timeouts.callbackMs,
    deliveryTarget: profile.loadDeliveryTarget,
    reportDir: run.reportDir,
  });
  const delivery = result.delivery;
  printDelivery(delivery, print);
  const failure =
    delivery.confirmed === 0
      ? `the sink holds no trigger note of run ${run.runId}: no order was confirmed with H2H_CALLBACK_URL at this sink`
      : result.passed
        ? undefined
        : `callback delivery ${(delivery.ratio * 100).toFixed(2)} % is below the target ${(profile.loadDeliveryTarget * 100).toFixed(2)} %`;
  if (failure) print(`  ✗ ${failure}`);
  print(
    `load: delivery of run ${run.runId} ${result.passed ? "PASSED" : "FAILED"}; written to ${result.file}`,
  );
  return { passed: result.passed };
}

/** The console's delivery lines: the sentence, both latencies, and each final status. */
function printDelivery(delivery: DeliveryReport, print: (line: string) => void): void {
  const percentiles = (l: typeof delivery.latencyMs) =>
    `p50 ${l.p50 ?? "–"} ms, p95 ${l.p95 ?? "–"} ms, p99 ${l.p99 ?? "–"} ms`;
  if (delivery.confirmed === 0 && delivery.uncounted === 0) {
    print(`callbacks: ${deliverySentence(delivery)}`);
    return;
  }
  print(
    `callbacks: ${deliverySentence(delivery)}; trigger → callback ${percentiles(delivery.triggerLatencyMs)}; ` +
      `order → callback ${percentiles(delivery.latencyMs)}` +
      (delivery.withoutTrigger > 0
        ? `; ${delivery.withoutTrigger} judged from the order (their trigger note never reached the sink)`
        : ""),
  );
  for (const f of delivery.byFinal.filter((f) => f.confirmed > 0 || f.delivered > 0)) {
    print(
      `  ${f.final}: ${f.delivered - f.late} of ${f.confirmed} on time, ${f.late} late, ${f.missing} missing, ` +
        `${f.duplicates} duplicates, ${f.outOfOrder} out of order` +
        (Object.keys(f.otherFinal).length > 0
          ? `, other final status: ${Object.entries(f.otherFinal)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")}`
          : ""),
    );
  }
}

export async function runLoad(
  options: LoadOptions,
  print: (line: string) => void = console.log,
): Promise<{ report: LoadReport }> {
  const run = options.settings;
  // k6 first: without one, say how to get it and write nothing.
  const lookup = await locateK6(options.toolEnv ?? process.env, run.k6Image);
  if (lookup.kind === "none") throw new NoK6Error(lookup.reason);
  const runner: K6Runner = lookup;

  const initial = targetSettingsOf(run);
  const profile = await readProfile(initial.profilePath, new Set(CHECK_REGISTRY.keys()));
  const settings = withReferenceDefaults(initial, profile.name, profile.callbacks.signature.scheme);
  const containerSettings = readTargetContainerSettings(run);
  // The TLS files checked before anything starts (exit 64 naming the variable).
  const tlsMaterial = readTlsSettings(settings);
  const startedAt = new Date();
  const runId =
    run.runId ??
    `load-${startedAt.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "")}-${randomBytes(3).toString("hex")}`;
  const kinds = KINDS[options.script];
  const windowMs = profile.timeouts.callbackMs;

  // A run killed with SIGKILL left its folder behind: removed now that its process is gone.
  await removeGoneRunFolders();
  const workDir = await makeRunFolder("h2h-load");
  let target: OpenedTarget | undefined;
  try {
    // The same settings the script will read, checked here first: a bad value stops the run
    // before anything starts, with the same message k6 would give.
    const scriptEnv: Record<string, string> = {
      H2H_BASE_URL: settings.baseUrl ?? "http://127.0.0.1:1",
      H2H_API_KEY: settings.apiKey as string,
      H2H_RUN_ID: runId,
      H2H_SCENARIO: run.scenario,
    };
    // The script's settings given as flags; the script's own defaults stand for the rest.
    for (const [key, spec] of Object.entries(SETTINGS) as [SettingKey, SettingSpec][])
      if (spec.parsedBy === "k6 scripts" && run.sources[key] === "flag" && key !== "runId")
        scriptEnv[spec.variable] = String(run[key]);
    // The TLS folder k6 gets (CA bundle for SSL_CERT_FILE, client certificate and key).
    const tls = await prepareK6Tls(tlsMaterial, join(workDir, "tls"));
    const config = parseLoadConfig(
      { ...scriptEnv, ...k6TlsEnv(tls, tls?.dir ?? "").scriptEnv },
      bundledProfileOf(profile),
    );
    const timelinePoints = run.timelinePoints;

    const bundles = await buildLoadBundles(profile);
    const bundle = bundles.find((b) => b.script === options.script);
    if (!bundle) throw new Error(`no bundle for script ${options.script}`);
    print(`load: ${bundles.map((b) => `${b.script}.js ${kib(b.bytes)}`).join(", ")}`);

    const tally = new CallbackTally();
    // The sink in its load-run mode: callbacks tallied, nothing stored per callback.
    target = await openTarget(settings, profile, containerSettings, {
      runId,
      sinkDir: join(workDir, "sink"),
      print,
      sinkMode: { tally },
    });
    if (target.containerFailure !== undefined) throw new Error(target.containerFailure);
    const { baseUrl, provider, container, sink, masker } = target;
    scriptEnv.H2H_BASE_URL = baseUrl;
    scriptEnv.H2H_CALLBACK_URL = sink.callbackUrl();
    const outputDir = join(workDir, "out");
    await mkdir(outputDir, { recursive: true });
    print(
      masker.text(
        `load: ${options.script} against ${baseUrl}${provider ? " (bundled reference provider)" : ""}, run ${runId}, k6 ${runner.kind === "local" ? runner.bin : `image ${runner.image}`}`,
      ),
    );
    const tlsSummary = tlsMaterial ? summarizeTlsFiles(settings.tls, tlsMaterial) : undefined;
    for (const line of tlsSummary ? tlsSummaryLines(tlsSummary) : []) print(`load: TLS: ${line}`);
    const secrets = { ...settings, tlsPassphrase: settings.tls.passphrase };
    for (const warning of shortSecretWarnings(secrets)) print(`load: warning: ${warning}`);
    const sends = describeScenario(config, kinds);
    print(`load: ${sends}`);
    const startMs = Date.now();
    const k6ExitCode = await runK6(runner, {
      bundle: bundle.path,
      scriptEnv,
      outputDir,
      summaryFile: LOAD_FILES.summary,
      dashboardFile: LOAD_FILES.dashboard,
      timelineFile: LOAD_FILES.timeline,
      timelinePeriodSeconds: timelinePeriodSeconds(durationSeconds(config.duration), timelinePoints),
      timelineTags: TIMELINE_TAGS,
      ...(tls ? { tls } : {}),
    });

    let summary: K6Summary;
    try {
      summary = JSON.parse(await readFile(join(outputDir, LOAD_FILES.summary), "utf8")) as K6Summary;
    } catch {
      throw new Error(
        `k6 exited with code ${k6ExitCode} and wrote no summary: the run did not happen (see k6's output above)`,
      );
    }
    const confirmed = confirmedByFinal(summary);
    const confirmedTotal = Object.values(confirmed).reduce((a, b) => a + b, 0);
    print(`load: waiting for the callbacks of ${confirmedTotal} confirmed orders (at most ${windowMs} ms)`);
    let delivered = await tally.waitForDeliveries(runId, confirmedTotal, Date.now() + windowMs);
    if (delivered < confirmedTotal) {
      // Some are missing: listen a little longer, so a late callback is reported as late, not lost.
      const grace = Math.min(windowMs, LATE_GRACE_MS);
      print(`load: ${confirmedTotal - delivered} still missing; listening ${grace} ms more for late ones`);
      delivered = await tally.waitForDeliveries(runId, confirmedTotal, Date.now() + grace);
    }
    const delivery = analyseDelivery(
      tally.summary(runId, windowMs),
      confirmed,
      tally.intakeSummary(),
      tally.samples,
    );
    const runTally = tally.summary(runId, windowMs);
    // H2H_TARGET_IMAGE: stopped now, so that its whole log goes with the reports.
    const containerRecord: TargetContainerRecord | undefined = await container?.stop();

    let timeline: K6Timeline | undefined;
    try {
      timeline = await readK6Timeline(join(outputDir, LOAD_FILES.timeline));
    } catch (error) {
      if (!(error instanceof TimelineFormatError)) throw error;
      print(`load: warning: ${error.message}; the report has no k6 plots`);
    }
    if (timeline === undefined) print("load: k6 wrote no web dashboard record; the report has no k6 plots");
    const steps = stepsOf(config);
    const stress =
      steps === undefined
        ? undefined
        : stressOutcome(summary, steps, { p95Ms: config.p95Ms, operations: operationsOf(kinds) });

    // Everything is known: only now does anything go to the report folder, whole files each.
    const reportDir = join(resolve(settings.reportDir), "load");
    await mkdir(reportDir, { recursive: true });
    const files: Record<string, string> = {
      summary: join(reportDir, LOAD_FILES.summary),
      dashboard: join(reportDir, LOAD_FILES.dashboard),
      timeline: join(reportDir, LOAD_FILES.timeline),
      junit: join(reportDir, LOAD_FILES.junit),
      json: join(reportDir, LOAD_FILES.reportJson),
      html: join(reportDir, LOAD_FILES.reportHtml),
    };
    const report = buildLoadReport({
      summary,
      delivery,
      deliveryTarget: profile.loadDeliveryTarget,
      businessErrorsByCode: timeline ? businessErrorsByCode(timeline) : null,
      transportErrorsByCode: timeline ? transportErrorsByCode(timeline) : null,
      stress,
      series: timeline ? loadSeriesOf(timeline) : undefined,
      sinkSeries: { delivered: runTally.deliveredTimeline, intake: runTally.intakeTimeline },
      startMs,
      meta: {
        runId,
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        target: baseUrl,
        script: options.script,
        scenario: run.scenario,
        sends,
        settings: {
          rate: config.rate,
          duration: config.duration,
          thinkSeconds: config.thinkSeconds,
          maxVUs: config.maxVUs,
          mobileShare: config.mobileShare,
          failureShare: config.failureShare,
          appealShare: config.appealShare,
          p95Ms: config.p95Ms,
        },
        runner: runner.kind === "local" ? `k6 ${runner.bin}` : `docker ${runner.image}`,
        ...(tlsSummary ? { tls: tlsSummary } : {}),
        k6ExitCode,
        files,
      },
    });
    await rename(join(outputDir, LOAD_FILES.summary), files.summary as string);
    for (const key of ["dashboard", "timeline"] as const) {
      await rename(join(outputDir, LOAD_FILES[key]), files[key] as string).catch(() => {
        delete report.files[key];
      });
    }
    await writeFile(files.junit as string, masker.text(renderLoadJunit(report)));
    await writeFile(
      files.json as string,
      masker.text(
        `${JSON.stringify(containerRecord ? { ...report, targetContainer: containerRecord } : report, null, 2)}\n`,
      ),
    );
    if (containerRecord) {
      const targetLog = join(reportDir, LOAD_TARGET_LOG_FILE);
      await writeFile(targetLog, masker.text(containerRecord.logs));
      print(`load: the target container's log is in ${targetLog}`);
    }
    await writeFile(files.html as string, masker.text(renderLoadHtml(report)));

    if (stress) print(capacityLine(stress));
    const failing = failingCheckLines(summary);
    if (failing.length > 0) print(["failing checks:", ...failing].join("\n"));
    printDelivery(delivery, print);
    print(
      `sink: took ${delivery.sink.callbacks} callbacks, peak ${delivery.sink.peakPerSecond}/s, answered in p99 ` +
        `${delivery.sink.answerMs.p99?.toFixed(2) ?? "–"} ms (max ${delivery.sink.answerMs.max?.toFixed(2) ?? "–"} ms)`,
    );
    if (report.transportErrors.total > 0)
      print(
        `load: ${report.transportErrors.total} requests got no answer (refused, reset or timed out): faults of the connection, ` +
          `counted apart from the ${report.businessErrors.total} business errors and left out of the latency figures`,
      );
    const reportBytes = await folderBytes(reportDir);
    const dashboardBytes = await stat(files.dashboard as string).then(
      (s) => s.size,
      () => 0,
    );
    const workBytes = await folderBytes(workDir);
    print(
      `load: wrote ${kib(reportBytes + workBytes)}: report folder ${kib(reportBytes)} (of which k6's dashboard ${kib(dashboardBytes)}), work files ${kib(workBytes)}`,
    );
    for (const failure of report.failures) print(`  ✗ ${failure}`);
    print(`load: ${report.passed ? "PASSED" : "FAILED"}; reports in ${reportDir}`);
    return { report };
  } finally {
    await target?.close();
    await rm(workDir, { recursive: true, force: true });
  }
}
