/**
 * The receiver battery end to end. As a user runs it (`npm run certify:receiver` in a child
 * process): the bundled reference receiver is conformant, secrets masked, exit 0; `--list-checks`
 * lists the receiver checks alone. Through the same engine in this process (runReceiverCertification,
 * the CLI's exit code from the verdict by EXIT_OF_VERDICT, one kept Vitest for the runs of one
 * callback timeout): a receiver that takes a forged callback is said so at the top of every report,
 * exit 1; each fault of the reference receiver's catalogue is caught by the checks it names; an
 * unreachable receiver is not judged (exit 2); and the clean-room receiver is conformant, and not
 * conformant without its signature check.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CHECK_REGISTRY, parseProfile, readProfile } from "../../contract/index.ts";
import { REFERENCE_CALLBACK_SECRET } from "../../fixtures/providers/reference/index.ts";
import { startCleanroomReceiver } from "../../fixtures/receivers/cleanroom/index.ts";
import {
  RECEIVER_FAULT_LIST,
  type ReceiverFault,
  startReferenceReceiver,
} from "../../fixtures/receivers/reference/index.ts";
import { fileTimeout, scaledMs } from "../../fixtures/testing/index.ts";
import { parseSettings } from "../../run-setup/index.ts";
import { REPORT_FILES } from "../reports/index.ts";
import { checksMarkdown, listChecks } from "../reports/list-checks.ts";
import { sharedSpecRunner } from "../testing/certify-in-process.ts";
import { spawnCertify } from "../testing/spawn-certify.ts";
import { readReceiverOrders, runReceiverCertification } from "./receiver-run.ts";
import { EXIT_OF_VERDICT, type RunReport } from "./run-model.ts";

fileTimeout(120_000);

const referenceJson = () =>
  JSON.parse(
    readFileSync(new URL("../../fixtures/profiles/reference.json", import.meta.url), "utf8"),
  ) as Record<string, Record<string, unknown>>;

/** The reference profile with a shorter callback timeout (a hang or a slow ack costs that long), and a fault's keys. */
function profileFor(fault: ReceiverFault | undefined, callbackMs: number): Record<string, unknown> {
  const profile = referenceJson();
  const extra = (fault?.profile ?? {}) as Record<string, Record<string, unknown>>;
  return {
    ...profile,
    timeouts: { ...profile.timeouts, callbackMs },
    callbacks: { ...profile.callbacks, ...(extra.callbacks ?? {}) },
  };
}

const ORDERS = [
  { id: "ord-mc-1", amount: 1500, kind: "mobile_commerce" },
  { id: "ord-qe-1", amount: 2500.5, kind: "quasi_ecom" },
];

/**
 * Certifies the reference receiver (with a fault, or none). As a user runs it, in a child process;
 * or, given a kept spec runner, here through the engine's own entry, whose verdict the CLI maps to
 * its exit code (the child process runs show that mapping).
 */
async function certifyReceiver(
  options: {
    fault?: ReceiverFault;
    callbackMs?: number;
    only?: readonly string[];
    inProcess?: ReturnType<typeof sharedSpecRunner>;
  } = {},
): Promise<{ exitCode: number | null; output: string; report: RunReport; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "h2h-receiver-test-"));
  const profileJson = profileFor(options.fault, options.callbackMs ?? 5_000);
  writeFileSync(join(dir, "profile.json"), JSON.stringify(profileJson));
  writeFileSync(join(dir, "orders.json"), JSON.stringify(ORDERS));
  const profile = parseProfile(profileJson, "test profile");
  const refuseUnknown = profile.callbacks.unknownOrder === "refuse";
  const receiver = await startReferenceReceiver({
    profile,
    secret: REFERENCE_CALLBACK_SECRET,
    faults: options.fault ? [options.fault.name as never] : [],
    ...(refuseUnknown ? { knownOrders: new Set(ORDERS.map((o) => o.id)) } : {}),
  });
  const env = {
    H2H_RECEIVER_URL: receiver.url,
    H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
    H2H_PROFILE: join(dir, "profile.json"),
    H2H_REPORT_DIR: dir,
    ...(refuseUnknown ? { H2H_RECEIVER_ORDERS: join(dir, "orders.json") } : {}),
  };
  try {
    if (options.inProcess) {
      return { ...(await certifyInProcess(env, options.inProcess, options.only)), dir };
    }
    // As a user runs it: from their directory (INIT_CWD, as npm says it), H2H_REPORT_DIR left to its default.
    const { H2H_REPORT_DIR: _, ...userEnv } = env;
    const run = await spawnCertify(
      { ...userEnv, INIT_CWD: dir },
      { command: "certify:receiver", args: (options.only ?? []).flatMap((check) => ["--only", check]) },
    );
    const reportDir = join(dir, "reports", "receiver");
    const report = JSON.parse(readFileSync(join(reportDir, REPORT_FILES.json), "utf8")) as RunReport;
    return { exitCode: run.exitCode, output: run.output, report, dir: reportDir };
  } finally {
    await receiver.stop();
  }
}

