/**
 * A provider shipped as a container image, certified or load-tested as it ships
 * (H2H_TARGET_IMAGE): testcontainers starts it with host networking, listening on `$PORT` (set
 * here to a free loopback port, the common container convention), so that the suite reaches it
 * and it reaches the webhook sink on loopback; the suite waits until it is ready, keeps its logs
 * for the reports, and stops it at the end, on a failure, and (through a watchdog) when the run
 * is interrupted.
 */
import { createServer } from "node:net";
import type { ContainerRuntimeClient, WaitStrategy } from "testcontainers";
import {
  ContainerEngineError,
  effectiveImageName,
  engineClient,
  ensureImage,
  ensureReaper,
  reasonOf,
  stopAndRemove,
  watchedContainer,
} from "./container-engine.ts";
import { parseReadiness, type Readiness, type RunSettings } from "./settings-table.ts";

export { parseReadiness, parseTargetEnv, type Readiness } from "./settings-table.ts";

export interface TargetContainerSettings {
  image: string;
  /** Extra environment from H2H_TARGET_ENV (PORT is the suite's). */
  env: Record<string, string>;
  readiness: Readiness;
  startupTimeoutMs: number;
}

/** What the reports show of the target container. */
export interface TargetContainerRecord {
  /** As asked for (H2H_TARGET_IMAGE) and as run (a registry prefix applied). */
  image: string;
  imageRun: string;
  imageOrigin: "local" | "pulled" | "unknown";
  containerId: string | undefined;
  network: "host";
  port: number;
  /** The container's environment as given; values of secret-looking names are "***". */
  environment: Record<string, string>;
  readiness: string;
  startupTimeoutS: number;
  startedAt: string;
  /** From start to ready; null when it never got ready. */
  readyAfterMs: number | null;
  stoppedAt?: string;
  exitCode?: number | null;
  /** stdout and stderr, interleaved as they came, not yet masked (reports mask). */
  logs: string;
  /** Characters of log left out in the middle of a very long log. */
  logsOmittedChars: number;
}

export { DEFAULT_STARTUP_S } from "./settings-table.ts";

/** How long a stopping container gets after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 10_000;
const SECRET_NAME = /KEY|SECRET|TOKEN|PASS|CREDENTIAL|AUTH|PRIVATE/i;

export function describeReadiness(readiness: Readiness): string {
  if (readiness.kind === "log") return `a log line contains "${readiness.text}"`;
  return readiness.anyStatus
    ? `GET ${readiness.path} gets any HTTP answer`
    : `GET ${readiness.path} answers with a status below 500`;
}

/** The target container's settings (checked when parsed), or undefined when H2H_TARGET_IMAGE is not set. */
export function readTargetContainerSettings(run: RunSettings): TargetContainerSettings | undefined {
  if (run.targetImage === undefined) return undefined;
  return {
    image: run.targetImage,
    env: run.targetEnv ?? {},
    readiness: run.targetReady ?? parseReadiness(undefined),
    startupTimeoutMs: Math.round(run.targetStartupS * 1000),
  };
}

/** Values of the container's environment that look secret (by their names), for the masker. */
export function secretEnvValues(settings: TargetContainerSettings | undefined): string[] {
  if (!settings) return [];
  return Object.entries(settings.env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value.length > 0)
    .map(([, value]) => value);
}

function shownEnvironment(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, SECRET_NAME.test(name) ? "***" : value]),
  );
}

/** A free TCP port on loopback, for the container to listen on. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Keeps a log's beginning and its end; a very long middle is left out (and counted). */
export class LogBuffer {
  private head = "";
  private tail: string[] = [];
  private tailLength = 0;
  private omitted = 0;

  constructor(
    private readonly headLimit = 256 * 1024,
    private readonly tailLimit = 768 * 1024,
  ) {}

  append(chunk: string): void {
    if (this.head.length < this.headLimit) {
      const room = this.headLimit - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk === "") return;
    this.tail.push(chunk);
    this.tailLength += chunk.length;
    while (this.tailLength > this.tailLimit && this.tail.length > 0) {
      const dropped = this.tail.shift() as string;
      this.tailLength -= dropped.length;
      this.omitted += dropped.length;
    }
  }

