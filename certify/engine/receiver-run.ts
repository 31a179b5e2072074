/**
 * The receiver battery (`npm run certify:receiver`): the provider's callbacks played towards a
 * merchant's webhook receiver, on certify's engine. Its specs (receiver-specs/) run in the same
 * Vitest thread as the contract specs (spec-runner.ts), record their checks through the same
 * reporter, and the run is judged and reported as certify's: the same verdicts, the same JUnit,
 * JSON, HTML and HAR reports, the same masking.
 */
import { readFile, rm } from "node:fs/promises";
import { connect } from "node:net";
import * as z from "zod";
import {
  CHECK_REGISTRY,
  FORGERY_ACKNOWLEDGED,
  FORGERY_CHECKS,
  ORDER_KINDS,
  type Profile,
  type ReceiverOrder,
  readProfile,
  readRecordedEvidence,
} from "../../contract/index.ts";
import { makeRunFolder, removeGoneRunFolders } from "../../contract/kit/index.ts";
import { REFERENCE_CALLBACK_SECRET } from "../../fixtures/providers/reference/index.ts";
import { startReferenceReceiver } from "../../fixtures/receivers/reference/index.ts";
import { type RunSettings, runMasker, SettingsError, shortSecretWarnings } from "../../run-setup/index.ts";
import { consoleLine } from "../reports/console.ts";
import { printSummary } from "../reports/console-summary.ts";
import { type ReportPaths, writeReportSet } from "../reports/index.ts";
import { deadlineOf, watchRunStop } from "./deadline.ts";
import { assertReportDirWritable } from "./preflight.ts";
import { onlyPattern } from "./probe-settings.ts";
import {
  RECEIVER_BURST,
  RECEIVER_SPEC_GLOB,
  type ReceiverRunContext,
  receiverTimeoutsOf,
} from "./receiver-context.ts";
import { runFolderFault } from "./run-folder-fault.ts";
import { type CheckRecord, judgeRun, type RunReport, toolVersion } from "./run-model.ts";
import { newRunId } from "./run-target.ts";
import { readWarnings } from "./run-warnings.ts";
import { oneCertificationAtATime } from "./spec-host.ts";
import { runSpecsOnce, type SpecRunner } from "./spec-runner.ts";

export interface ReceiverCertifyOptions {
  /** The settings, parsed once (parseSettings, command "receiver"). */
  settings: RunSettings;
  print?: (line: string) => void;
  /** `--only`: the receiver checks the run is limited to (then "partial" at best). */
  only?: readonly string[];
  deadlineMs?: number;
  specRunner?: SpecRunner;
}

const OrdersFile = z.array(
  z.object({
    id: z.string().min(1),
    amount: z.number().positive(),
    kind: z.enum(ORDER_KINDS),
    merchantOrderID: z.string().optional(),
  }),
);

/** H2H_RECEIVER_ORDERS: the orders the receiver's system knows, each refusal naming the fix. */
export async function readReceiverOrders(path: string): Promise<ReceiverOrder[]> {
  let json: unknown;
  try {
    json = JSON.parse((await readFile(path, "utf8")).replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new SettingsError(
      `H2H_RECEIVER_ORDERS "${path}" cannot be read as JSON (${(error as { code?: string }).code ?? (error as Error).message}): give a JSON file of [{"id", "amount", "kind"}]`,
    );
  }
  // A bare list, or one under "orders".
  const list = typeof json === "object" && json !== null && "orders" in json ? json.orders : json;
  const parsed = OrdersFile.safeParse(list);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new SettingsError(
      `H2H_RECEIVER_ORDERS "${path}": ${issue?.path.join(".") || "(the file)"}: ${issue?.message}; expected [{"id": "…", "amount": 1500, "kind": "${ORDER_KINDS.join('" or "')}"}]`,
    );
  }
  const orders = parsed.data;
  const missing = ORDER_KINDS.filter((kind) => !orders.some((o) => o.kind === kind));
  if (missing.length > 0)
    throw new SettingsError(
      `H2H_RECEIVER_ORDERS "${path}" has no order of kind ${missing.join(", ")}: give at least one of each kind (${ORDER_KINDS.join(", ")})`,
    );
  return orders;
}

