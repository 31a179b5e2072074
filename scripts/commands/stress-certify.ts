/**
 * `npm run stress:certify`: certifies a target several times, as a user would (`npm run certify` in
 * a child process), while busy loops keep every core loaded, and optionally behind a seeded jitter
 * proxy (latency on every exchange): a correct target must come out conformant every time,
 * however slow the suite's machine or the network is.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isLoopbackUrl } from "../../contract/kit/index.ts";
import { CALLBACK_SECRET, MERCHANTS } from "../../fixtures/providers/cleanroom/index.ts";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  type RunningForwarder,
  startJitterProxy,
  startReferenceProvider,
} from "../../fixtures/providers/reference/index.ts";
import { MAX_SEED, SETTINGS } from "../../run-setup/index.ts";
import { defineCommand, EXIT, UsageError } from "../cli.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Node's arguments to run TypeScript as the npm scripts do. */
/** The package's bin: a child runs `node bin/h2h-certify.mjs certify`, as `npm run certify` does. */
const BIN = `${ROOT}bin/h2h-certify.mjs`;
const CLEANROOM_PROFILE = `${ROOT}fixtures/profiles/cleanroom.json`;

/** The most --jitter-ms takes: a minute of latency per exchange is no longer jitter. */
const MAX_JITTER_MS = 60_000;

/** The H2H_* variables a URL or clean-room target is certified with, from this command's environment. */
const PASSED_ON = (["apiKey", "secondApiKey", "callbackSecret", "profile", "workers"] as const).map(
  (key) => SETTINGS[key].variable,
);

interface RunResult {
  exitCode: number | null;
  verdict: string;
  wallMs: number;
  load: number;
  seed: number;
}

/** The processes this command started, stopped by pid however it ends. */
const started = new Set<ChildProcess>();
/** What this command serves in its own process (a provider, proxies), stopped when it ends. */
const stoppers: (() => Promise<unknown>)[] = [];
async function stopServed(): Promise<void> {
  for (const stop of stoppers.splice(0).reverse()) await stop().catch(() => undefined);
}
function stopAll(): void {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
  started.clear();
}

/** A child spinning one core flat out. */
function startHog(): ChildProcess {
  const hog = spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" });
  started.add(hog);
  return hog;
}

