/**
 * Finds a k6 to run the bundles with, and runs one: the binary on PATH or at K6_BIN; otherwise,
 * when a Docker engine answers, the H2H_K6_IMAGE image through testcontainers (k6-container.ts);
 * otherwise none, with a message that says how to get k6. Nothing is downloaded here but that
 * image, by Docker, and only when the engine does not have it.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { basename, delimiter, join } from "node:path";
import {
  DEFAULT_K6_IMAGE,
  HOW_TO_GET_K6,
  IN_CONTAINER,
  k6ImageProblem,
  runK6InContainer,
} from "./k6-container.ts";
import { K6_TLS_IN_CONTAINER, type K6Tls, k6TlsEnv } from "./k6-tls.ts";

export type K6Runner = { kind: "local"; bin: string } | { kind: "docker"; image: string };
export type K6Lookup = K6Runner | { kind: "none"; reason: string };

export { HOW_TO_GET_K6 };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** k6 on PATH, or at K6_BIN (which must then exist); undefined when there is none. */
export function findLocalK6(env: Record<string, string | undefined> = process.env): string | undefined {
  const configured = env.K6_BIN;
  if (configured !== undefined && configured !== "") {
    if (!executable(configured)) throw new Error(`K6_BIN=${configured} is not an executable file`);
    return configured;
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, process.platform === "win32" ? "k6.exe" : "k6");
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

/** Whether a Docker engine answers, within a few seconds. */
export async function dockerAvailable(
  env: Record<string, string | undefined> = process.env,
): Promise<boolean> {
  const host = env.DOCKER_HOST;
  if (host === undefined && !existsSync("/var/run/docker.sock")) return false;
  if (host?.startsWith("unix://") && !existsSync(host.slice("unix://".length))) return false;
  try {
    const { getContainerRuntimeClient } = await import("testcontainers");
    const client = await Promise.race([
      getContainerRuntimeClient(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), 5_000)),
    ]);
    return client !== undefined;
  } catch {
    return false;
  }
}

/** k6 on PATH or K6_BIN, else in `image` (H2H_K6_IMAGE) when a Docker engine answers. */
export async function locateK6(env: Record<string, string | undefined>, image: string): Promise<K6Lookup> {
  const local = findLocalK6(env);
  if (local) return { kind: "local", bin: local };
  if (await dockerAvailable(env)) {
    const problem = await k6ImageProblem(image);
    return problem === undefined ? { kind: "docker", image } : { kind: "none", reason: problem };
  }
  return {
    kind: "none",
    reason:
      "k6 not found on PATH, K6_BIN is not set, and no Docker engine answers: install k6 " +
      "(https://grafana.com/docs/k6/latest/set-up/install-k6/) and put it on PATH or set K6_BIN=/path/to/k6, " +
      `or start a Docker engine that has the k6 image H2H_K6_IMAGE names (default ${DEFAULT_K6_IMAGE})`,
  };
}

export interface K6Invocation {
  bundle: string;
  /** Variables for the script (passed with -e; they are its __ENV). */
  scriptEnv: Record<string, string>;
  /** Where the outputs go: the summary JSON (via H2H_SUMMARY_PATH), the dashboard export, the timeline record. */
  outputDir: string;
  summaryFile: string;
  dashboardFile: string;
  /** k6's web dashboard record (gzipped NDJSON, one event per period): the run over time, bounded. */
  timelineFile: string;
  timelinePeriodSeconds: number;
  /** The tags the dashboard aggregates per value. */
  timelineTags: readonly string[];
  /** The run's TLS folder (k6-tls.ts): CA bundle, client certificate and key. */
  tls?: K6Tls;
}

function k6Args(
  invocation: K6Invocation,
  paths: { bundle: string; outputDir: string; tlsDir: string },
): string[] {
  // A REST API on a free port: two runs at once must not fight over k6's default 6565.
  const args = ["run", "--no-color", "--address", "127.0.0.1:0"];
  for (const [name, value] of Object.entries({
    ...invocation.scriptEnv,
    ...k6TlsEnv(invocation.tls, paths.tlsDir).scriptEnv,
    H2H_SUMMARY_PATH: join(paths.outputDir, invocation.summaryFile),
  })) {
    args.push("-e", `${name}=${value}`);
  }
  // No `--out`: every figure comes from k6's end-of-test summary and its dashboard's per-period
  // record, so nothing grows with the run's length.
  args.push(paths.bundle);
  return args;
}

function dashboardEnv(outputDir: string, invocation: K6Invocation): Record<string, string> {
  // k6's web dashboard, exported as one HTML file at the end of the run; no live server. Its
  // record (one aggregate per period, the period sized to the run) is the run's timeline.
  return {
    K6_WEB_DASHBOARD: "true",
    K6_WEB_DASHBOARD_PORT: "-1",
    K6_WEB_DASHBOARD_EXPORT: join(outputDir, invocation.dashboardFile),
    K6_WEB_DASHBOARD_RECORD: join(outputDir, invocation.timelineFile),
    K6_WEB_DASHBOARD_PERIOD: `${invocation.timelinePeriodSeconds}s`,
    K6_WEB_DASHBOARD_TAGS: invocation.timelineTags.join(","),
    // Loopback only: no usage report to Grafana at the end of the run.
    K6_NO_USAGE_REPORT: "true",
  };
}

/** Runs k6 and resolves with its exit code (99: a threshold failed). Its output goes to ours. */
export async function runK6(runner: K6Runner, invocation: K6Invocation): Promise<number> {
  if (runner.kind === "local") {
    return new Promise((resolve, reject) => {
      const child = spawn(
        runner.bin,
        k6Args(invocation, {
          bundle: invocation.bundle,
          outputDir: invocation.outputDir,
          tlsDir: invocation.tls?.dir ?? "",
        }),
        {
          stdio: ["ignore", "inherit", "inherit"],
          env: {
            ...process.env,
            ...dashboardEnv(invocation.outputDir, invocation),
            ...k6TlsEnv(invocation.tls, invocation.tls?.dir ?? "").processEnv,
          },
        },
      );
      child.once("error", (error) =>
        reject(new Error(`k6 (${runner.bin}) could not start: ${error.message}`)),
      );
      child.once("exit", (code) => resolve(code ?? 1));
    });
  }
  // Docker: the bundle's folder and the output folder are mounted (see k6-container.ts).
  const inContainer = {
    bundle: `${IN_CONTAINER.scriptsDir}/${basename(invocation.bundle)}`,
    outputDir: IN_CONTAINER.outputDir,
    tlsDir: K6_TLS_IN_CONTAINER,
  };
  return runK6InContainer({
    image: runner.image,
    args: k6Args(invocation, inContainer),
    env: {
      ...dashboardEnv(inContainer.outputDir, invocation),
      ...k6TlsEnv(invocation.tls, K6_TLS_IN_CONTAINER).processEnv,
    },
    bundle: invocation.bundle,
    outputDir: invocation.outputDir,
    // The TLS folder, mounted read-only where the paths above point.
    ...(invocation.tls ? { tlsDir: invocation.tls.dir } : {}),
  });
}
