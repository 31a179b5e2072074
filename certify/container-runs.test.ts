/**
 * H2H_TARGET_IMAGE with real containers: the reference provider's image is made here from the repo
 * (no registry), then certified: green when clean, red with a fault, "not run" with the
 * container's logs when it never gets ready or exits, and no container left behind after any of
 * these nor after Ctrl-C or SIGKILL. The runs whose subject is the verdict run in this process, as
 * the CLI runs them but without a child's start-up; a child process runs where the process is the
 * subject (a signal ends it) and once for the CLI's exit code of a run not run. Without a Docker
 * engine (or the docker command, which makes the image) every test here is skipped, by name, with
 * the reason.
 */
import { execFile, spawn } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_API_KEYS, REFERENCE_CALLBACK_SECRET } from "../fixtures/providers/reference/index.ts";
import {
  buildReferenceProviderImage,
  REFERENCE_PROVIDER_IMAGE,
} from "../fixtures/providers/reference-image/index.ts";
import { childEnv, commandArgs, fileTimeout } from "../fixtures/testing/index.ts";
import type { RunReport } from "./engine/run-model.ts";
import { REPORT_FILES, REPORT_KINDS, TARGET_LOG_FILE } from "./reports/index.ts";
import {
  certifyInProcess,
  type InProcessOptions,
  type InProcessRun,
  sharedSpecRunner,
} from "./testing/certify-in-process.ts";

fileTimeout(300_000);

const root = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

/** Why the container tests cannot run here, or undefined when they can. */
async function whyNoDocker(): Promise<string | undefined> {
  try {
    await run("docker", ["version", "--format", "{{.Server.Version}}"], { timeout: 10_000 });
    return undefined;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === "ENOENT")
      return "the docker command is not installed: the provider image cannot be made";
    return `no Docker engine answers (${(failure.stderr ?? failure.message).trim().split("\n")[0]})`;
  }
}
const noDocker = await whyNoDocker();

interface Child {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

function certify(
  env: Record<string, string>,
  onOutput?: (output: string, child: ReturnType<typeof spawn>) => void,
): Promise<Child> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, commandArgs("certify"), {
      cwd: root,
      env: childEnv({
        // No registry is needed: testcontainers' Ryuk reaper is not (the suite stops its containers).
        TESTCONTAINERS_RYUK_DISABLED: process.env.TESTCONTAINERS_RYUK_DISABLED ?? "true",
        H2H_BASE_URL: "",
        H2H_API_KEY: "",
        H2H_API_KEY_2: "",
        H2H_PROFILE: "",
        H2H_BASELINE_REPORT: "",
        H2H_TARGET_ENV: "",
        H2H_TARGET_READY: "",
        H2H_TARGET_STARTUP_S: "",
        H2H_TARGET_IMAGE: REFERENCE_PROVIDER_IMAGE,
        ...env,
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      onOutput?.(output, child);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.once("exit", (exitCode, signal) => resolve({ exitCode, signal, output }));
  });
}

/**
 * The image's run in this process, at quick depth (the CLI's default, which the tests had as
 * children), every report written unless `options` says which. The container is another process
 * than the run's sink: its lateness is judged as the CLI judges it.
 */
function certifyHere(env: Record<string, string>, options: InProcessOptions = {}) {
  return certifyInProcess(
    { H2H_TARGET_IMAGE: REFERENCE_PROVIDER_IMAGE, H2H_DEPTH: "quick", ...env },
    { reports: REPORT_KINDS, ...options, targetInThisProcess: false },
  );
}

/** Waits until the engine has no container with this id (prefix) any more; false if it still has one. */
async function goneWithin(idPrefix: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { stdout } = await run("docker", ["ps", "-aq", "--no-trunc", "--filter", `id=${idPrefix}`]);
    if (stdout.trim() === "") return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function containerIdIn(output: string): string {
  const id = /target container: ([0-9a-f]{12}) ready at/.exec(output)?.[1];
  expect(id, output).toBeDefined();
  return id as string;
}

function readReport(dir: string): RunReport {
  return JSON.parse(readFileSync(join(dir, REPORT_FILES.json), "utf8")) as RunReport;
}

/**
 * An image whose server nobody on this project wrote: busybox's httpd (Debian's busybox-static), serving a
 * static page on $PORT. Undefined, with the reason, where there is no static busybox to make it from.
 */
const FOREIGN_IMAGE = "localhost/h2h-certify/busybox-httpd:test";
async function makeForeignImage(): Promise<string | undefined> {
  const busybox = ["/usr/bin/busybox", "/bin/busybox"].find((path) => existsSync(path));
  if (!busybox)
    return "no busybox on this machine (apt-get install busybox-static) to make a foreign image from";
  // ldd fails on a static binary ("not a dynamic executable"); a dynamic one would need its libraries.
  const dynamic = await run("ldd", [busybox]).then(
    () => true,
    () => false,
  );
  if (dynamic) return `${busybox} is not statically linked (apt-get install busybox-static)`;
  const rootfs = mkdtempSync(join(tmpdir(), "h2h-foreign-rootfs-"));
  mkdirSync(join(rootfs, "bin"));
  mkdirSync(join(rootfs, "www"));
  copyFileSync(busybox, join(rootfs, "bin/busybox"));
  writeFileSync(join(rootfs, "www/index.html"), "<h1>a static page, not a payment API</h1>\n");
  for (const dir of ["", "bin", "www"]) chmodSync(join(rootfs, dir), 0o755);
  chmodSync(join(rootfs, "bin/busybox"), 0o755);
  const entrypoint = JSON.stringify([
    "/bin/busybox",
    "sh",
    "-c",
    "exec /bin/busybox httpd -f -vv -p 127.0.0.1:$PORT -h /www",
  ]);
  await new Promise<void>((resolve, reject) => {
    const tar = spawn("tar", ["-C", rootfs, "--owner=0", "--group=0", "-c", "."], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const docker = spawn("docker", ["import", "--change", `ENTRYPOINT ${entrypoint}`, "-", FOREIGN_IMAGE], {
      stdio: ["pipe", "ignore", "inherit"],
    });
    tar.stdout.pipe(docker.stdin);
    docker.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`docker import exited with ${code}`)),
    );
  });
  return undefined;
}

