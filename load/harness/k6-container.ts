/**
 * k6 in a container, for a machine without k6 but with a Docker engine: the image named by
 * H2H_K6_IMAGE (a pinned k6 version by default), used as the engine has it and pulled only when it
 * has not (through TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX when set). Any Docker problem is one line
 * naming H2H_K6_IMAGE with the fix. The container runs with host networking (k6 reaches the
 * loopback target and sink as a local k6 would), as the calling user (its files are ours), its
 * output streamed as it comes, and it is stopped if this process ends first.
 */
import { dirname } from "node:path";
import type { ContainerRuntimeClient } from "testcontainers";
import {
  ContainerEngineError,
  effectiveImageName,
  engineClient,
  ensureImage,
  ensureReaper,
  reasonOf,
  stopAndRemove,
  watchedContainer,
} from "../../run-setup/index.ts";

/** The k6 the load scripts are written and tested for; the image's tag pins it. */
export { DEFAULT_K6_IMAGE } from "../../run-setup/index.ts";

export const HOW_TO_GET_K6 =
  "install k6 (https://grafana.com/docs/k6/latest/set-up/install-k6/) and put it on PATH or set K6_BIN=/path/to/k6, " +
  "or set H2H_K6_IMAGE to a k6 image the Docker engine has (docker images)";

/**
 * Makes sure k6 can run from `image`: the engine answers, testcontainers' reaper can start (or
 * is disabled), the image is there (pulled if it was not). Undefined when it can; else the one
 * line to print.
 */
export async function k6ImageProblem(image: string): Promise<string | undefined> {
  try {
    const client = await engineClient("k6 in a container");
    await ensureReaper(client);
    await ensureImage(client, image, "H2H_K6_IMAGE");
    return undefined;
  } catch (error) {
    if (!(error instanceof ContainerEngineError)) throw error;
    return `k6 is not installed and cannot run in Docker: ${error.message}. Fix: ${HOW_TO_GET_K6}`;
  }
}

export interface K6ContainerRun {
  image: string;
  /** k6's arguments, with paths as the container sees them (/scripts, /out). */
  args: string[];
  env: Record<string, string>;
  /** Mounted read-only at /scripts. */
  bundle: string;
  /** Mounted read-write at /out. */
  outputDir: string;
  /** The run's TLS folder (k6-tls.ts), mounted read-only at /tls. */
  tlsDir?: string;
  /** Where k6's output goes (as it comes). */
  output?: NodeJS.WritableStream;
}

export const IN_CONTAINER = { scriptsDir: "/scripts", outputDir: "/out", tlsDir: "/tls" } as const;

/** Runs k6 in its container to the end; resolves with k6's exit code. */
export async function runK6InContainer(run: K6ContainerRun): Promise<number> {
  const output = run.output ?? process.stdout;
  const imageRun = await effectiveImageName(run.image);
  let client: ContainerRuntimeClient;
  try {
    client = await engineClient("k6 in a container");
  } catch (error) {
    throw new Error(`${reasonOf(error)} (H2H_K6_IMAGE=${imageRun})`);
  }
  const { container, createdId, watch } = await watchedContainer(run.image);
  let logsEnded: Promise<void> = Promise.resolve();
  container
    .withNetworkMode("host")
    .withBindMounts([
      { source: dirname(run.bundle), target: IN_CONTAINER.scriptsDir, mode: "ro" },
      { source: run.outputDir, target: IN_CONTAINER.outputDir, mode: "rw" },
      ...(run.tlsDir ? [{ source: run.tlsDir, target: IN_CONTAINER.tlsDir, mode: "ro" as const }] : []),
    ])
    .withEnvironment(run.env)
    .withCommand(run.args)
    .withLabels({ "h2h-certify.role": "k6" })
    .withLogConsumer((stream) => {
      logsEnded = new Promise((resolve) => {
        stream.on("data", (chunk: Buffer | string) => output.write(chunk.toString()));
        stream.once("end", resolve);
        stream.once("error", () => resolve());
      });
    });
  // As this user, so that k6 can write to the output folder and what it writes is ours.
  if (typeof process.getuid === "function" && typeof process.getgid === "function")
    container.withUser(`${process.getuid()}:${process.getgid()}`);

  try {
    await container.start();
    const id = createdId() as string;
    const { StatusCode } = (await client.container.dockerode.getContainer(id).wait()) as {
      StatusCode: number;
    };
    await logsEnded;
    return StatusCode;
  } catch (error) {
    throw new Error(
      `k6 in Docker (${imageRun}, H2H_K6_IMAGE) failed: ${reasonOf(error)}. Fix: ${HOW_TO_GET_K6}`,
    );
  } finally {
    const id = createdId();
    if (id !== undefined) await stopAndRemove(client, id, 2_000);
    watch()?.release();
  }
}