/** The clean-room sandbox in a child process of its own, on a free loopback port; its URL. */
async function startCleanroom(): Promise<string> {
  const child = spawn(process.execPath, [BIN, "provider:cleanroom", "--port", "0", "--host", "127.0.0.1"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => reject(new Error(`the clean-room provider did not start: ${output}`)),
      60_000,
    );
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout?.on("data", take);
    child.stderr?.on("data", take);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the clean-room provider exited (${code}) before it listened: ${output}`));
    });
  });
}

/** `npm run certify -- --seed N` in a child, with only the given H2H_* variables. */
function certifyOnce(env: Record<string, string>, seed: number): Promise<RunResult> {
  const began = Date.now();
  const child = spawn(process.execPath, [BIN, "certify", "--seed", String(seed)], {
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("H2H_"))),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once("close", (code) => {
      started.delete(child);
      const verdict = /^verdict: ([A-Z ]+?)(?: —|$)/m.exec(output)?.[1]?.toLowerCase() ?? "(none printed)";
      if (verdict !== "conformant")
        console.log(
          output
            .trimEnd()
            .split("\n")
            .slice(-15)
            .map((line) => `    | ${line}`)
            .join("\n"),
        );
      resolve({ exitCode: code, verdict, wallMs: Date.now() - began, load: loadavg()[0] ?? 0, seed });
    });
  });
}

/** Where to certify, and with what: never anything but this machine's loopback. */
async function targetEnv(
  target: string,
  jittered: boolean,
): Promise<{ label: string; env: Record<string, string> }> {
  const passed = Object.fromEntries(
    PASSED_ON.flatMap((name) => (process.env[name] ? [[name, process.env[name] as string]] : [])),
  );
  if (target === "reference") {
    // Behind a proxy, the reference provider is started here (the bundled one has no URL to proxy).
    if (!jittered) return { label: "the bundled reference provider", env: {} };
    const provider = await startReferenceProvider({ port: 0, host: "127.0.0.1" });
    stoppers.push(() => provider.stop());
    return {
      label: `the reference provider at ${provider.url}`,
      env: {
        H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
        H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
        H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        H2H_BASE_URL: provider.url,
      },
    };
  }
  if (target === "cleanroom") {
    const url = await startCleanroom();
    // Its own sandbox keys, as a user of that sandbox would set them.
    const [alpha, bravo] = MERCHANTS;
    return {
      label: `the clean-room provider at ${url}`,
      env: {
        ...(passed.H2H_WORKERS ? { H2H_WORKERS: passed.H2H_WORKERS } : {}),
        H2H_PROFILE: CLEANROOM_PROFILE,
        ...(alpha ? { H2H_API_KEY: alpha.apiKey } : {}),
        ...(bravo ? { H2H_API_KEY_2: bravo.apiKey } : {}),
        H2H_CALLBACK_SECRET: CALLBACK_SECRET,
        H2H_BASE_URL: url,
      },
    };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(
      `--target must be reference, cleanroom or an http:// URL, not ${JSON.stringify(target)}`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--target ${target}: not an http(s) URL`);
  if (!isLoopbackUrl(url.href))
    throw new UsageError(
      `--target ${target}: only a loopback target (127.0.0.1, ::1, localhost) may be stressed`,
    );
  return { label: url.origin, env: { ...passed, H2H_BASE_URL: url.origin } };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export const stressCertify = defineCommand({
  name: "stress:certify",
  summary:
    "Certifies a target several times, one run after another, as `npm run certify` in a child process,\n" +
    "while busy loops (child processes spinning `for(;;){}`) load the machine; prints each run's exit\n" +
    "code, verdict, wall time and load average, then the slowest run and how many were conformant.\n" +
    "The busy loops are stopped by pid when it ends, fails or is interrupted. Loopback targets only.",
  options: {
    runs: { type: "number", description: "certifications (default: 10)" },
    hogs: { type: "number", description: "busy loops beside them (default: 3)" },
    target: {
      type: "string",
      value: "reference|cleanroom|URL",
      description:
        "the bundled reference provider (default), the clean-room provider (started here; needs its keys in H2H_API_KEY, H2H_API_KEY_2, H2H_CALLBACK_SECRET), or a loopback URL (with H2H_API_KEY, H2H_PROFILE…)",
    },
    seed: { type: "number", description: "the first run's seed; run i takes seed + i (default: drawn)" },
    "jitter-ms": {
      type: "number",
      description:
        "puts a proxy in front of the target that holds each exchange 0 to this many ms (drawn from the run's seed, split between request and answer); default 0, none",
    },
  },
  environment: [
    `${PASSED_ON.join(", ")}: passed on to certify for a URL target (a cleanroom target gets its own profile and keys)`,
  ],
  exitCodes: {
    [EXIT.failed]: "a run was not conformant",
  },
  async run(options) {
    const runs = options.runs ?? 10;
    const hogs = options.hogs ?? 3;
    if (!Number.isInteger(runs) || runs < 1) throw new UsageError("--runs must be a whole number ≥ 1");
    if (!Number.isInteger(hogs) || hogs < 0 || hogs > 64) throw new UsageError("--hogs must be 0 to 64");
    const base = options.seed ?? Math.floor(Math.random() * (MAX_SEED - runs));
    if (!Number.isInteger(base) || base < 0 || base + runs > MAX_SEED)
      throw new UsageError(`--seed must be a whole number from 0 to ${MAX_SEED - runs}`);
    const jitterMs = options["jitter-ms"] ?? 0;
    if (!Number.isInteger(jitterMs) || jitterMs < 0 || jitterMs > MAX_JITTER_MS)
      throw new UsageError(`--jitter-ms must be a whole number of ms from 0 to ${MAX_JITTER_MS}`);
    const onSignal = (signal: NodeJS.Signals) => {
      console.log(`${signal}: stopping the busy loops and the runs`);
      stopAll();
      void stopServed().finally(() => process.exit(EXIT.notJudged));
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      const { label, env } = await targetEnv(options.target ?? "reference", jitterMs > 0);
      // Each run's reports in a folder of its own, not over reports/ (kept, for a run to look into).
      const reportsDir = mkdtempSync(join(tmpdir(), "h2h-stress-"));
      const pids = Array.from({ length: hogs }, () => startHog().pid);
      console.log(
        `stress:certify: ${runs} run(s) of npm run certify against ${label}${jitterMs > 0 ? `, behind 0–${jitterMs} ms of jitter per exchange` : ""}, ${hogs} busy loop(s) (pids ${pids.join(", ") || "none"}), seeds from ${base}`,
      );
      const results: RunResult[] = [];
      for (let i = 0; i < runs; i++) {
        const seed = base + i;
        // A proxy of its own per run, its latency drawn from the run's seed.
        let proxy: RunningForwarder | undefined;
        if (jitterMs > 0) {
          const running = await startJitterProxy(env.H2H_BASE_URL as string, jitterMs, seed);
          stoppers.push(() => running.close());
          proxy = running;
        }
        const result = await certifyOnce(
          {
            ...env,
            ...(proxy ? { H2H_BASE_URL: proxy.url } : {}),
            H2H_REPORT_DIR: join(reportsDir, `run-${i + 1}`),
          },
          seed,
        );
        results.push(result);
        const held = proxy
          ? `  held ${proxy.delays().count} exchange(s), up to ${seconds(proxy.delays().maxMs)}`
          : "";
        console.log(
          `run ${String(i + 1).padStart(2)}  seed ${result.seed}  exit ${result.exitCode}  ${result.verdict.padEnd(15)}  wall ${seconds(result.wallMs).padStart(7)}  load ${result.load.toFixed(2)}${held}`,
        );
      }
      const slowest = results.reduce((a, b) => (b.wallMs > a.wallMs ? b : a));
      const conformant = results.filter((r) => r.verdict === "conformant" && r.exitCode === 0).length;
      console.log(
        `slowest: run ${results.indexOf(slowest) + 1} (seed ${slowest.seed}), ${seconds(slowest.wallMs)}; conformant: ${conformant} of ${runs}`,
      );
      console.log(`reports: ${reportsDir}/run-N/`);
      return conformant === runs ? EXIT.ok : EXIT.failed;
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      stopAll();
      await stopServed();
    }
  },
});