const SECRETS = [REFERENCE_API_KEYS.merchant1, REFERENCE_API_KEYS.merchant2, REFERENCE_CALLBACK_SECRET];

// Side by side: each test mostly waits (for a container to start, get ready, or be stopped), and
// one after another they were a minute of npm test. The red run compares with the clean one, so
// it waits for that run first.
describe.concurrent("certify a provider image (H2H_TARGET_IMAGE)", () => {
  const dir = mkdtempSync(join(tmpdir(), "h2h-container-runs-"));
  // One Vitest for the clean and the red run (one after the other anyway); the foreign image's
  // profile has other timeouts, so its run has a Vitest of its own, side by side with them.
  const specRunner = sharedSpecRunner();
  let cleanRun: Promise<InProcessRun> | undefined;
  /** The clean image's whole run, started once (by whichever test asks first). */
  const certifyClean = () => {
    cleanRun ??= (() => {
      // The reference profile, with a retry timing tolerance of 1 s: the provider in the container
      // is another process than the sink, whose stall monitor cannot see its lateness, and on a busy
      // 2-core CI runner its retries (100-400 ms apart) came up to half a second late. What runs in a
      // container is under test here; the retry timing itself is judged where the provider runs
      // beside the sink (certify.test.ts, the mutation self-test).
      const profile = JSON.parse(readFileSync(join(root, "fixtures/profiles/reference.json"), "utf8"));
      profile.callbacks.retryPolicy.toleranceMs = 1_000;
      const profilePath = join(dir, "reference-busy-ci.json");
      writeFileSync(profilePath, JSON.stringify(profile));
      return certifyHere({ H2H_PROFILE: profilePath }, { specRunner: specRunner.run });
    })();
    return cleanRun;
  };
  // testcontainers reads it from this process's environment when the runs here start containers:
  // no registry is needed, its Ryuk reaper is (the suite stops its containers). Put back after.
  const ryukDisabled = process.env.TESTCONTAINERS_RYUK_DISABLED;

  beforeAll(async () => {
    if (noDocker) return;
    process.env.TESTCONTAINERS_RYUK_DISABLED = ryukDisabled ?? "true";
    const image = await buildReferenceProviderImage();
    console.log(
      `container tests: ${image.image} ${image.built ? "built" : "up to date"} in ${(image.durationMs / 1000).toFixed(1)} s`,
    );
  });
  afterAll(async () => {
    await specRunner.close();
    if (ryukDisabled === undefined) delete process.env.TESTCONTAINERS_RYUK_DISABLED;
    else process.env.TESTCONTAINERS_RYUK_DISABLED = ryukDisabled;
    if (!noDocker) await run("docker", ["image", "rm", FOREIGN_IMAGE]).catch(() => {});
  });

  it("is green for the containerised reference provider, with its masked log in every report", async (ctx) => {
    if (noDocker) return ctx.skip(noDocker);
    const { expect } = ctx;
    const { exitCode, output, reportDir: clean } = await certifyClean();
    expect(exitCode, output).toBe(0);
    expect(output).toContain(`(container of ${REFERENCE_PROVIDER_IMAGE})`);
    expect(output).toContain("verdict: CONFORMANT");
    const report = readReport(clean);
    expect(report.verdict).toBe("conformant");
    const container = report.targetContainer;
    expect(container?.image).toBe(REFERENCE_PROVIDER_IMAGE);
    expect(container?.network).toBe("host");
    expect(container?.exitCode).toBe(0);
    expect(report.target.baseUrl).toBe(`http://127.0.0.1:${container?.port}`);
    // The provider listened on $PORT, logged its keys (masked here), and stopped on SIGTERM.
    expect(container?.logs).toContain(`reference provider listening on http://127.0.0.1:${container?.port}`);
    expect(container?.logs).toContain("API keys: ***, *** (sandbox only)");
    expect(container?.logs).toContain("SIGTERM: stopping");
    expect(readdirSync(clean).sort()).toEqual([...Object.values(REPORT_FILES), TARGET_LOG_FILE].sort());
    expect(readFileSync(join(clean, TARGET_LOG_FILE), "utf8")).toBe(container?.logs);
    expect(readFileSync(join(clean, REPORT_FILES.html), "utf8")).toContain('<h2 id="target-container">');
    for (const [file, text] of [
      ...readdirSync(clean).map((f) => [f, readFileSync(join(clean, f), "utf8")] as const),
      ["console", output] as const,
    ]) {
      for (const secret of SECRETS)
        expect(text.includes(secret), `${file} holds ${secret.slice(0, 8)}…`).toBe(false);
    }
    expect(await goneWithin(container?.containerId as string, 1_000)).toBe(true);
  });

  it("is red for the same image with a fault, and names the regressions since the clean run", async (ctx) => {
    if (noDocker) return ctx.skip(noDocker);
    const { expect } = ctx;
    const clean = (await certifyClean()).reportDir;
    // The checks the fault fails and the arrivals of the same callbacks: the clean run above is
    // the whole certification of the image; here, what reaches the sink from inside the container.
    const { exitCode, output, report } = await certifyHere(
      {
        H2H_TARGET_ENV: "H2H_PROVIDER_FAULTS=bad-callback-signature",
        ...(existsSync(join(clean, REPORT_FILES.json))
          ? { H2H_BASELINE_REPORT: join(clean, REPORT_FILES.json) }
          : {}),
      },
      {
        only: ["callbacks.signature-valid", "callbacks.arrives"],
        reports: ["json"],
        specRunner: specRunner.run,
      },
    );
    expect(exitCode, output).toBe(1);
    expect(output).toContain("verdict: NOT CONFORMANT");
    const failed = [...new Set(report.checks.filter((c) => c.status === "failed").map((c) => c.check))];
    expect(failed).toEqual(["callbacks.signature-valid"]);
    expect(report.checks.some((c) => c.check === "callbacks.arrives")).toBe(true);
    // The callbacks came from inside the container to the sink on loopback, and were judged.
    expect(
      report.checks.filter((c) => c.check === "callbacks.arrives").every((c) => c.status === "passed"),
    ).toBe(true);
    expect(report.targetContainer?.logs).toContain("faults: bad-callback-signature");
    expect(report.targetContainer?.environment).toMatchObject({
      H2H_PROVIDER_FAULTS: "bad-callback-signature",
    });
    // 8 fixed callback scenarios, every delivery of the retried one, and the generated orders of the 4 methods.
    if (report.baseline) expect(report.baseline.regressions).toHaveLength(13);
  });

  it("is not run when the container never gets ready: exit 2, the reason and its log in the report, nothing left", async (ctx) => {
    if (noDocker) return ctx.skip(noDocker);
    const { expect } = ctx;
    const { exitCode, output, report, reportDir } = await certifyHere({
      H2H_TARGET_READY: "log:a line this image never prints",
      // Long enough for the provider to have started (and logged) on a busy machine.
      H2H_TARGET_STARTUP_S: "8",
      H2H_TARGET_ENV: "UPSTREAM_PASSWORD=correct-horse-battery,LOG_FORMAT=plain",
    });
    expect(exitCode, output).toBe(2);
    expect(output).toMatch(
      /the target container \(localhost\/h2h-certify\/reference-provider:local\) was not ready within 8 s \(H2H_TARGET_STARTUP_S\): waited until a log line contains "a line this image never prints"/,
    );
    expect(output).toContain("its last log lines: reference provider listening on");
    expect(output).not.toContain("correct-horse-battery");
    expect(report.verdict).toBe("not run");
    expect(report.checks.map((c) => [c.check, c.status])).toEqual([["target.container-ready", "failed"]]);
    expect(report.targetContainer?.readyAfterMs).toBeNull();
    expect(report.targetContainer?.environment).toMatchObject({
      UPSTREAM_PASSWORD: "***",
      LOG_FORMAT: "plain",
    });
    expect(report.targetContainer?.logs).toContain("reference provider listening on");
    for (const file of readdirSync(reportDir))
      expect(readFileSync(join(reportDir, file), "utf8")).not.toContain("correct-horse-battery");
    expect(await goneWithin(report.targetContainer?.containerId as string, 1_000)).toBe(true);
  });

  // A child, as a user runs it: the one run here whose exit code is the CLI's own (the others'
  // come from their verdict, as the CLI's do), for a target that was not run.
  it("is not run when the container exits before it is ready: its exit code and last log line say why", async (ctx) => {
    if (noDocker) return ctx.skip(noDocker);
    const { expect } = ctx;
    const reports = join(dir, "exits");
    const { exitCode, output } = await certify({
      H2H_REPORT_DIR: reports,
      H2H_TARGET_ENV: "H2H_PROVIDER_FAULTS=no-such-fault",
    });
    expect(exitCode, output).toBe(2);
    expect(output).toMatch(
      /exited with code 64 before it was ready .*H2H_PROVIDER_FAULTS: unknown fault "no-such-fault"/,
    );
    expect(readReport(reports).verdict).toBe("not run");
    expect(await goneWithin(readReport(reports).targetContainer?.containerId as string, 1_000)).toBe(true);
  });

  it("runs an image nobody on the project wrote, if it listens on $PORT: a static web server, judged not conformant", async (ctx) => {
    if (noDocker) return ctx.skip(noDocker);
    const { expect } = ctx;
    const noForeignImage = await makeForeignImage();
    if (noForeignImage) return ctx.skip(noForeignImage);
    const { exitCode, output, report, reportDir } = await certifyHere({
      H2H_TARGET_IMAGE: FOREIGN_IMAGE,
      H2H_PROFILE: join(root, "fixtures/profiles/example-foreign.json"),
      H2H_API_KEY: "acme-test-key-0001",
      // The profile says callbacks are signed: a foreign target is not certified without the secret.
      H2H_CALLBACK_SECRET: "acme-callback-secret-0001",
    });
    expect(exitCode, output).toBe(1);
    expect(output).toContain(`target container: starting ${FOREIGN_IMAGE}`);
    expect(output).toContain("verdict: NOT CONFORMANT");
    expect(report.verdict).toBe("not conformant");
    expect(report.checks.some((c) => c.check === "behaviour.no-server-error" && c.status === "failed")).toBe(
      true,
    );
    // busybox's own request log: the suite's requests reached it on $PORT, and what it answered.
    expect(report.targetContainer?.logs).toContain("url:/api/v1/payin/mobile-commerce/h2h");
    expect(report.targetContainer?.logs).toMatch(/response:50\d/);
    for (const [file, text] of [
      ...readdirSync(reportDir).map((f) => [f, readFileSync(join(reportDir, f), "utf8")] as const),
      ["console", output] as const,
    ])
      for (const secret of ["acme-test-key-0001", "acme-callback-secret-0001"])
        expect(text, file).not.toContain(secret);
    expect(await goneWithin(report.targetContainer?.containerId as string, 1_000)).toBe(true);
  });

  for (const signal of ["SIGINT", "SIGKILL"] as const) {
    it(`leaves no container behind when the run is ended by ${signal}${signal === "SIGINT" ? " (Ctrl-C)" : ""}`, async (ctx) => {
      if (noDocker) return ctx.skip(noDocker);
      const { expect } = ctx;
      let sent = false;
      // Status changes take 3 s in this container, so the run is still going when the signal comes,
      // however late this busy test process reads the line below (the verdict is not looked at).
      const env = {
        H2H_REPORT_DIR: join(dir, signal),
        H2H_TARGET_ENV: "H2H_PROVIDER_PROCESSING_DELAY_MS=3000",
      };
      const ended = await certify(env, (output, child) => {
        // In the middle of the run: the container is up and the specs are running.
        if (!sent && output.includes("h2h-certify: certifying")) {
          sent = true;
          setTimeout(() => child.kill(signal), 1_500);
        }
      });
      expect(sent, ended.output).toBe(true);
      expect(ended.exitCode === 0, ended.output).toBe(false);
      expect(await goneWithin(containerIdIn(ended.output), 30_000)).toBe(true);
    });
  }
});
