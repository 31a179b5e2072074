/**
 * What the suite's containers (a provider image under certification, k6) share: the Docker
 * engine reached through testcontainers, with its own settings (DOCKER_HOST,
 * TESTCONTAINERS_RYUK_DISABLED, TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX); an image used as the
 * engine has it and pulled only when it has not; and a watchdog that stops a container when the
 * process that started it ends in any way (Ctrl-C, SIGTERM, a crash, SIGKILL), which also holds
 * with Ryuk disabled, as an air-gapped engine needs.
 */
import { spawn } from "node:child_process";
import type { Socket } from "node:net";
import type { ContainerRuntimeClient, GenericContainer } from "testcontainers";
import { COMPILED, moduleBeside } from "../contract/kit/index.ts";
import { PROJECT_ROOT } from "./settings.ts";

/** How long an engine has to answer before the suite says there is none. */
const ENGINE_TIMEOUT_MS = 5_000;

/** A Docker problem, said in one line with the fix. */
export class ContainerEngineError extends Error {
  override name = "ContainerEngineError";
}

/** The first line of an error, without dockerode's "(HTTP code 500) server error - " preamble. */
export function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split("\n").find((line) => line.trim() !== "") ?? message;
  return first.replace(/^\(HTTP code \d+\)\s*[a-z ]*-\s*/i, "").trim();
}

/** The image name as testcontainers uses it: TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX applied. */
export async function effectiveImageName(image: string): Promise<string> {
  const { ImageName } = await import("testcontainers");
  return ImageName.fromString(image).string;
}

/** The engine's client, or a ContainerEngineError when none answers within a few seconds. */
export async function engineClient(purpose: string): Promise<ContainerRuntimeClient> {
  const { getContainerRuntimeClient } = await import("testcontainers");
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      getContainerRuntimeClient(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${ENGINE_TIMEOUT_MS / 1000} s`)),
          ENGINE_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    throw new ContainerEngineError(
      `${purpose} needs a Docker engine and none answers (${reasonOf(error)}): start one, or point DOCKER_HOST at it`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * testcontainers starts its Ryuk reaper (an image of its own) before any container unless
 * TESTCONTAINERS_RYUK_DISABLED=true; without a registry that image cannot be pulled. Tried here
 * first so that the failure says so, instead of a raw registry error.
 */
export async function ensureReaper(client: ContainerRuntimeClient): Promise<void> {
  const { getReaper } = await import("testcontainers");
  try {
    await getReaper(client);
  } catch (error) {
    const image = process.env.RYUK_CONTAINER_IMAGE ?? "testcontainers/ryuk";
    throw new ContainerEngineError(
      `testcontainers could not start its Ryuk reaper (${image}: ${reasonOf(error)}): with no registry, set ` +
        "TESTCONTAINERS_RYUK_DISABLED=true (h2h-certify stops its containers itself), or set " +
        "TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX to a registry mirror",
    );
  }
}

export type ImageOrigin = "local" | "pulled";

/**
 * Makes sure the engine has `image`: used as it is when present (never pulled then), else pulled
 * (through TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX when set). `variable` names the setting that
 * chose the image, for the error.
 */
export async function ensureImage(
  client: ContainerRuntimeClient,
  image: string,
  variable: string,
): Promise<ImageOrigin> {
  const { ImageName } = await import("testcontainers");
  const name = ImageName.fromString(image);
  if (await client.image.exists(name)) return "local";
  try {
    await client.image.pull(name);
  } catch (error) {
    throw new ContainerEngineError(
      `the Docker engine has no image ${name.string} (${variable}) and could not pull it (${reasonOf(error)})`,
    );
  }
  if (!(await client.image.exists(name)))
    throw new ContainerEngineError(
      `the Docker engine has no image ${name.string} (${variable}) and pulling it brought none`,
    );
  return "pulled";
}

const WATCHDOG = moduleBeside("./container-watchdog.ts", import.meta.url);

export interface ContainerWatch {
  /** The container was stopped by its owner: the watchdog leaves without touching it. */
  release(): void;
}

/**
 * Starts a detached watchdog process for a container: it holds a pipe from this process and,
 * when the pipe closes without a release (this process ended, however), stops and removes the
 * container. It is not this process's child in any way that would keep it alive or get it the
 * terminal's Ctrl-C.
 */
export function watchContainer(containerId: string): ContainerWatch {
  // Run as `npm run` runs the project's TypeScript (tsx, registered by scripts/tsx.mjs); the
  // installed package's is compiled.
  const tsx = new URL("../scripts/tsx.mjs", import.meta.url).href;
  const child = spawn(process.execPath, [...(COMPILED ? [] : ["--import", tsx]), WATCHDOG, containerId], {
    cwd: PROJECT_ROOT,
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
    env: process.env,
  });
  child.once("error", () => {});
  child.unref();
  const pipe = child.stdin as Socket;
  pipe.on("error", () => {});
  pipe.unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      pipe.end("release\n");
    },
  };
}

/**
 * A testcontainers container whose watchdog starts the moment the engine has created it, before
 * it runs: from then on, however this process ends, the container does not outlive it. With
 * `init`, the engine's init process is PID 1 and passes signals on: an image whose program does
 * not handle SIGTERM as PID 1 (many do not, and none can before it has set up its handler) still
 * stops at once instead of after the grace period.
 */
export async function watchedContainer(
  image: string,
  options: { init?: boolean } = {},
): Promise<{
  container: GenericContainer;
  createdId(): string | undefined;
  watch(): ContainerWatch | undefined;
}> {
  const { GenericContainer } = await import("testcontainers");
  let id: string | undefined;
  let watch: ContainerWatch | undefined;
  class WatchedContainer extends GenericContainer {
    constructor() {
      super(image);
      if (options.init) this.hostConfig.Init = true;
    }
    protected override async containerCreated(containerId: string): Promise<void> {
      id = containerId;
      watch = watchContainer(containerId);
    }
  }
  return { container: new WatchedContainer(), createdId: () => id, watch: () => watch };
}

/** Stops (SIGTERM, then SIGKILL after `graceMs`) and removes a container; its exit code, when known. */
export async function stopAndRemove(
  client: ContainerRuntimeClient,
  containerId: string,
  graceMs: number,
): Promise<number | undefined> {
  const container = client.container.getById(containerId);
  try {
    await client.container.stop(container, { timeout: graceMs });
  } catch {
    // Already stopped, or gone: what follows settles it.
  }
  let exitCode: number | undefined;
  try {
    exitCode = (await client.container.inspect(container)).State.ExitCode;
  } catch {
    exitCode = undefined;
  }
  await client.container.remove(container, { removeVolumes: true }).catch(() => {});
  return exitCode;
}
