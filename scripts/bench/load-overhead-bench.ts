/**
 * What the bundled k6 script costs k6 itself, against what a typical hand-written script for the
 * same flow costs: three scripts, one run, each at the same fixed arrival rate, the same VUs and
 * the same duration, against a server with canned answers (the reference provider's own
 * mobile-commerce answers, by path), so no provider's cost enters:
 *
 *   bundle        load/dist/mobile-commerce.js, as `npm run load` runs it (load scenario)
 *   hand-written  the same two requests, `name` tags, per-endpoint p95 thresholds, two checks
 *                 per response: what an engineer writes by hand
 *   bare          the same two requests, nothing else
 *
 * For each run: k6's CPU seconds (user + sys, from the shell that waited for it) per iteration
 * (k6's own count) and its peak RSS (VmHWM, sampled from /proc). Rounds alternate the order of
 * the scripts; the figures are the medians over rounds. k6 has fixed costs per second, so the
 * scripts compare only when they ran at about the same achieved rate (MAX_ACHIEVED_SPREAD).
 * Needs a local k6 on Linux.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ENDPOINT_PATHS } from "../../contract/index.ts";
import { REFERENCE_PROFILE } from "../../fixtures/profiles/index.ts";
import { REFERENCE_API_KEYS } from "../../fixtures/providers/reference/index.ts";
import { buildLoadBundles, durationSeconds } from "../../load/index.ts";
import { median, startChildServer } from "./measure.ts";

export const OVERHEAD_SCRIPTS = ["bundle", "hand-written", "bare"] as const;
export type OverheadScript = (typeof OVERHEAD_SCRIPTS)[number];

export interface OverheadOptions {
  /** Iterations (orders) per second, fixed. */
  rate: number;
  /** Per run, k6 style ("20s"). */
  duration: string;
  /** VUs allocated at the start (and the most k6 may use). */
  vus: number;
  rounds: number;
}

export interface OverheadRun {
  script: OverheadScript;
  iterations: number;
  /** Iterations started / iterations the rate asked for (below 1: k6 could not keep the rate). */
  achieved: number;
  cpuSeconds: number;
  cpuPerIterationUs: number;
  peakRssMiB: number;
}

export interface OverheadResult {
  runs: OverheadRun[];
  median: Record<
    OverheadScript,
    { cpuPerIterationUs: number; peakRssMiB: number; iterations: number; achieved: number }
  >;
  cpuRatio: number;
  rssRatio: number;
  bundleBytes: number;
  /** Highest / lowest median achieved rate of the three scripts. */
  achievedSpread: number;
  /** Whether the scripts ran at about the same rate (see MAX_ACHIEVED_SPREAD). */
  comparable: boolean;
}

/**
 * k6 has fixed costs per second (its scheduler, metrics, thresholds): CPU per iteration compares
 * only between runs at about the same achieved rate. On a busy machine k6 may not keep the rate
 * asked for; the scripts still compare when their median achieved rates are within 10 %.
 */
export const MAX_ACHIEVED_SPREAD = 1.1;

/** Targets the bundle must meet against the hand-written script. */
export const TARGET = { cpuRatio: 1.15, rssRatio: 1.25 } as const;

/** The arrival-rate scenario both generated scripts share, read from the environment like the bundle's. */
const SCENARIO = `{
  orders: {
    executor: "constant-arrival-rate",
    rate: Number(__ENV.RATE),
    timeUnit: "1s",
    duration: __ENV.DURATION,
    preAllocatedVUs: Number(__ENV.VUS),
    maxVUs: Number(__ENV.VUS),
  },
}`;

const SUMMARY = `export function handleSummary(data) {
  return { [__ENV.H2H_SUMMARY_PATH]: JSON.stringify({ metrics: { iterations: data.metrics.iterations } }) };
}`;