/** The names of the receiver checks, for --only and --list-checks. */
export function receiverCheckNames(): string[] {
  return [...CHECK_REGISTRY.values()].filter((c) => c.group === "receiver").map((c) => c.name);
}

/** Whether anything answers at the URL's host and port (a refused connection is "not run"). */
function reachable(url: string, timeoutMs: number): Promise<string | undefined> {
  const { hostname, port, protocol } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: hostname.replace(/^\[|\]$/g, ""),
      port: Number(port || (protocol === "https:" ? 443 : 80)),
    });
    const done = (why: string | undefined) => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(timeoutMs, () => done(`no connection within ${timeoutMs} ms`));
    socket.once("connect", () => done(undefined));
    socket.once("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

/** The alarm: a forged callback acknowledged, said at the top of every report. */
function alarmOf(checks: readonly CheckRecord[]): string | undefined {
  const taken = checks.filter(
    (c) =>
      FORGERY_CHECKS.includes(c.check) && c.status === "failed" && c.detail.startsWith(FORGERY_ACKNOWLEDGED),
  );
  if (taken.length === 0) return undefined;
  return `FORGED CALLBACK ACKNOWLEDGED: the receiver took ${taken.length} forged callback(s) as real (${taken
    .map((c) => c.case ?? c.check)
    .join("; ")}). Anyone can tell it an order is paid: fix its signature check before anything else.`;
}

export function runReceiverCertification(
  options: ReceiverCertifyOptions,
): Promise<{ report: RunReport; paths: ReportPaths | undefined; reportsError?: string }> {
  return oneCertificationAtATime(() => certifyReceiverOnce(options));
}

async function certifyReceiverOnce(
  options: ReceiverCertifyOptions,
): Promise<{ report: RunReport; paths: ReportPaths | undefined; reportsError?: string }> {
  const { settings } = options;
  const startedAt = new Date();
  const runId = newRunId(startedAt);
  const profile: Profile = await readProfile(settings.profile, new Set(CHECK_REGISTRY.keys()));
  const signed = profile.callbacks.signature.scheme !== "none";
  const reference = settings.receiverUrl === undefined;
  const secret = settings.callbackSecret ?? (reference ? REFERENCE_CALLBACK_SECRET : undefined) ?? null;
  if (signed && secret === null)
    throw new SettingsError(
      `H2H_CALLBACK_SECRET is not set, and the profile ${profile.name} signs callbacks: give the secret the receiver verifies with`,
    );
  const orders = settings.receiverOrders ? await readReceiverOrders(settings.receiverOrders) : null;
  if (orders === null && profile.callbacks.unknownOrder === "refuse")
    throw new SettingsError(
      `the profile ${profile.name} says a receiver refuses unknown orders (callbacks.unknownOrder "refuse"): give H2H_RECEIVER_ORDERS, the orders it knows, or every valid callback would be refused`,
    );
  const only = [...(options.only ?? [])];
  const known = receiverCheckNames();
  const unknown = only.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new SettingsError(
      `--only ${unknown.join(", ")}: no receiver check has this name (${known.join(", ")})`,
    );
  await assertReportDirWritable(settings.reportDir);

  let masker = runMasker({ callbackSecret: secret, baseUrl: settings.receiverUrl });
  const print = (line: string) => (options.print ?? console.log)(consoleLine(masker.text(line)));
  const deadlineMs = deadlineOf(profile, options.deadlineMs);
  const runStop = watchRunStop(deadlineMs);
  await removeGoneRunFolders();
  const runDir = await makeRunFolder("h2h-receiver");
  const started = reference
    ? await startReferenceReceiver({
        profile,
        secret,
        ...(orders ? { knownOrders: new Set(orders.map((o) => o.id)) } : {}),
      })
    : undefined;
  try {
    const receiverUrl = started?.url ?? (settings.receiverUrl as string);
    masker = runMasker({ callbackSecret: secret, baseUrl: receiverUrl });
    print(
      `certifying the webhook receiver at ${receiverUrl}${reference ? " (the bundled reference receiver)" : ""} with profile ${profile.name}`,
    );
    const warnings = shortSecretWarnings(
      { callbackSecret: secret, baseUrl: receiverUrl },
      "H2H_RECEIVER_URL",
    );
    if (orders === null)
      warnings.push(
        "H2H_RECEIVER_ORDERS is not set: every callback names an order the receiver has never seen; give the orders its system knows to certify it with its own orders",
      );
    const fewOrders = ORDER_KINDS.filter((kind) => (orders ?? []).filter((o) => o.kind === kind).length < 4);
    if (orders !== null && fewOrders.length > 0)
      warnings.push(
        `H2H_RECEIVER_ORDERS has fewer than 4 orders of ${fewOrders.join(", ")}: the 4 valid callbacks of a kind share orders, and a receiver that refuses a second final status of an order fails receiver.acknowledges-valid; give 4 of each`,
      );
    const errors: string[] = [];
    const checks: CheckRecord[] = [];
    const unreachable = await reachable(receiverUrl, profile.timeouts.callbackMs);
    if (unreachable !== undefined) {
      const detail = `the receiver at ${receiverUrl} could not be reached: ${unreachable}`;
      errors.push(masker.text(detail));
      checks.push({
        endpoint: "(target)",
        check: "target.reachable",
        rule: "The receiver accepts connections at H2H_RECEIVER_URL within the profile's callback timeout.",
        status: "failed",
        required: true,
        detail: masker.text(detail),
        durationMs: 0,
        exchanges: [],
        source: "runner",
      });
      print(`✗ ${detail}`);
    } else {
      const receiverContext: ReceiverRunContext = {
        receiverUrl,
        callbackSecret: secret,
        profile,
        profilePath: settings.profile,
        runId,
        runDir,
        deadlineAt: Date.now() + deadlineMs,
        orders,
        burst: { ...RECEIVER_BURST },
      };
      const previousExitCode = process.exitCode;
      try {
        const specRun = await (options.specRunner ?? runSpecsOnce)({
          receiverContext,
          specFiles: [RECEIVER_SPEC_GLOB],
          reporting: { secrets: { callbackSecret: secret, baseUrl: receiverUrl }, requirements: profile },
          print,
          runStop,
          // One thread, the files one after another: the burst is timed alone.
          workers: 1,
          testNamePattern: onlyPattern(only),
          ...receiverTimeoutsOf(profile, receiverContext.burst),
        });
        checks.push(...specRun.records.filter((c) => only.length === 0 || only.includes(c.check)));
        errors.push(...specRun.runErrors);
        if (specRun.records.length === 0 && errors.length === 0)
          errors.push(`no receiver spec ran (looked for ${RECEIVER_SPEC_GLOB})`);
      } finally {
        process.exitCode = previousExitCode;
      }
    }
    const stoppedBecause = runStop.reason;
    const recorded = readRecordedEvidence(runDir);
    const { exchanges } = recorded;
    // A full TMPDIR: records lost or torn; the run is not judged on what it kept.
    const folderFault = runFolderFault(runDir, recorded);
    if (folderFault !== undefined) errors.push(masker.text(folderFault));
    warnings.push(...readWarnings(runDir).map((w) => masker.text(w)));
    const judged = judgeRun({ checks, errors, stoppedBecause, only });
    const alarm = alarmOf(checks);
    const finishedAt = new Date();
    const report: RunReport = {
      tool: { name: "h2h-certify", version: await toolVersion() },
      subject: "receiver",
      ...(alarm ? { alarm } : {}),
      runId,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      target: { baseUrl: receiverUrl, reference, profileName: profile.name, profilePath: settings.profile },
      ...judged,
      errors,
      warnings,
      checks,
      exchanges,
      callbacks: [],
    };
    const written = await writeReportSet(report, settings.reportDir, masker);
    if (alarm) print(`!!! ${alarm}`);
    printSummary(report, written.paths, print, settings.cwd);
    if (written.error !== undefined) print(`error: ${written.error}`);
    return {
      report,
      paths: written.paths,
      ...(written.error !== undefined ? { reportsError: written.error } : {}),
    };
  } finally {
    runStop.dispose();
    await started?.stop();
    await rm(runDir, { recursive: true, force: true });
  }
}
