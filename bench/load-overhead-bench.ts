/**
 * The cost of the bundled mobile-commerce script's checks and bookkeeping, measured in k6 itself:
 * iterations per second of the bundle vs a minimal k6 script that sends the same two requests
 * with no checks, same VUs, same duration, same target, one after the other in one run. Also
 * k6's peak memory (VmHWM, Linux) for each. Needs a local k6 (PATH or K6_BIN).
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readProfile } from "../contract/index.ts";
import { ENDPOINT_PATHS } from "../contract/names.ts";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import { REFERENCE_API_KEYS, startReferenceProvider } from "../fixtures/reference-provider/index.ts";
import { buildLoadBundles } from "../load/index.ts";

export interface OverheadRun {
  iterationsPerSecond: number;
  peakRssMiB: number | null;
}

/** The same two requests as the bundle's mobile-commerce flow, with no checks and no metrics. */
export function minimalScript(): string {
  const create = ENDPOINT_PATHS.createMobileCommerceOrder;
  const confirm = ENDPOINT_PATHS.confirmMobileCommerceOrder;
  return `import http from "k6/http";
const headers = { "content-type": "application/json", authorization: "Bearer " + __ENV.H2H_API_KEY };
export default function () {
  const created = http.post(__ENV.H2H_BASE_URL + "${create}", JSON.stringify({ methodID: 101, amount: 1500, trafficType: "mixed" }), { headers, tags: { name: "create" } });
  const id = JSON.parse(created.body).data.id;
  http.post(__ENV.H2H_BASE_URL + "${confirm}".replace("{id}", id), JSON.stringify({ code: "1111" }), { headers, tags: { name: "confirm" } });
}
export function handleSummary(data) {
  return { [__ENV.H2H_SUMMARY_PATH]: JSON.stringify(data) };
}
`;
}

function peakRss(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

async function runK6Once(
  k6: string,
  script: string,
  env: Record<string, string>,
  vus: number,
  duration: string,
  summaryPath: string,
): Promise<OverheadRun> {
  const args = ["run", "--quiet", "--vus", String(vus), "--duration", duration];
  // Both scripts write k6's end-of-test data (handleSummary) where H2H_SUMMARY_PATH says.
  for (const [name, value] of Object.entries({ ...env, H2H_SUMMARY_PATH: summaryPath }))
    args.push("-e", `${name}=${value}`);
  args.push(script);
  let peak: number | null = null;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(k6, args, { stdio: ["ignore", "ignore", "inherit"] });
    const sampler = setInterval(() => {
      const rss = child.pid ? peakRss(child.pid) : null;
      if (rss !== null) peak = Math.max(peak ?? 0, rss);
    }, 250);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearInterval(sampler);
      // 99 is a crossed threshold: the measurement stands; anything else is a failed run.
      if (code === 0 || code === 99) resolve();
      else reject(new Error(`k6 exited with code ${code}`));
    });
  });
  const summary = JSON.parse(readFileSync(summaryPath, "utf8")) as {
    metrics: { iterations?: { values?: { rate?: number } } };
  };
  return {
    iterationsPerSecond: Math.round(summary.metrics.iterations?.values?.rate ?? 0),
    peakRssMiB: peak === null ? null : Math.round(peak),
  };
}

export async function runLoadOverheadBench(k6: string, options: { vus: number; duration: string }) {
  const work = await mkdtemp(join(tmpdir(), "h2h-overhead-"));
  const provider = await startReferenceProvider({ port: 0 });
  try {
    const bundles = await buildLoadBundles(await readProfile(REFERENCE_PROFILE_PATH), join(work, "dist"));
    const bundle = bundles.find((b) => b.script === "mobile-commerce");
    if (!bundle) throw new Error("no mobile-commerce bundle");
    const minimal = join(work, "minimal.js");
    writeFileSync(minimal, minimalScript());
    const env = {
      H2H_BASE_URL: provider.url,
      H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
      H2H_RUN_ID: `overhead-${Date.now()}`,
    };
    const baseline = await runK6Once(
      k6,
      minimal,
      env,
      options.vus,
      options.duration,
      join(work, "minimal.json"),
    );
    const bundled = await runK6Once(
      k6,
      bundle.path,
      { ...env, H2H_RUN_ID: `${env.H2H_RUN_ID}-b` },
      options.vus,
      options.duration,
      join(work, "bundle.json"),
    );
    return {
      baseline,
      bundled,
      ratio:
        Math.round((bundled.iterationsPerSecond / Math.max(1, baseline.iterationsPerSecond)) * 1000) / 1000,
      sizes: bundles.map((b) => ({ script: b.script, bytes: b.bytes })),
      minimalBytes: Buffer.byteLength(minimalScript()),
    };
  } finally {
    await provider.stop();
    await rm(work, { recursive: true, force: true });
  }
}