/** A typical hand-written k6 script for the same flow. */
export function handWrittenScript(): string {
  return `import http from "k6/http";
import { check } from "k6";
import exec from "k6/execution";

export const options = {
  scenarios: ${SCENARIO},
  thresholds: {
    "http_req_duration{name:createMobileCommerceOrder}": ["p(95)<500"],
    "http_req_duration{name:confirmMobileCommerceOrder}": ["p(95)<500"],
  },
};

const BASE_URL = __ENV.H2H_BASE_URL;

function params(name) {
  return {
    headers: { "Content-Type": "application/json", Authorization: "Bearer " + __ENV.H2H_API_KEY },
    tags: { name },
  };
}

export default function () {
  const order = {
    methodID: 101,
    amount: 1500,
    trafficType: "mixed",
    merchantOrderID: "hand-" + exec.vu.idInTest + "-" + exec.scenario.iterationInTest,
    metadata: { webHook: __ENV.H2H_CALLBACK_URL + "/at/" + Date.now() + "/expect/succeeded" },
  };
  const created = http.post(BASE_URL + "${ENDPOINT_PATHS.createMobileCommerceOrder}", JSON.stringify(order), params("createMobileCommerceOrder"));
  check(created, {
    "create: status is 200": (r) => r.status === 200,
    "create: order is payment_pending": (r) => r.json("data.status") === "payment_pending",
  });
  const id = created.json("data.id");
  const confirmed = http.post(
    BASE_URL + "${ENDPOINT_PATHS.confirmMobileCommerceOrder}".replace("{id}", id),
    JSON.stringify({ code: "1111" }),
    params("confirmMobileCommerceOrder"),
  );
  check(confirmed, {
    "confirm: status is 200": (r) => r.status === 200,
    "confirm: order is waiting_for_terminal": (r) => r.json("data.status") === "waiting_for_terminal",
  });
}

${SUMMARY}
`;
}

/** The same two requests and nothing else. */
export function bareScript(): string {
  return `import http from "k6/http";
import exec from "k6/execution";

export const options = { scenarios: ${SCENARIO} };

const headers = { "Content-Type": "application/json", Authorization: "Bearer " + __ENV.H2H_API_KEY };

export default function () {
  const order = {
    methodID: 101,
    amount: 1500,
    trafficType: "mixed",
    merchantOrderID: "bare-" + exec.vu.idInTest + "-" + exec.scenario.iterationInTest,
    metadata: { webHook: __ENV.H2H_CALLBACK_URL + "/at/" + Date.now() + "/expect/succeeded" },
  };
  const created = http.post(__ENV.H2H_BASE_URL + "${ENDPOINT_PATHS.createMobileCommerceOrder}", JSON.stringify(order), { headers });
  const id = created.json("data.id");
  http.post(__ENV.H2H_BASE_URL + "${ENDPOINT_PATHS.confirmMobileCommerceOrder}".replace("{id}", id), JSON.stringify({ code: "1111" }), { headers });
}

${SUMMARY}
`;
}

/** `XmY.YYYs` (bash `times`) in seconds. */
export function parseBashTime(text: string): number {
  const match = /^(\d+)m([\d.]+)s$/.exec(text.trim());
  if (!match) throw new Error(`unexpected time "${text}" from bash's times`);
  return Number(match[1]) * 60 + Number(match[2]);
}

/** The children's user and sys seconds from bash's `times` output (its second line). */
export function childCpuSeconds(timesOutput: string): number {
  const children = timesOutput.trim().split("\n")[1];
  if (children === undefined) throw new Error(`unexpected output of bash's times: ${timesOutput}`);
  const [user, sys] = children.trim().split(/\s+/);
  return parseBashTime(user ?? "") + parseBashTime(sys ?? "");
}