  get omittedChars(): number {
    return this.omitted;
  }

  text(): string {
    const gap = this.omitted > 0 ? `\n… ${this.omitted} characters of log left out …\n` : "";
    return `${this.head}${gap}${this.tail.join("")}`;
  }
}

/** The target container did not start or get ready; `record` holds what is known, logs included. */
export class TargetContainerError extends Error {
  override name = "TargetContainerError";
  constructor(
    message: string,
    readonly record: TargetContainerRecord,
  ) {
    super(message);
  }
}

export interface RunningTargetContainer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  containerId: string;
  /** Stops and removes the container (once; later calls get the same record). */
  stop(): Promise<TargetContainerRecord>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function answersHttp(url: string, anyStatus: boolean): Promise<boolean> {
  try {
    const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return anyStatus || response.status < 500;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Testcontainers' wait, for a container on the host network: `Wait.forHttp` needs a mapped port,
 * which host networking has none of, so the readiness is tried on loopback, with testcontainers'
 * own retry. A container that exits first ends the wait at once, its exit code kept: testcontainers
 * removes a container that never got ready.
 */
class LoopbackReadiness implements WaitStrategy {
  private startupTimeoutMs = 60_000;
  private timeoutSet = false;
  /** Set once the container has started and the wait begun. */
  waiting = false;
  exitCode: number | undefined;

  constructor(private readonly isReady: () => Promise<boolean>) {}

  withStartupTimeout(startupTimeoutMs: number): this {
    this.startupTimeoutMs = startupTimeoutMs;
    this.timeoutSet = true;
    return this;
  }
  isStartupTimeoutSet(): boolean {
    return this.timeoutSet;
  }
  getStartupTimeout(): number {
    return this.startupTimeoutMs;
  }

  async waitUntilReady(container: Parameters<WaitStrategy["waitUntilReady"]>[0]): Promise<void> {
    this.waiting = true;
    const exited = async () => {
      const state = await container.inspect().then(
        (info) => info.State,
        () => undefined,
      );
      if (state && !state.Running) this.exitCode = state.ExitCode;
      return this.exitCode !== undefined;
    };
    // Loaded when a container is started, as the engine module loads it: every run that starts none
    // (and every CLI process) would pay half a second of CPU for it.
    const { IntervalRetry } = await import("testcontainers");
    const ready = await new IntervalRetry<boolean, false>(READINESS_INTERVAL_MS).retryUntil(
      async () => (await this.isReady()) || (await exited()),
      (done) => done,
      () => false,
      this.startupTimeoutMs,
    );
    if (!ready) throw new Error(`not ready within ${this.startupTimeoutMs} ms`);
    if (this.exitCode !== undefined) throw new Error(`exited with code ${this.exitCode}`);
  }
}

/** How often readiness is tried. */
const READINESS_INTERVAL_MS = 250;

/**
 * Starts the target container and waits until it is ready. On any failure the container is
 * stopped and removed, and a TargetContainerError says why, with its last log lines.
 */
export async function startTargetContainer(
  settings: TargetContainerSettings,
  options: { runId: string; print?: (line: string) => void },
): Promise<RunningTargetContainer> {
  const print = options.print ?? (() => {});
  const port = await freeLoopbackPort();
  const environment = { ...settings.env, PORT: String(port) };
  const logs = new LogBuffer();
  // Until the container starts: when the engine has been reached and the image is there (a pull
  // does not eat into the startup time).
  let startedAtMs = Date.now();
  const record: TargetContainerRecord = {
    image: settings.image,
    imageRun: await effectiveImageName(settings.image),
    imageOrigin: "unknown",
    containerId: undefined,
    network: "host",
    port,
    environment: shownEnvironment(environment),
    readiness: describeReadiness(settings.readiness),
    startupTimeoutS: settings.startupTimeoutMs / 1000,
    startedAt: new Date(startedAtMs).toISOString(),
    readyAfterMs: null,
    logs: "",
    logsOmittedChars: 0,
  };
  const snapshot = (): TargetContainerRecord => ({
    ...record,
    logs: logs.text(),
    logsOmittedChars: logs.omittedChars,
  });
  const fail = (message: string): TargetContainerError => new TargetContainerError(message, snapshot());

  let client: ContainerRuntimeClient;
  try {
    client = await engineClient("H2H_TARGET_IMAGE");
    await ensureReaper(client);
    record.imageOrigin = await ensureImage(client, settings.image, "H2H_TARGET_IMAGE");
  } catch (error) {
    if (error instanceof ContainerEngineError) throw fail(error.message);
    throw error;
  }

  const { container, createdId, watch } = await watchedContainer(settings.image, { init: true });
  let logsEnded: Promise<void> = Promise.resolve();
  const url = `http://127.0.0.1:${port}`;
  const readiness = settings.readiness;
  const waitStrategy = new LoopbackReadiness(async () =>
    readiness.kind === "log"
      ? logs.text().includes(readiness.text)
      : await answersHttp(`${url}${readiness.path}`, readiness.anyStatus),
  ).withStartupTimeout(settings.startupTimeoutMs);
  container
    .withNetworkMode("host")
    .withWaitStrategy(waitStrategy)
    .withEnvironment(environment)
    .withLabels({ "h2h-certify.run": options.runId, "h2h-certify.role": "target" })
    .withLogConsumer((stream) => {
      logsEnded = new Promise((resolve) => {
        stream.on("data", (chunk: Buffer | string) => logs.append(chunk.toString()));
        stream.once("end", resolve);
        stream.once("error", () => resolve());
      });
    });

  let stopped: Promise<TargetContainerRecord> | undefined;
  const stop = (): Promise<TargetContainerRecord> => {
    stopped ??= (async () => {
      const id = createdId();
      if (id !== undefined) {
        const exitCode = await stopAndRemove(client, id, STOP_GRACE_MS);
        record.exitCode = exitCode ?? null;
        watch()?.release();
        // The log stream ends with the container; a moment for its last lines.
        await Promise.race([logsEnded, sleep(2_000)]);
      }
      record.stoppedAt = new Date().toISOString();
      return snapshot();
    })();
    return stopped;
  };

  print(
    `target container: starting ${record.imageRun} (${record.imageOrigin} image), host network, PORT=${port}; ` +
      `ready when ${record.readiness} (at most ${record.startupTimeoutS} s)`,
  );
  startedAtMs = Date.now();
  record.startedAt = new Date(startedAtMs).toISOString();
  try {
    await container.start();
  } catch (error) {
    record.containerId = createdId();
    if (!waitStrategy.waiting)
      throw new TargetContainerError(
        `the target container (${record.imageRun}, H2H_TARGET_IMAGE) could not start: ${reasonOf(error)}`,
        await stop(),
      );
    const finalRecord = await stop();
    if (waitStrategy.exitCode !== undefined) {
      finalRecord.exitCode = waitStrategy.exitCode;
      throw new TargetContainerError(
        `the target container (${record.imageRun}) exited with code ${waitStrategy.exitCode} before it was ready ` +
          `(${record.readiness}); its last log lines: ${lastLinesOf(finalRecord.logs)}`,
        finalRecord,
      );
    }
    throw new TargetContainerError(
      `the target container (${record.imageRun}) was not ready within ${record.startupTimeoutS} s ` +
        `(H2H_TARGET_STARTUP_S): waited until ${record.readiness} on port ${port} (does the image listen on $PORT? ` +
        `H2H_TARGET_READY sets the readiness); its last log lines: ${lastLinesOf(finalRecord.logs)}`,
      finalRecord,
    );
  }
  const containerId = createdId() as string;
  record.containerId = containerId;

  record.readyAfterMs = Date.now() - startedAtMs;
  print(
    `target container: ${containerId.slice(0, 12)} ready at ${url} after ${(record.readyAfterMs / 1000).toFixed(1)} s`,
  );
  return {
    url,
    port,
    containerId,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

function lastLinesOf(logs: string): string {
  const lines = logs
    .trimEnd()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(-5);
  return lines.length === 0 ? "(none)" : lines.map((line) => line.trim()).join(" | ");
}
