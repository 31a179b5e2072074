/**
 * Shared benchmark plumbing: start a server in a child process, and measure sustained requests
 * per second against it with autocannon over keep-alive connections.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export interface ChildServer {
  url: string;
  /** Further words of the LISTENING line (the sink's callback URL and token). */
  extra: string[];
  /** RSS samples the server printed (with BENCH_RSS_EVERY_MS), in ms since it listened. */
  rssSamples: { atMs: number; bytes: number; heapUsedBytes: number }[];
  /** Stops the server; resolves with its peak RSS, when it said it. */
  stop(): Promise<{ peakRssBytes: number | undefined }>;
}

/**
 * Runs `scripts/bench/serve.ts <kind>` as `npm run provider` runs the provider (tsx, by scripts/tsx.mjs: what
 * is measured is what users run) and waits for its `LISTENING <url>` line.
 */
export async function startChildServer(
  kind: string,
  timeoutMs = 20_000,
  env: Record<string, string> = {},
): Promise<ChildServer> {
  const script = fileURLToPath(new URL("./serve.ts", import.meta.url));
  const tsx = new URL("../tsx.mjs", import.meta.url).href;
  const child: ChildProcess = spawn(process.execPath, ["--import", tsx, script, kind], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const rssSamples: ChildServer["rssSamples"] = [];
  let listenedAt = 0;
  let peakRssBytes: number | undefined;
  let lines = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    lines += chunk.toString();
    for (let end = lines.indexOf("\n"); end !== -1; end = lines.indexOf("\n")) {
      const [word, value, heap] = lines.slice(0, end).split(" ");
      lines = lines.slice(end + 1);
      if (word === "RSS")
        rssSamples.push({
          atMs: performance.now() - listenedAt,
          bytes: Number(value),
          heapUsedBytes: Number(heap),
        });
      else if (word === "PEAK_RSS") peakRssBytes = Number(value);
    }
  });
  const words = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${kind} server did not start within ${timeoutMs} ms`)),
      timeoutMs,
    );
    let buffered = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /LISTENING ([^\n]+)\n/.exec(buffered);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1].trim().split(/\s+/));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} server exited with code ${code} before listening`));
    });
  });
  listenedAt = performance.now();
  const [url, ...extra] = words as [string, ...string[]];
  return {
    url,
    extra,
    rssSamples,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve({ peakRssBytes });
        child.once("exit", () => resolve({ peakRssBytes }));
        child.kill("SIGTERM");
      }),
  };
}

export interface Throughput {
  requestsPerSecond: number;
  requests: number;
  /** Answers with a 2xx status. */
  acknowledged: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  p99LatencyMs: number;
}

export interface LoadShape {
  /** Path under the base URL, or a full URL. */
  path: string;
  body: string;
  headers: Record<string, string>;
  connections: number;
  /** Replace `[<id>]` in the body with a fresh id in every request. */
  uniqueIds?: boolean;
  /** Run for this long, or (when `requests` is set) until that many requests were answered. */
  durationSeconds: number;
  requests?: number;
}

export async function measureThroughput(baseUrl: string, shape: LoadShape): Promise<Throughput> {
  const result = await autocannon({
    url: /^https?:/.test(shape.path) ? shape.path : `${baseUrl}${shape.path}`,
    method: "POST",
    headers: shape.headers,
    body: shape.body,
    connections: shape.connections,
    ...(shape.requests !== undefined ? { amount: shape.requests } : { duration: shape.durationSeconds }),
    pipelining: 1,
    // autocannon writes a fresh id wherever the body says [<id>] (unique merchantOrderIDs).
    ...(shape.uniqueIds ? { idReplacement: true } : {}),
  });
  return {
    // Over the whole run (autocannon's per-second samples miss a last partial second).
    requestsPerSecond: Math.round(result.requests.total / result.duration),
    requests: result.requests.total,
    acknowledged: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p99LatencyMs: result.latency.p99,
  };
}

/** A measurement is valid only if every request was answered with a 2xx. */
export function assertValidRuns(runs: Record<string, Throughput>): void {
  for (const [kind, t] of Object.entries(runs)) {
    if (t.non2xx > 0 || t.errors > 0 || t.requests === 0) {
      throw new Error(
        `${kind}: ${t.non2xx} non-2xx answers, ${t.errors} errors in ${t.requests} requests: the run is not valid`,
      );
    }
  }
}

/** The middle value (the mean of the two middle ones for an even count): one disturbed run does not move it. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