/**
 * A receiver run in this process, its spec files in the runner's kept Vitest (none: a receiver no
 * spec reaches); its console kept, and the exit code the CLI gives its verdict.
 */
async function certifyInProcess(
  env: Record<string, string>,
  specRunner: ReturnType<typeof sharedSpecRunner> | undefined,
  only: readonly string[] = [],
): Promise<{ exitCode: number; report: RunReport; output: string }> {
  const lines: string[] = [];
  const { report } = await runReceiverCertification({
    settings: parseSettings(env, { command: "receiver" }),
    only,
    print: (line) => lines.push(line),
    ...(specRunner ? { specRunner: specRunner.run } : {}),
  });
  return { exitCode: EXIT_OF_VERDICT[report.verdict], report, output: lines.join("\n") };
}

const failedRequired = (report: RunReport) =>
  new Set(report.checks.filter((c) => c.status === "failed" && c.required).map((c) => c.check));

describe("npm run certify:receiver", () => {
  it("names every receiver check in at least one fault of the reference receiver", () => {
    const named = new Set(RECEIVER_FAULT_LIST.flatMap((f) => f.detectedBy));
    const receiverChecks = [...CHECK_REGISTRY.values()]
      .filter((c) => c.group === "receiver")
      .map((c) => c.name);
    expect(receiverChecks.filter((name) => !named.has(name))).toEqual([]);
    for (const name of named) expect(receiverChecks).toContain(name);
  });

  it("is documented: docs/receiver.md's table of checks is the reference profile's list", async () => {
    const profile = await readProfile(
      fileURLToPath(new URL("../../fixtures/profiles/reference.json", import.meta.url)),
    );
    const doc = readFileSync(new URL("../../docs/receiver.md", import.meta.url), "utf8");
    const table = doc.match(/<!-- receiver-checks:start -->\n([\s\S]*?)\n<!-- receiver-checks:end -->/)?.[1];
    expect(table, "docs/receiver.md's table is stale: run npm run docs").toBe(
      checksMarkdown(listChecks(profile, "receiver")),
    );
  });

  it("reads H2H_RECEIVER_ORDERS, refusing a bad file with the fix", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-receiver-test-"));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    expect(await readReceiverOrders(file("ok.json", JSON.stringify({ orders: ORDERS })))).toHaveLength(2);
    await expect(readReceiverOrders(file("bad.json", "{"))).rejects.toThrow(
      /cannot be read as JSON .*give a JSON file/,
    );
    await expect(
      readReceiverOrders(file("kind.json", JSON.stringify([{ id: "a", amount: 1, kind: "x" }]))),
    ).rejects.toThrow(/H2H_RECEIVER_ORDERS ".*kind\.json": 0\.kind: .*expected \[\{"id"/);
    await expect(readReceiverOrders(file("one.json", JSON.stringify([ORDERS[0]])))).rejects.toThrow(
      /has no order of kind quasi_ecom: give at least one of each kind/,
    );
    await expect(readReceiverOrders(join(dir, "missing.json"))).rejects.toThrow(/ENOENT/);
  });

  // The runs below go side by side: most of their time is waiting (on a child process, on a fault
  // that never answers or answers late), and each group keeps its own order.
  it.concurrent("finds the bundled reference receiver conformant, secrets masked in every report", async () => {
    const { exitCode, output, report, dir } = await certifyReceiver();
    expect(exitCode, output).toBe(0);
    expect(report).toMatchObject({ subject: "receiver", verdict: "conformant" });
    expect(report.alarm).toBeUndefined();
    const judged = new Set(report.checks.filter((c) => c.status === "passed").map((c) => c.check));
    for (const check of [
      "receiver.acknowledges-valid",
      "receiver.acknowledges-duplicates",
      "receiver.answers-variation",
      "receiver.refuses-forgery",
      "receiver.refuses-wrong-prefix",
      "receiver.survives-malformed",
      "receiver.refuses-malformed",
      "receiver.ack-p95",
    ])
      expect(judged.has(check), check).toBe(true);
    // Undeclared in the reference profile: skipped with the reason, or reported, never failed.
    expect(report.checks.find((c) => c.check === "receiver.refuses-replay")?.status).toBe("skipped");
    expect(report.checks.filter((c) => c.check === "receiver.unknown-order").every((c) => !c.required)).toBe(
      true,
    );
    expect(report.warnings.join("\n")).toMatch(/H2H_RECEIVER_ORDERS is not set/);
    expect(report.exchanges.length).toBeGreaterThan(200);
    for (const file of Object.values(REPORT_FILES))
      expect(readFileSync(join(dir, file), "utf8")).not.toContain(REFERENCE_CALLBACK_SECRET);
    // Its own default folder, reports/receiver/: a provider certification's reports/ is left alone.
    expect(dir).toMatch(/[/\\]reports[/\\]receiver$/);
    expect(existsSync(join(dir, "..", REPORT_FILES.json))).toBe(false);
  });

  // One after another, in this process: one Vitest, kept for every run (its start-up and the
  // specs' imports paid once), instead of a child process and a Vitest per fault. The checks each
  // fault names are run alone (--only), with a short callback timeout (a hang costs that long):
  // the same for every run, as a kept Vitest serves one timeout.
  describe.concurrent("against each fault of its catalogue, through the engine in this process", () => {
    const specRunner = sharedSpecRunner();
    afterAll(() => specRunner.close());
    // Long enough for the forged run to see every forgery answered on a loaded machine.
    const FAULT_CALLBACK_MS = 2_000;
    it.sequential(
      "says a forged callback acknowledged first: exit 1, the alarm in the JSON and at the HTML's top",
      async () => {
        const fault = RECEIVER_FAULT_LIST.find((f) => f.name === "accepts-bad-signature") as ReceiverFault;
        // Only the forgery checks: the alarm, the verdict and exit 1 are those of a whole run.
        const { exitCode, output, report, dir } = await certifyReceiver({
          fault,
          callbackMs: FAULT_CALLBACK_MS,
          only: ["receiver.refuses-forgery", "receiver.refuses-wrong-prefix"],
          inProcess: specRunner,
        });
        expect(exitCode, output).toBe(1);
        expect(report.verdict).toBe("not conformant");
        expect(failedRequired(report).has("receiver.refuses-forgery")).toBe(true);
        expect(report.alarm).toMatch(/^FORGED CALLBACK ACKNOWLEDGED: the receiver took 7 forged callback/);
        const html = readFileSync(join(dir, REPORT_FILES.html), "utf8");
        const body = html.slice(html.indexOf("<main>"));
        expect(body.indexOf('class="alarm"')).toBeGreaterThan(-1);
        expect(body.indexOf('class="alarm"')).toBeLessThan(body.indexOf("<h1>"));
        expect(output).toMatch(/!!! FORGED CALLBACK ACKNOWLEDGED/);
      },
      scaledMs(60_000),
    );

    const faults = RECEIVER_FAULT_LIST.filter((f) => f.name !== "accepts-bad-signature");
    it.sequential.each(faults.map((f) => [f.name, f] as const))(
      "%s fails the checks it names",
      async (_name, fault) => {
        const { output, report } = await certifyReceiver({
          fault,
          callbackMs: FAULT_CALLBACK_MS,
          only: fault.detectedBy,
          inProcess: specRunner,
        });
        // "not conformant" is the CLI's exit 1.
        expect(report.verdict, output).toBe("not conformant");
        for (const check of fault.detectedBy) expect(failedRequired(report), check).toContain(check);
        // Each failure rests on this run's own deliveries (a kept Vitest given a run's context late
        // would send to the receiver before, and fail for that).
        const ids = new Set(report.exchanges.map((e) => e.id));
        for (const failed of report.checks.filter((c) => c.status === "failed")) {
          expect(failed.exchanges.length, `${failed.check}: ${failed.detail}`).toBeGreaterThan(0);
          for (const id of failed.exchanges) expect(ids, `${failed.check}: ${failed.detail}`).toContain(id);
        }
      },
      scaledMs(60_000),
    );
  });

  describe.concurrent("a receiver written apart from the suite, from docs/receiver.md alone (the clean-room provider's callbacks)", () => {
    const CLEANROOM_PROFILE = fileURLToPath(
      new URL("../../fixtures/profiles/cleanroom.json", import.meta.url),
    );
    const SECRET = "merchant-whsec-4f1c";
    // The whole battery, twice, in this process: one Vitest for both (the profile's timeouts
    // differ from the faults' runs).
    const specRunner = sharedSpecRunner();
    afterAll(() => specRunner.close());
    const certifyCleanroom = async (verifySignature: boolean) => {
      const receiver = await startCleanroomReceiver({ secret: SECRET, verifySignature });
      const dir = mkdtempSync(join(tmpdir(), "h2h-receiver-test-"));
      try {
        const run = await certifyInProcess(
          {
            H2H_RECEIVER_URL: receiver.url,
            H2H_CALLBACK_SECRET: SECRET,
            H2H_PROFILE: CLEANROOM_PROFILE,
            H2H_REPORT_DIR: dir,
          },
          specRunner,
        );
        return { ...run, handled: receiver.orders };
      } finally {
        await receiver.close();
      }
    };

    it.sequential("is conformant, and took each order's statuses once", async () => {
      const { output, report, handled } = await certifyCleanroom(true);
      expect(report.verdict, output).toBe("conformant");
      // No prefix in this scheme: those forgeries do not apply, and the run says why.
      expect(report.checks.find((c) => c.check === "receiver.refuses-wrong-prefix")?.reason).toMatch(
        /fixes no prefix/,
      );
      expect(handled.size).toBeGreaterThan(10);
    });

    it.sequential("is not conformant with its signature check removed: the forgeries are named, the alarm first", async () => {
      const { output, report } = await certifyCleanroom(false);
      expect(report.verdict, output).toBe("not conformant");
      expect(failedRequired(report)).toContain("receiver.refuses-forgery");
      expect(report.alarm).toMatch(/^FORGED CALLBACK ACKNOWLEDGED/);
    });
  });

  it.concurrent("does not judge a receiver nothing answers for: exit 2", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const dir = mkdtempSync(join(tmpdir(), "h2h-receiver-test-"));
    // In this process: no spec runs against a receiver that cannot be reached.
    const run = await certifyInProcess(
      {
        H2H_RECEIVER_URL: `http://127.0.0.1:${port}/hook`,
        H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        H2H_REPORT_DIR: dir,
      },
      undefined,
    );
    expect(run.exitCode, run.output).toBe(2);
    expect(run.output).toMatch(/could not be reached: ECONNREFUSED/);
  });

  it.concurrent("lists the receiver checks alone, each with its basis, sending nothing", async () => {
    const run = await spawnCertify({}, { command: "certify:receiver", args: ["--list-checks"] });
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toMatch(
      /receiver\.refuses-forgery +required +declared: the target's profile, callbacks\.signature/,
    );
    expect(run.output).toMatch(/receiver\.unknown-order +not required +advisory/);
    expect(run.output).not.toMatch(/envelope\.shape/);
  });
});
