/**
 * `npm run load`: finds k6 first (so a machine without it gets one clear message and nothing is
 * written), builds the bundles, starts the reference provider and the sink when no target is
 * given, runs k6, then asks the sink for this run's callbacks and writes the reports.
 */
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import {
  type RunningTargetContainer,
  readSettings,
  readTargetContainerSettings,
  runMasker,
  secretEnvValues,
  startRunSink,
  startTargetContainer,
  TargetContainerError,
  type TargetContainerRecord,
  withReferenceDefaults,
} from "../../certify/index.ts";
import { CHECK_REGISTRY, readProfile } from "../../contract/index.ts";
import {
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../../fixtures/reference-provider/index.ts";
import { type RunningSink, SinkClient, type StoredCallback } from "../../webhook-sink/index.ts";
import type { ScenarioName } from "../lib/config.ts";
import type { K6Summary } from "../lib/summary.ts";
import { buildLoadBundles } from "./build.ts";
import { analyseDelivery } from "./delivery.ts";
import { type K6Runner, locateK6, runK6 } from "./k6-runner.ts";
import { buildLoadReport, type LoadReport, renderLoadHtml, renderLoadJunit } from "./report.ts";

export const LOAD_SCRIPTS = ["mixed", "mobile-commerce", "quasi-ecom"] as const;

export interface LoadOptions {
  scenario: ScenarioName;
  script: (typeof LOAD_SCRIPTS)[number];
  /** Passed to the script as H2H_RATE, H2H_DURATION, ... when set. */
  rate?: number;
  duration?: string;
  maxVUs?: number;
  mobileShare?: number;
  failureShare?: number;
  appealShare?: number;
  p95Ms?: number;
}

export class NoK6Error extends Error {}

/** Written beside the load reports when the target ran in a container (H2H_TARGET_IMAGE). */
export const LOAD_TARGET_LOG_FILE = "h2h-load.target-container.log";

export const LOAD_FILES = {
  summary: "k6-summary.json",
  dashboard: "k6-dashboard.html",
  junit: "h2h-load.junit.xml",
  reportJson: "h2h-load-report.json",
  reportHtml: "h2h-load-report.html",
} as const;

/** Counts the script's business errors by codeError from k6's JSON sample stream. */
async function businessErrorsFrom(samplesPath: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let lines: AsyncIterable<string>;
  try {
    lines = createInterface({ input: createReadStream(samplesPath), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (!line.includes('"h2h_business_errors"')) continue;
      const sample = JSON.parse(line) as {
        type: string;
        metric: string;
        data?: { value?: number; tags?: Record<string, string> };
      };
      if (sample.type !== "Point" || sample.metric !== "h2h_business_errors") continue;
      const code = sample.data?.tags?.codeError ?? "(none)";
      counts[code] = (counts[code] ?? 0) + (sample.data?.value ?? 1);
    }
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  return counts;
}

/** Waits until every confirmed order's final callback is in, or the callback timeout runs out. */
async function collectCallbacks(
  client: SinkClient,
  runId: string,
  confirmed: number,
  timeoutMs: number,
): Promise<StoredCallback[]> {
  const deadline = Date.now() + timeoutMs;
  let callbacks = await client.list({ runId });
  while (analyseDelivery(callbacks, confirmed).delivered < confirmed && Date.now() < deadline) {
    await client.waitFor(
      { runId },
      { timeoutMs: Math.max(1, deadline - Date.now()), minCount: callbacks.length + 1 },
    );
    callbacks = await client.list({ runId });
  }
  return callbacks;
}

export async function runLoad(
  options: LoadOptions,
  env: Record<string, string | undefined> = process.env,
  print: (line: string) => void = console.log,
): Promise<{ report: LoadReport }> {
  // k6 first: without one, say how to get it and write nothing.
  const lookup = await locateK6(env);
  if (lookup.kind === "none") throw new NoK6Error(lookup.reason);
  const runner: K6Runner = lookup;

  const initial = readSettings(env);
  const profile = await readProfile(initial.profilePath, new Set(CHECK_REGISTRY.keys()));
  const settings = withReferenceDefaults(initial, profile.name);
  const containerSettings = readTargetContainerSettings(env);
  const masker = runMasker({ ...settings, targetEnvSecrets: secretEnvValues(containerSettings) });
  const startedAt = new Date();
  const runId = `load-${startedAt.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "")}-${randomBytes(3).toString("hex")}`;
  const bundles = await buildLoadBundles(profile);
  const bundle = bundles.find((b) => b.script === options.script);
  if (!bundle) throw new Error(`no bundle for script ${options.script}`);
  print(`load: ${bundles.map((b) => `${b.script}.js ${(b.bytes / 1024).toFixed(1)} KiB`).join(", ")}`);

  const workDir = await mkdtemp(join(tmpdir(), "h2h-load-"));
  let provider: RunningReferenceProvider | undefined;
  let sink: RunningSink | undefined;
  let sinkClient: SinkClient | undefined;
  let container: RunningTargetContainer | undefined;
  try {
    if (settings.baseUrl === undefined && !containerSettings)
      provider = await startReferenceProvider({ port: 0 });
    if (containerSettings) {
      try {
        container = await startTargetContainer(containerSettings, {
          runId,
          print: (line) => print(masker.text(line)),
        });
      } catch (error) {
        if (error instanceof TargetContainerError) throw new Error(masker.text(error.message));
        throw error;
      }
    }
    sink = await startRunSink(settings, profile, join(workDir, "sink"));
    sinkClient = new SinkClient(sink.url, sink.token);
    const baseUrl = settings.baseUrl ?? container?.url ?? (provider as RunningReferenceProvider).url;
    const outputDir = join(workDir, "out");
    await mkdir(outputDir, { recursive: true });
    const scriptEnv: Record<string, string> = {
      H2H_BASE_URL: baseUrl,
      H2H_API_KEY: settings.apiKey as string,
      H2H_RUN_ID: runId,
      H2H_CALLBACK_URL: sink.callbackUrl(),
      H2H_SCENARIO: options.scenario,
    };
    const optional: [string, number | string | undefined][] = [
      ["H2H_RATE", options.rate],
      ["H2H_DURATION", options.duration],
      ["H2H_MAX_VUS", options.maxVUs],
      ["H2H_MOBILE_SHARE", options.mobileShare],
      ["H2H_FAILURE_SHARE", options.failureShare],
      ["H2H_APPEAL_SHARE", options.appealShare],
      ["H2H_P95_MS", options.p95Ms],
    ];
    for (const [name, value] of optional) if (value !== undefined) scriptEnv[name] = String(value);
    print(
      masker.text(
        `load: ${options.script} / ${options.scenario} against ${baseUrl}${provider ? " (bundled reference provider)" : ""}, run ${runId}, k6 ${runner.kind === "local" ? runner.bin : `image ${runner.image}`}`,
      ),
    );
    const samplesFile = "k6-samples.json";
    const k6ExitCode = await runK6(runner, {
      bundle: bundle.path,
      scriptEnv,
      outputDir,
      summaryFile: LOAD_FILES.summary,
      dashboardFile: LOAD_FILES.dashboard,
      samplesFile,
    });

    let summary: K6Summary;
    try {
      summary = JSON.parse(await readFile(join(outputDir, LOAD_FILES.summary), "utf8")) as K6Summary;
    } catch {
      throw new Error(
        `k6 exited with code ${k6ExitCode} and wrote no summary: the run did not happen (see k6's output above)`,
      );
    }
    const confirmed = summary.metrics.h2h_orders_confirmed?.values.count ?? 0;
    print(
      `load: waiting for the callbacks of ${confirmed} confirmed orders (at most ${profile.timeouts.callbackMs} ms)`,
    );
    const callbacks = await collectCallbacks(sinkClient, runId, confirmed, profile.timeouts.callbackMs);
    const delivery = analyseDelivery(callbacks, confirmed);
    const businessErrors = await businessErrorsFrom(join(outputDir, samplesFile));
    // H2H_TARGET_IMAGE: stopped now, so that its whole log goes with the reports.
    const containerRecord: TargetContainerRecord | undefined = await container?.stop();

    // Everything is known: only now does anything go to the report folder, whole files each.
    const reportDir = join(resolve(settings.reportDir), "load");
    await mkdir(reportDir, { recursive: true });
    const files = {
      summary: join(reportDir, LOAD_FILES.summary),
      dashboard: join(reportDir, LOAD_FILES.dashboard),
      junit: join(reportDir, LOAD_FILES.junit),
      json: join(reportDir, LOAD_FILES.reportJson),
      html: join(reportDir, LOAD_FILES.reportHtml),
    };
    const report = buildLoadReport({
      summary,
      delivery,
      deliveryTarget: profile.loadDeliveryTarget,
      businessErrors,
      meta: {
        runId,
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        target: baseUrl,
        script: options.script,
        scenario: options.scenario,
        runner: runner.kind === "local" ? `k6 ${runner.bin}` : `docker ${runner.image}`,
        k6ExitCode,
        files,
      },
    });
    await rename(join(outputDir, LOAD_FILES.summary), files.summary);
    await rename(join(outputDir, LOAD_FILES.dashboard), files.dashboard).catch(() => {
      delete (report.files as Record<string, string>).dashboard;
    });
    await writeFile(files.junit, masker.text(renderLoadJunit(report)));
    await writeFile(
      files.json,
      masker.text(
        `${JSON.stringify(containerRecord ? { ...report, targetContainer: containerRecord } : report, null, 2)}\n`,
      ),
    );
    if (containerRecord) {
      const targetLog = join(reportDir, LOAD_TARGET_LOG_FILE);
      await writeFile(targetLog, masker.text(containerRecord.logs));
      print(`load: the target container's log is in ${targetLog}`);
    }
    await writeFile(files.html, masker.text(renderLoadHtml(report)));

    print(
      `callbacks: ${delivery.delivered} of ${delivery.confirmed} confirmed orders got their final callback ` +
        `(${(delivery.ratio * 100).toFixed(2)} %, target ${(profile.loadDeliveryTarget * 100).toFixed(2)} %); ` +
        `order → callback p50 ${delivery.latencyMs.p50 ?? "–"} ms, p95 ${delivery.latencyMs.p95 ?? "–"} ms, p99 ${delivery.latencyMs.p99 ?? "–"} ms`,
    );
    print(`load: ${report.passed ? "PASSED" : "FAILED"}; reports in ${reportDir}`);
    return { report };
  } finally {
    await container?.stop();
    await sinkClient?.close();
    await provider?.stop();
    await sink?.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}
