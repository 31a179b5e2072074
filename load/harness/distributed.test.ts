/**
 * A distributed load run as the k6 operator makes it: the bundle split over three k6 processes by
 * k6's execution segments, each calling back to one standalone sink, then
 * `npm run load -- --delivery-from-sink URL --run-id ID` computing delivery from that sink alone.
 * Every confirmed order must be counted once, whatever process confirmed it. Needs a real k6:
 * skipped by name without one.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readProfile } from "../../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import {
  REFERENCE_CALLBACK_SECRET,
  REFERENCE_SIGNATURE,
  startReferenceProvider,
} from "../../fixtures/providers/reference/index.ts";
import { commandArgs, fileTimeout } from "../../fixtures/testing/index.ts";
import { startWebhookSink } from "../../webhook-sink/index.ts";
import { confirmedByFinal, type K6Summary } from "../lib/summary.ts";
import { buildLoadBundles } from "./build.ts";
import { findLocalK6 } from "./k6-runner.ts";
import { SINK_DELIVERY_FILE } from "./sink-delivery.ts";

fileTimeout(300_000);

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((stop) => stop()));
});

const k6 = (() => {
  try {
    return findLocalK6();
  } catch {
    return undefined;
  }
})();

function run(command: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ exitCode: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, {
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("H2H_"))),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (exitCode) => resolve({ exitCode, output }));
  });
}

const SEQUENCE = "0,1/3,2/3,1";
const SEGMENTS = ["0:1/3", "1/3:2/3", "2/3:1"];

describe("a distributed load run (k6 execution segments, one standalone sink)", () => {
  it("counts every confirmed order once: 100 % delivery from the sink, as many orders as the k6 processes confirmed", async (ctx) => {
    if (!k6)
      return ctx.skip("k6 is not on PATH and K6_BIN is not set: a real k6 run cannot happen on this machine");
    const profile = await readProfile(REFERENCE_PROFILE_PATH);
    const dir = mkdtempSync(join(tmpdir(), "h2h-load-distributed-"));
    const [bundle] = (await buildLoadBundles(profile, join(dir, "dist"))).filter((b) => b.script === "mixed");
    const provider = await startReferenceProvider({});
    cleanup.push(() => provider.stop());
    const sink = await startWebhookSink({
      dataDir: join(dir, "sink"),
      sync: false,
      spill: true,
      secret: REFERENCE_CALLBACK_SECRET,
      signature: REFERENCE_SIGNATURE,
    });
    cleanup.push(() => sink.stop());
    const runId = `dist-${Date.now()}`;
    const env = {
      H2H_BASE_URL: provider.url,
      H2H_API_KEY: "sandbox-key-merchant-1",
      H2H_RUN_ID: runId,
      H2H_CALLBACK_URL: sink.callbackUrl(),
      H2H_SCENARIO: "load",
      H2H_RATE: "12",
      H2H_DURATION: "6s",
      H2H_FAILURE_SHARE: "0.2",
      H2H_APPEAL_SHARE: "0.2",
    };
    const runs = await Promise.all(
      SEGMENTS.map((segment, i) =>
        run(k6, [
          "run",
          "--quiet",
          "--execution-segment",
          segment,
          "--execution-segment-sequence",
          SEQUENCE,
          ...Object.entries({ ...env, H2H_SUMMARY_PATH: join(dir, `summary-${i}.json`) }).flatMap(
            ([name, value]) => ["-e", `${name}=${value}`],
          ),
          bundle?.path as string,
        ]),
      ),
    );
    for (const r of runs) expect(r.exitCode, r.output).toBe(0);
    const summaries = SEGMENTS.map(
      (_, i) => JSON.parse(readFileSync(join(dir, `summary-${i}.json`), "utf8")) as K6Summary,
    );
    const confirmedPerProcess = summaries.map((s) =>
      Object.values(confirmedByFinal(s)).reduce((a, b) => a + b, 0),
    );
    // Each process ran its own share of the orders.
    for (const confirmed of confirmedPerProcess) expect(confirmed).toBeGreaterThan(0);
    const confirmed = confirmedPerProcess.reduce((a, b) => a + b, 0);

    const reportDir = join(dir, "reports");
    const delivery = await run(
      process.execPath,
      [...commandArgs("load"), "--delivery-from-sink", sink.callbackUrl(), "--run-id", runId],
      { H2H_REPORT_DIR: reportDir },
    );
    expect(delivery.exitCode, delivery.output).toBe(0);
    expect(delivery.output).toContain(
      `${confirmed} of ${confirmed} confirmed orders got their final callback within 5s of its trigger (100.00 %)`,
    );
    const written = JSON.parse(readFileSync(join(reportDir, "load", SINK_DELIVERY_FILE), "utf8")) as {
      passed: boolean;
      delivery: {
        confirmed: number;
        delivered: number;
        uncounted: number;
        duplicates: number;
        ratio: number;
      };
    };
    // Each order once: the sink's denominators are the processes' own confirmations, no more.
    expect(written).toMatchObject({
      passed: true,
      delivery: { confirmed, delivered: confirmed, uncounted: 0, duplicates: 0, ratio: 1 },
    });
    console.log(
      `distributed run: ${SEGMENTS.length} k6 processes confirmed ${confirmedPerProcess.join(" + ")} = ${confirmed} orders; the sink counted ${written.delivery.delivered} delivered of ${written.delivery.confirmed}`,
    );
  });

  it("is what the k6-operator TestRun sets up: every pod gets the run id and the sink's callback URL", () => {
    const testRun = readFileSync(new URL("../k6-operator/testrun.yaml", import.meta.url), "utf8");
    const env = [...testRun.matchAll(/- name: (H2H_\w+)/g)].map((m) => m[1]);
    expect(env).toEqual(
      expect.arrayContaining(["H2H_BASE_URL", "H2H_API_KEY", "H2H_RUN_ID", "H2H_CALLBACK_URL"]),
    );
    expect(testRun).toContain("npm run load -- --delivery-from-sink <URL> --run-id k8s-load-001");
  });
});