function vmHwmKiB(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Runs k6 under bash, which reports k6's pid first (for the RSS sampling) and, once it has waited
 * for k6, the children's CPU times (exact, the end-of-test summary included).
 */
export async function runMeasured(
  k6: string,
  script: string,
  env: Record<string, string>,
): Promise<{ cpuSeconds: number; peakKiB: number }> {
  const args = ["run", "--quiet", "--no-color", "--no-usage-report", "--address", "127.0.0.1:0"];
  for (const [name, value] of Object.entries(env)) args.push("-e", `${name}=${value}`);
  args.push(script);
  const wrapper = '"$@" & echo "$!" >&3; wait "$!"; rc=$?; times >&3; exit "$rc"';
  const child = spawn("bash", ["-c", wrapper, "k6-measured", k6, ...args], {
    stdio: ["ignore", "ignore", "inherit", "pipe"],
  });
  let control = "";
  let k6Pid: number | undefined;
  let peak = 0;
  const fd3 = child.stdio[3] as NodeJS.ReadableStream;
  fd3.on("data", (chunk: Buffer) => {
    control += chunk.toString();
    if (k6Pid === undefined && control.includes("\n")) k6Pid = Number(control.split("\n")[0]);
  });
  const sampler = setInterval(() => {
    if (k6Pid === undefined) return;
    peak = Math.max(peak, vmHwmKiB(k6Pid) ?? 0);
  }, 100);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  clearInterval(sampler);
  // 99 is a crossed threshold: the measurement stands; anything else is a failed run.
  if (code !== 0 && code !== 99) throw new Error(`k6 exited with code ${code} running ${script}`);
  const lines = control.trim().split("\n");
  return { cpuSeconds: childCpuSeconds(lines.slice(1).join("\n")), peakKiB: peak };
}

export async function runLoadOverheadBench(
  k6: string,
  options: OverheadOptions,
  progress: (run: OverheadRun, round: number) => void = () => {},
): Promise<OverheadResult> {
  const work = await mkdtemp(join(tmpdir(), "h2h-overhead-"));
  const server = await startChildServer("canned");
  try {
    const bundles = await buildLoadBundles(REFERENCE_PROFILE, join(work, "dist"));
    const bundle = bundles.find((b) => b.script === "mobile-commerce");
    if (!bundle) throw new Error("no mobile-commerce bundle");
    const paths: Record<OverheadScript, string> = {
      bundle: bundle.path,
      "hand-written": join(work, "hand-written.js"),
      bare: join(work, "bare.js"),
    };
    writeFileSync(paths["hand-written"], handWrittenScript());
    writeFileSync(paths.bare, bareScript());
    const common = {
      H2H_BASE_URL: server.url,
      H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
      H2H_CALLBACK_URL: `${server.url}/callbacks/0123456789abcdef0123456789abcdef/run/overhead`,
      RATE: String(options.rate),
      DURATION: options.duration,
      VUS: String(options.vus),
    };
    const bundleEnv = {
      H2H_RUN_ID: "overhead",
      H2H_SCENARIO: "load",
      H2H_RATE: String(options.rate),
      H2H_DURATION: options.duration,
      H2H_VUS: String(options.vus),
      H2H_MAX_VUS: String(options.vus),
    };
    const runs: OverheadRun[] = [];
    for (let round = 0; round < options.rounds; round++) {
      // Rotate the order each round, so whatever else the machine does falls on each script alike.
      const order = OVERHEAD_SCRIPTS.map((_, i) => OVERHEAD_SCRIPTS[(i + round) % OVERHEAD_SCRIPTS.length]);
      for (const script of order as OverheadScript[]) {
        const summaryPath = join(work, `${script}-${round}.json`);
        const env = {
          ...common,
          ...(script === "bundle" ? bundleEnv : {}),
          H2H_SUMMARY_PATH: summaryPath,
        };
        const measured = await runMeasured(k6, paths[script], env);
        const summary = JSON.parse(readFileSync(summaryPath, "utf8")) as {
          metrics: { iterations?: { values?: { count?: number } } };
        };
        const iterations = summary.metrics.iterations?.values?.count ?? 0;
        if (iterations === 0) throw new Error(`${script}: k6 ran no iteration`);
        const run: OverheadRun = {
          script,
          iterations,
          achieved:
            Math.round((iterations / (options.rate * durationSeconds(options.duration))) * 1000) / 1000,
          cpuSeconds: Math.round(measured.cpuSeconds * 1000) / 1000,
          cpuPerIterationUs: Math.round((measured.cpuSeconds / iterations) * 1e7) / 10,
          peakRssMiB: Math.round((measured.peakKiB / 1024) * 10) / 10,
        };
        runs.push(run);
        progress(run, round);
      }
    }
    const medianOf = (script: OverheadScript) => {
      const mine = runs.filter((r) => r.script === script);
      return {
        cpuPerIterationUs: median(mine.map((r) => r.cpuPerIterationUs)),
        peakRssMiB: median(mine.map((r) => r.peakRssMiB)),
        iterations: median(mine.map((r) => r.iterations)),
        achieved: median(mine.map((r) => r.achieved)),
      };
    };
    const medians = Object.fromEntries(
      OVERHEAD_SCRIPTS.map((s) => [s, medianOf(s)]),
    ) as OverheadResult["median"];
    const achieved = OVERHEAD_SCRIPTS.map((s) => medians[s].achieved);
    const spread = Math.max(...achieved) / Math.max(1e-9, Math.min(...achieved));
    return {
      runs,
      median: medians,
      cpuRatio:
        Math.round((medians.bundle.cpuPerIterationUs / medians["hand-written"].cpuPerIterationUs) * 1000) /
        1000,
      rssRatio: Math.round((medians.bundle.peakRssMiB / medians["hand-written"].peakRssMiB) * 1000) / 1000,
      bundleBytes: bundle.bytes,
      achievedSpread: Math.round(spread * 1000) / 1000,
      comparable: spread <= MAX_ACHIEVED_SPREAD,
    };
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}
